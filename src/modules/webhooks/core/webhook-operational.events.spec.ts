import { urlForOperationalEvents } from './webhook-operational.events';

/** The url an operational event carries to the community's other endpoints (docs/api.md#webhooks). */
describe('urlForOperationalEvents', () => {
  it.each([
    ['https://user:pw@h.example/p?token=x#f', 'https://h.example/p'],
    ['https://h.example/hooks/in?sig=abc', 'https://h.example/hooks/in'],
    ['https://h.example/p#frag', 'https://h.example/p'],
    ['https://token@h.example:8443/p', 'https://h.example:8443/p'],
    ['https://h.example/a/b', 'https://h.example/a/b'],
    ['https://h.example/', 'https://h.example/'],
    ['http://127.0.0.1:4000/x?q=1', 'http://127.0.0.1:4000/x'],
  ])('%s → %s', (raw, shown) => expect(urlForOperationalEvents(raw)).toBe(shown));

  it('cuts the same parts from a value that is not a URL', () => {
    expect(urlForOperationalEvents('https://u:p@bad host/p?t=1#f')).toBe('https://bad host/p');
  });
});
