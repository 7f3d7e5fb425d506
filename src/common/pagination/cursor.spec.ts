import { decodeCursor, encodeCursor } from './cursor';

describe('cursor', () => {
  it('gives back the key it was made from, in text a query string carries as it is', () => {
    const cursor = encodeCursor(['msg_01KAT5Y3M8Q2W7E4R6T9Y1V3N5']);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 1)).toEqual(['msg_01KAT5Y3M8Q2W7E4R6T9Y1V3N5']);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'a!!!'],
    ['no version letter', Buffer.from('["msg_1"]').toString('base64url')],
    ['not JSON', `a${Buffer.from('msg_1').toString('base64url')}`],
    ['not an array', `a${Buffer.from('{"m":"msg_1"}').toString('base64url')}`],
    ['another arity', encodeCursor(['msg_1', 'x'])],
    ['not strings', `a${Buffer.from('[1]').toString('base64url')}`],
  ])('refuses a text that is not one of its cursors: %s', (_name, text) => {
    expect(decodeCursor(text, 1)).toBeNull();
  });
});
