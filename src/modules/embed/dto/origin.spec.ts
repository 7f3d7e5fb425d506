import { parseOrigin } from './origin';

describe('parseOrigin', () => {
  it.each([
    ['https://example.com', 'https://example.com'],
    ['HTTPS://Example.COM:443', 'https://example.com'],
    ['http://localhost:3000', 'http://localhost:3000'],
  ])('accepts %s as %s', (input, origin) => expect(parseOrigin(input)).toBe(origin));

  it.each([
    'https://example.com/',
    'https://example.com/app',
    'https://a@example.com',
    'ftp://example.com',
    'example.com',
    '*',
    'https://ex.com?x',
  ])('refuses %s', (input) => expect(parseOrigin(input)).toBeNull());
});
