import { useTestApp } from '../utils/app';
import { addMember, createApiKey, createCommunity, createUser, login, unique } from '../utils/factories';
import { call } from '../utils/http';
import { API_KEY_REFUSED } from '../../src/modules/auth/auth.guard';

// argon2id logins are CPU-bound by design: on a busy 2-core machine a test can take seconds.

describe('service routes: API keys and communities (docs/product-decisions.md#6-bootstrapping)', () => {
  const t = useTestApp();

  async function ownerOfNewCommunity(role: 'OWNER' | 'ADMIN' | 'MODERATOR' | 'MEMBER' = 'OWNER') {
    const community = await createCommunity(t.app);
    const user = await createUser(t.app);
    await addMember(t.app, community.id, user.id, role);
    const { accessToken } = await login(t.app, user.email, community.id);
    return { community, user, token: accessToken };
  }

  describe('API keys', () => {
    it('creates a key shown once in cpk_ format, with the default scopes', async () => {
      const { community, user, token } = await ownerOfNewCommunity();
      const res = await call(t.app, 'POST', '/api/admin/sdk/api-keys', { token, body: { name: 'ci' } });
      expect(res.status).toBe(201);
      const key = res.body.data;
      expect(key.key).toMatch(/^cpk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
      expect(key).toMatchObject({ name: 'ci', communityId: community.id, revokedAt: null, lastUsedAt: null });
      expect(key.keyPrefix).toBe(key.key.slice(0, 16));
      expect(key.scopes).not.toContain('API_KEYS_MANAGE');
      expect(key.scopes).toEqual(
        expect.arrayContaining(['CONTENT_CREATE', 'WEBHOOKS_MANAGE', 'MEMBERS_MANAGE', 'EMBED_CREATE']),
      );
      expect(key).not.toHaveProperty('secretHash');

      // It works as X-Api-Key and acts as its creator.
      const me = await call(t.app, 'GET', '/api/admin/sdk/me', { apiKey: key.key });
      expect(me.status).toBe(200);
      expect(me.body.data).toMatchObject({
        type: 'apiKey',
        user: { id: user.id },
        communityId: community.id,
      });
      expect(me.body.data.apiKey).toMatchObject({ id: key.id });
      expect(JSON.stringify(me.body)).not.toContain(key.key);
    });

    it('accepts explicit scopes, and refuses API_KEYS_MANAGE and unknown scopes', async () => {
      const { token } = await ownerOfNewCommunity();
      const narrow = await call(t.app, 'POST', '/api/admin/sdk/api-keys', {
        token,
        body: { name: 'reader', scopes: ['CONTENT_CREATE'] },
      });
      expect(narrow.status).toBe(201);
      expect(narrow.body.data.scopes).toEqual(['CONTENT_CREATE']);
      for (const scopes of [['API_KEYS_MANAGE'], ['NOPE']]) {
        const res = await call(t.app, 'POST', '/api/admin/sdk/api-keys', {
          token,
          body: { name: 'x', scopes },
        });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
    });

    it('lists keys newest first without the key or its hash', async () => {
      const { token } = await ownerOfNewCommunity();
      const created = [];
      for (const name of ['first', 'second']) {
        created.push(
          (await call(t.app, 'POST', '/api/admin/sdk/api-keys', { token, body: { name } })).body.data,
        );
      }
      const res = await call(t.app, 'GET', '/api/admin/sdk/api-keys', { token });
      expect(res.status).toBe(200);
      expect(res.body.data.map((k: { name: string }) => k.name)).toEqual(['second', 'first']);
      const text = JSON.stringify(res.body);
      for (const k of created) expect(text).not.toContain(k.key.slice(16));
      for (const item of res.body.data) {
        expect(Object.keys(item).sort()).toEqual(
          ['communityId', 'createdAt', 'id', 'keyPrefix', 'lastUsedAt', 'name', 'revokedAt', 'scopes'].sort(),
        );
      }
    });

    it('lists only the keys of the resolved community', async () => {
      const a = await ownerOfNewCommunity();
      const b = await createCommunity(t.app);
      await addMember(t.app, b.id, a.user.id, 'OWNER');
      await createApiKey(t.app, b.id, a.user.id);
      const inA = await call(t.app, 'GET', '/api/admin/sdk/api-keys', { token: a.token });
      const inB = await call(t.app, 'GET', '/api/admin/sdk/api-keys', {
        token: a.token,
        query: { communityId: b.slug },
      });
      expect(inA.body.data).toEqual([]);
      expect(inB.body.data).toHaveLength(1);
      expect(inB.body.data[0].communityId).toBe(b.id);
    });

    it('revokes a key: it answers 401 afterwards, and another community cannot revoke it (404)', async () => {
      const { community, user, token } = await ownerOfNewCommunity();
      const key = await createApiKey(t.app, community.id, user.id);
      const stranger = await ownerOfNewCommunity();
      const foreign = await call(t.app, 'DELETE', `/api/admin/sdk/api-keys/${key.id}`, {
        token: stranger.token,
      });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('NOT_FOUND');

      const res = await call(t.app, 'DELETE', `/api/admin/sdk/api-keys/${key.id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.data.revokedAt).toEqual(expect.any(String));
      const after = await call(t.app, 'GET', '/api/admin/sdk/me', { apiKey: key.key });
      expect(after.status).toBe(401);
      expect(after.body).toEqual({
        success: false,
        error: 'Invalid or revoked API key',
        code: 'UNAUTHORIZED',
      });
    });

    it('refuses a malformed id on revoke with 400, not 500', async () => {
      const { token } = await ownerOfNewCommunity();
      const res = await call(t.app, 'DELETE', '/api/admin/sdk/api-keys/not-a-uuid', { token });
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
    });

    it('refuses a wrong secret of an existing key id, and a malformed key, with 401', async () => {
      const { community, user } = await ownerOfNewCommunity();
      const { key } = await createApiKey(t.app, community.id, user.id);
      const forged = key.slice(0, 17) + (key[17] === 'a' ? 'b' : 'a') + key.slice(18);
      for (const apiKey of [forged, 'cpk_short']) {
        const res = await call(t.app, 'GET', '/api/admin/sdk/me', { apiKey });
        expect(res.status).toBe(401);
      }
    });

    it('records lastUsedAt when a key is used', async () => {
      const { community, user } = await ownerOfNewCommunity();
      const created = await createApiKey(t.app, community.id, user.id);
      const before = Date.now();
      expect((await call(t.app, 'GET', '/api/admin/sdk/me', { apiKey: created.key })).status).toBe(200);
      // The write is fire-and-forget off the request path; wait for it by polling the row, not the clock.
      let lastUsedAt: Date | null = null;
      for (let i = 0; i < 100 && !lastUsedAt; i++) {
        lastUsedAt = (await t.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } })).lastUsedAt;
        if (!lastUsedAt) await new Promise((resolve) => setImmediate(resolve));
      }
      expect(lastUsedAt).not.toBeNull();
      expect(lastUsedAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    });

    it('refuses a key in the query string with 400 and never echoes it', async () => {
      const { community, user } = await ownerOfNewCommunity();
      const { key } = await createApiKey(t.app, community.id, user.id);
      const queries: Record<string, string>[] = [{ apiKey: key }, { api_key: 'anything' }, { token: key }];
      for (const query of queries) {
        const res = await call(t.app, 'GET', '/api/admin/sdk/me', { query });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
        expect(res.body.error).toMatch(/X-Api-Key header/);
        expect(JSON.stringify(res.body)).not.toContain(key);
      }
    });

    it('answers 401 "login token required" when an API key calls the API-key routes', async () => {
      const { community, user } = await ownerOfNewCommunity();
      const { key } = await createApiKey(t.app, community.id, user.id);
      for (const [method, url] of [
        ['GET', '/api/admin/sdk/api-keys'],
        ['POST', '/api/admin/sdk/api-keys'],
        ['POST', '/api/admin/sdk/communities'],
      ] as const) {
        const res = await call(t.app, method, url, {
          apiKey: key,
          body: method === 'POST' ? { name: 'x' } : undefined,
        });
        expect(res.status).toBe(401);
        expect(res.body.error).toBe(API_KEY_REFUSED);
      }
    });

    it('requires API_KEYS_MANAGE (403 for MODERATOR and MEMBER)', async () => {
      for (const role of ['MODERATOR', 'MEMBER'] as const) {
        const { token } = await ownerOfNewCommunity(role);
        const list = await call(t.app, 'GET', '/api/admin/sdk/api-keys', { token });
        const create = await call(t.app, 'POST', '/api/admin/sdk/api-keys', { token, body: { name: 'x' } });
        expect([list.status, create.status]).toEqual([403, 403]);
        expect(create.body.error).toMatch(/API_KEYS_MANAGE/);
      }
      const admin = await ownerOfNewCommunity('ADMIN');
      expect((await call(t.app, 'GET', '/api/admin/sdk/api-keys', { token: admin.token })).status).toBe(200);
    });

    it('answers 400 TENANT_CONTEXT_REQUIRED to a user of no community', async () => {
      const user = await createUser(t.app);
      const { accessToken } = await login(t.app, user.email);
      const res = await call(t.app, 'GET', '/api/admin/sdk/api-keys', { token: accessToken });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('TENANT_CONTEXT_REQUIRED');
    });
  });

  describe('communities', () => {
    it('creates a FREE community whose creator becomes OWNER', async () => {
      const user = await createUser(t.app);
      const { accessToken } = await login(t.app, user.email);
      const slug = unique('new');
      const res = await call(t.app, 'POST', '/api/admin/sdk/communities', {
        token: accessToken,
        body: { name: 'New place', slug },
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ slug, name: 'New place', plan: 'FREE', customDomain: null });
      expect(res.body.data.id).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
      const membership = await t.prisma.membership.findUniqueOrThrow({
        where: { communityId_userId: { communityId: res.body.data.id, userId: user.id } },
      });
      expect(membership.role).toBe('OWNER');
      // The new owner can manage keys there at once.
      const keys = await call(t.app, 'POST', '/api/admin/sdk/api-keys', {
        token: accessToken,
        body: { name: 'k', communityId: slug },
      });
      expect(keys.status).toBe(201);
    });

    it('answers 409 CONFLICT for a slug that is taken', async () => {
      const existing = await createCommunity(t.app);
      const user = await createUser(t.app);
      const { accessToken } = await login(t.app, user.email);
      const res = await call(t.app, 'POST', '/api/admin/sdk/communities', {
        token: accessToken,
        body: { name: 'Copy', slug: existing.slug },
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
    });

    it('lets only a platform admin pick a paid plan', async () => {
      const user = await createUser(t.app);
      const { accessToken } = await login(t.app, user.email);
      const refused = await call(t.app, 'POST', '/api/admin/sdk/communities', {
        token: accessToken,
        body: { name: 'Pro', slug: unique('pro'), plan: 'PRO' },
      });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('FORBIDDEN');

      const admin = await createUser(t.app, { isPlatformAdmin: true });
      const adminToken = (await login(t.app, admin.email)).accessToken;
      const allowed = await call(t.app, 'POST', '/api/admin/sdk/communities', {
        token: adminToken,
        body: { name: 'Ent', slug: unique('ent'), plan: 'ENTERPRISE' },
      });
      expect(allowed.status).toBe(201);
      expect(allowed.body.data.plan).toBe('ENTERPRISE');
    });

    it('refuses a bad slug, a bad plan and unknown fields with 400 naming the field', async () => {
      const user = await createUser(t.app);
      const { accessToken } = await login(t.app, user.email);
      for (const [body, field] of [
        [{ name: 'x', slug: 'A B' }, 'slug'],
        [{ name: 'x', slug: 'ab' }, 'slug'],
        [{ name: 'x', slug: '-abc' }, 'slug'],
        [{ name: 'x', slug: unique('ok'), plan: 'GOLD' }, 'plan'],
        [{ name: 'x', slug: unique('ok'), owner: 'me' }, 'owner'],
      ] as const) {
        const res = await call(t.app, 'POST', '/api/admin/sdk/communities', { token: accessToken, body });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
        expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      }
    });
  });
});
