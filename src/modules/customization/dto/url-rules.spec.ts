import { isHttpUrl, isRelativePath } from './url-rules';

describe('url rules', () => {
  it.each(['https://example.com/x?y=1', 'http://localhost:8080'])('accepts %s as http(s)', (u) =>
    expect(isHttpUrl(u)).toBe(true),
  );
  it.each(['javascript:alert(1)', 'ftp://example.com', 'example.com', '/path', 'https://', 5])(
    'refuses %s as http(s)',
    (u) => expect(isHttpUrl(u)).toBe(false),
  );
  it.each(['/', '/about', '/a/b?c=d#e'])('accepts %s as a relative path', (u) =>
    expect(isRelativePath(u)).toBe(true),
  );
  it.each(['//evil.example', '/\\evil.example', 'about', '/with space', ''])(
    'refuses %s as a relative path',
    (u) => expect(isRelativePath(u)).toBe(false),
  );
});
