import { REDACTED_PATHS } from './app-logger';
import { redactUrl } from './request-log';

describe('redactUrl (no credential reaches a log line through the URL)', () => {
  it('leaves URLs without a query string alone', () => {
    expect(redactUrl('/api/sdk/tweets')).toBe('/api/sdk/tweets');
    expect(redactUrl(undefined)).toBeUndefined();
    expect(redactUrl('')).toBe('');
  });

  it('masks parameters named like credentials, whatever their value', () => {
    const out = redactUrl('/api/x?apiKey=abc&token=t0k&client_secret=s&password=p&page=2')!;
    expect(out).not.toMatch(/abc|t0k|=s&|=p&/);
    const params = new URLSearchParams(out.split('?')[1]);
    for (const name of ['apiKey', 'token', 'client_secret', 'password'])
      expect(params.get(name)).toBe('[REDACTED]');
    expect(params.get('page')).toBe('2');
  });

  it('masks a value that looks like an API key under any name', () => {
    const key = `cpk_${'a'.repeat(12)}_${'b'.repeat(32)}`;
    const out = redactUrl(`/api/sdk/tweets?q=${key}&limit=5`)!;
    expect(out).not.toContain(key);
    expect(out).toContain('limit=5');
  });

  it('redacts credential headers and secret fields in structured logs', () => {
    expect(REDACTED_PATHS).toEqual(
      expect.arrayContaining([
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        '*.password',
        '*.secret',
      ]),
    );
  });
});

describe('redactUrl masks API keys in the path too (docs/security.md#security-model)', () => {
  const key = `cpk_${'A1b2C3d4E5f6'}_${'x'.repeat(32)}`;

  it('masks a key sent as a path segment, keeping the rest of the path', () => {
    const out = redactUrl(`/api/sdk/${key}/tweets`)!;
    expect(out).toBe('/api/sdk/[REDACTED]/tweets');
  });

  it('masks a key at the end of the path, before a query string, and several keys at once', () => {
    const out = redactUrl(`/api/x/${key}?page=2&q=${key}`)!;
    expect(out).not.toContain(key);
    expect(out.startsWith('/api/x/[REDACTED]?')).toBe(true);
    expect(new URLSearchParams(out.split('?')[1]).get('page')).toBe('2');
  });

  it('masks a percent-encoded key, a key in a parameter name and one inside a longer value', () => {
    const encoded = key.replace('_', '%5F');
    for (const url of [`/api/${encoded}`, `/api/x?${key}=1`, `/api/x?q=see%20${key}`, `/api/x#${key}`]) {
      const out = redactUrl(url)!;
      expect(out).not.toContain(key.slice(4));
    }
  });

  it('leaves paths that merely contain "cpk" alone', () => {
    expect(redactUrl('/api/sdk/tweets/cpkx')).toBe('/api/sdk/tweets/cpkx');
  });
});
