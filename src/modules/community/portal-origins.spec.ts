import { parsePortalOrigin } from './portal-origins';

describe('parsePortalOrigin', () => {
  it.each([
    ['https://app.example.com', 'https://app.example.com'],
    ['HTTPS://App.Example.COM', 'https://app.example.com'],
    ['https://app.example.com:8443', 'https://app.example.com:8443'],
    ['https://app.example.com:443', 'https://app.example.com'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
    ['https://localhost:3653', 'https://localhost:3653'],
    ['https://[::1]:8443', 'https://[::1]:8443'],
    ['https://app.example.com:1', 'https://app.example.com:1'],
    ['https://app.example.com:65535', 'https://app.example.com:65535'],
    ['https://app.example.com:0443', 'https://app.example.com'],
    ['https://app.example.com:08443', 'https://app.example.com:8443'],
  ])('accepts %s as %s', (value, origin) => expect(parsePortalOrigin(value)).toBe(origin));

  it.each([
    'http://app.example.com',
    'app.example.com',
    'https://app.example.com/',
    'https://app.example.com/path',
    'https://app.example.com?x=1',
    'https://app.example.com#x',
    'https://user:pw@app.example.com',
    'https://*.example.com',
    'https://*',
    'https://a;b.example.com',
    "https://a'b.example.com",
    'https://a,b.example.com',
    'https://app.example.com:99999',
    'https://app.example.com:65536',
    'https://app.example.com:0',
    'https://app.example.com:00',
    'https://[::1]:0',
    'https://app.example.com:-1',
    ' https://app.example.com',
    '',
    42,
  ])('refuses %p', (value) => expect(parsePortalOrigin(value)).toBeNull());
});
