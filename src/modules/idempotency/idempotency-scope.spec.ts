import { checkedKey, isKeyedRoute, keyScope, requestFingerprint } from './idempotency-scope';
import { refusalOf } from '../../../test/utils/unit';

/** docs/idempotency.md#the-rules, the pure part: which routes take a key, its format, its scope, a request's fingerprint. */
describe('Idempotency-Key rules', () => {
  describe('which routes take the header', () => {
    it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('%s on an /api/ route', (method) => {
      expect(isKeyedRoute(method, '/api/sdk/tweets')).toBe(true);
    });

    it('not reads, routes outside /api/, or a request that matched no route', () => {
      expect(isKeyedRoute('GET', '/api/sdk/tweets')).toBe(false);
      expect(isKeyedRoute('HEAD', '/api/sdk/tweets')).toBe(false);
      expect(isKeyedRoute('POST', '/health')).toBe(false);
      expect(isKeyedRoute('POST', undefined)).toBe(false);
    });

    it('not the anonymous routes, which have no identity to scope a key to', () => {
      expect(isKeyedRoute('POST', '/api/auth/login')).toBe(false);
      expect(isKeyedRoute('POST', '/api/auth/refresh')).toBe(false);
      expect(isKeyedRoute('POST', '/api/webhooks/portal-sessions')).toBe(false);
      // the anchored pattern: a route that merely starts alike is keyed
      expect(isKeyedRoute('POST', '/api/webhooks/portal-sessions/extra')).toBe(true);
    });
  });

  describe('the key format', () => {
    it('takes 1 to 255 printable ASCII characters', () => {
      expect(checkedKey('a')).toBe('a');
      expect(checkedKey('!~'.repeat(127) + '!')).toHaveLength(255);
      expect(checkedKey('0b6f9c1e-5d1a-4a53-9d1e-3e0f2a8c7b21')).toBe('0b6f9c1e-5d1a-4a53-9d1e-3e0f2a8c7b21');
    });

    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['a space', 'two words'],
      ['a control character', 'tab\there'],
      ['non-ASCII', 'clé'],
    ])('refuses %s with 400 naming the header', async (_what, key) => {
      expect(await refusalOf(() => checkedKey(key))).toMatchObject({
        status: 400,
        code: 'VALIDATION_ERROR',
        extra: { details: [{ field: 'Idempotency-Key' }] },
      });
    });

    it('refuses a header sent twice (an array)', () => {
      expect(() => checkedKey(['a', 'a'])).toThrow(/sent once/);
    });
  });

  describe('whose key it is', () => {
    const alice = { userId: 'user-a' };
    const bob = { userId: 'user-b' };
    const aliceKey = { userId: 'user-a', apiKey: { id: 'key-1', communityId: 'c1', scopes: [] } };

    it('is the same key for the same identity, community and value', () => {
      expect(keyScope(alice, 'c1', 'k')).toEqual(keyScope(alice, 'c1', 'k'));
    });

    it('is another key for another user, another community, or another value', () => {
      const ids = new Set([
        keyScope(alice, 'c1', 'k').id,
        keyScope(bob, 'c1', 'k').id,
        keyScope(alice, 'c2', 'k').id,
        keyScope(alice, 'c1', 'k2').id,
        keyScope(alice, undefined, 'k').id,
      ]);
      expect(ids.size).toBe(5);
    });

    it("scopes an API key's request to the key, not to the user who created it", () => {
      expect(keyScope(aliceKey, 'c1', 'k').id).not.toBe(keyScope(alice, 'c1', 'k').id);
      expect(keyScope(aliceKey, 'c1', 'k').caller).toBe('api-key:key-1@c1');
      expect(keyScope(alice, 'c1', 'k').caller).toBe('user:user-a@c1');
      expect(keyScope(alice, undefined, 'k').caller).toBe('user:user-a@');
    });

    it("locks on the id's first 64 bits, as a signed bigint", () => {
      const { id, lockKey } = keyScope(alice, 'c1', 'k');
      expect(id).toMatch(/^[0-9a-f]{64}$/);
      const lock = BigInt(lockKey);
      expect(lock).toBeGreaterThanOrEqual(-(2n ** 63n));
      expect(lock).toBeLessThan(2n ** 63n);
      expect(BigInt.asUintN(64, lock).toString(16).padStart(16, '0')).toBe(id.slice(0, 16));
    });
  });

  describe("a request's fingerprint", () => {
    const base = requestFingerprint('POST', '/api/sdk/tweets', '{"content":"a"}');

    it('is the same for the same method, URL and body bytes', () => {
      expect(requestFingerprint('POST', '/api/sdk/tweets', '{"content":"a"}')).toBe(base);
    });

    it('changes with the method, the path, the query string or the body', () => {
      const others = [
        requestFingerprint('PUT', '/api/sdk/tweets', '{"content":"a"}'),
        requestFingerprint('POST', '/api/sdk/tasks', '{"content":"a"}'),
        requestFingerprint('POST', '/api/sdk/tweets?x=1', '{"content":"a"}'),
        requestFingerprint('POST', '/api/sdk/tweets', '{"content":"b"}'),
        // the bytes, not the meaning: the same JSON spaced otherwise is another request
        requestFingerprint('POST', '/api/sdk/tweets', '{ "content": "a" }'),
      ];
      expect(new Set([base, ...others]).size).toBe(6);
    });

    it('treats a request without a body as an empty one', () => {
      expect(requestFingerprint('DELETE', '/api/sdk/tweets/1', undefined)).toBe(
        requestFingerprint('DELETE', '/api/sdk/tweets/1', ''),
      );
    });
  });
});
