import { generateApiKey, parseApiKey, secretMatches } from './api-key-format';

describe('API key format', () => {
  it('makes cpk_<12>_<32> base62 keys whose secret matches its stored hash', () => {
    const { key, keyId, secretHash } = generateApiKey();
    expect(key).toMatch(/^cpk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    const parsed = parseApiKey(key);
    expect(parsed?.keyId).toBe(keyId);
    expect(secretMatches(parsed!.secret, secretHash)).toBe(true);
    expect(secretMatches('x'.repeat(32), secretHash)).toBe(false);
    expect(secretHash).not.toContain(parsed!.secret);
  });
  it('refuses malformed keys', () => {
    expect(parseApiKey('cpk_short_x')).toBeNull();
    expect(parseApiKey('sk_' + 'a'.repeat(46))).toBeNull();
  });
});
