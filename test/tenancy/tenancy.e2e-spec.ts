import { AppModule } from '../../src/app.module';
import type { Role } from '../../src/generated/prisma/enums';
import { useTestApp } from '../utils/app';
import {
  addMember,
  createApiKey,
  createCommunity,
  createUser,
  login,
  unique,
  announceCommunityChange,
} from '../utils/factories';
import { call } from '../utils/http';
import { ProbeModule } from './probe.module';

// argon2id logins are CPU-bound by design: on a busy 2-core machine a test can take seconds.

describe('tenant resolution and access guards (docs/product-decisions.md#3-tenancy-roles-permissions-plans)', () => {
  const t = useTestApp({}, [AppModule, ProbeModule]);

  /** A user who belongs to every given community with `role`, logged in to the first. */
  async function memberOf(communities: { id: string }[], role: Role = 'OWNER') {
    const user = await createUser(t.app);
    for (const c of communities) await addMember(t.app, c.id, user.id, role);
    const tokens = await login(t.app, user.email, communities[0]?.id);
    return { user, token: tokens.accessToken };
  }

  describe('sources and their priority', () => {
    it('falls back to the token claim when the request names no community', async () => {
      const home = await createCommunity(t.app);
      const { token } = await memberOf([home]);
      const res = await call(t.app, 'GET', '/api/probe/tenant', { token });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ communityId: home.id, source: 'credential', role: 'OWNER' });
    });

    it('prefers X-Tenant-Id over the token claim, by id or by slug', async () => {
      const [home, other] = [await createCommunity(t.app), await createCommunity(t.app)];
      const { token } = await memberOf([home, other]);
      for (const ref of [other.id, other.slug, other.slug.toUpperCase()]) {
        const res = await call(t.app, 'GET', '/api/probe/tenant', { token, headers: { 'x-tenant-id': ref } });
        expect(res.body.data).toMatchObject({ communityId: other.id, source: 'x-tenant-id' });
      }
    });

    it('prefers X-Community-Id over X-Tenant-Id', async () => {
      const [a, b, c] = [
        await createCommunity(t.app),
        await createCommunity(t.app),
        await createCommunity(t.app),
      ];
      const { token } = await memberOf([a, b, c]);
      const res = await call(t.app, 'GET', '/api/probe/tenant', {
        token,
        headers: { 'x-community-id': b.slug, 'x-tenant-id': c.id },
      });
      expect(res.body.data).toMatchObject({ communityId: b.id, source: 'x-community-id' });
    });

    it('prefers communityId in the query, the body or the path over both headers', async () => {
      const [a, b, c, d] = await Promise.all([1, 2, 3, 4].map(() => createCommunity(t.app)));
      const { token } = await memberOf([a, b, c, d]);
      const headers = { 'x-community-id': c.id, 'x-tenant-id': d.id };

      const query = await call(t.app, 'GET', '/api/probe/tenant', {
        token,
        headers,
        query: { communityId: b.slug },
      });
      expect(query.body.data).toMatchObject({ communityId: b.id, source: 'query' });

      const body = await call(t.app, 'POST', '/api/probe/tenant', {
        token,
        headers,
        body: { communityId: b.id },
      });
      expect(body.body.data).toMatchObject({ communityId: b.id, source: 'body' });

      const path = await call(t.app, 'GET', `/api/probe/communities/${b.slug}/tenant`, {
        token,
        headers,
        query: { communityId: c.id },
      });
      expect(path.body.data).toMatchObject({ communityId: b.id, source: 'path' });
    });

    it('prefers a custom domain on Host over everything else', async () => {
      const domain = `${unique('forum')}.example.test`;
      const [branded, other] = [
        await createCommunity(t.app, { customDomain: domain }),
        await createCommunity(t.app),
      ];
      const { token } = await memberOf([other, branded]);
      const res = await call(t.app, 'GET', `/api/probe/communities/${other.id}/tenant`, {
        token,
        headers: {
          host: `${domain.toUpperCase()}:8443`,
          'x-community-id': other.id,
          'x-tenant-id': other.id,
        },
        query: { communityId: other.id },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ communityId: branded.id, source: 'host' });
    });

    it("ignores a Host that is not a community's custom domain", async () => {
      const home = await createCommunity(t.app);
      const { token } = await memberOf([home]);
      const res = await call(t.app, 'GET', '/api/probe/tenant', {
        token,
        headers: { host: 'unknown.example.test' },
      });
      expect(res.body.data).toMatchObject({ communityId: home.id, source: 'credential' });
    });

    it('resolves the API key’s own community when the request names none', async () => {
      const home = await createCommunity(t.app);
      const { user } = await memberOf([home]);
      const { key } = await createApiKey(t.app, home.id, user.id);
      const res = await call(t.app, 'GET', '/api/probe/tenant', { apiKey: key });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        communityId: home.id,
        source: 'credential',
        actor: { kind: 'apiKey', userId: user.id },
      });
    });
  });

  describe('refusals', () => {
    it('answers 400 TENANT_CONTEXT_REQUIRED when nothing names a community', async () => {
      const user = await createUser(t.app);
      const { accessToken } = await login(t.app, user.email);
      const res = await call(t.app, 'GET', '/api/probe/tenant', { token: accessToken });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'TENANT_CONTEXT_REQUIRED' });
      expect(res.body.error).toMatch(/X-Tenant-Id/);
    });

    it('answers 400 TENANT_CONTEXT_REQUIRED for a community that does not exist', async () => {
      const home = await createCommunity(t.app);
      const { token } = await memberOf([home]);
      const res = await call(t.app, 'GET', '/api/probe/tenant', {
        token,
        headers: { 'x-tenant-id': unique('nope') },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('TENANT_CONTEXT_REQUIRED');
    });

    it('answers 403 to a user who is not a member of the resolved community', async () => {
      const [home, foreign] = [await createCommunity(t.app), await createCommunity(t.app)];
      const { token } = await memberOf([home]);
      const res = await call(t.app, 'GET', '/api/probe/tenant', {
        token,
        headers: { 'x-tenant-id': foreign.id },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        success: false,
        error: 'You are not a member of this community',
        code: 'FORBIDDEN',
      });
    });

    it('answers 403 to a token whose user has since left its tenant', async () => {
      const home = await createCommunity(t.app);
      const { user, token } = await memberOf([home]);
      await t.prisma.membership.deleteMany({ where: { communityId: home.id, userId: user.id } });
      await announceCommunityChange(t.app, home.id);
      const res = await call(t.app, 'GET', '/api/probe/tenant', { token });
      expect(res.status).toBe(403);
    });

    it('answers 403 to an API key of community A used with X-Tenant-Id of B', async () => {
      const [a, b] = [await createCommunity(t.app), await createCommunity(t.app)];
      const { user } = await memberOf([a, b]);
      const { key } = await createApiKey(t.app, a.id, user.id);
      const res = await call(t.app, 'GET', '/api/probe/tenant', {
        apiKey: key,
        headers: { 'x-tenant-id': b.id },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: 'FORBIDDEN',
        error: 'This API key belongs to another community',
      });
    });

    it("answers 403 to an API key whose creator left the key's community", async () => {
      const home = await createCommunity(t.app);
      const { user } = await memberOf([home]);
      const { key } = await createApiKey(t.app, home.id, user.id);
      await t.prisma.membership.deleteMany({ where: { communityId: home.id, userId: user.id } });
      const res = await call(t.app, 'GET', '/api/probe/tenant', { apiKey: key });
      expect(res.status).toBe(403);
    });

    it('lets a platform admin act in a community they are not a member of, with every permission', async () => {
      const community = await createCommunity(t.app, { plan: 'PRO' });
      const admin = await createUser(t.app, { isPlatformAdmin: true });
      const { accessToken } = await login(t.app, admin.email);
      const res = await call(t.app, 'GET', '/api/probe/permission', {
        token: accessToken,
        headers: { 'x-tenant-id': community.slug },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ communityId: community.id, role: null });
      expect(res.body.data.permissions).toContain('API_KEYS_MANAGE');
    });

    it('refuses an API key on a route that takes only login tokens (401, says a login token is required)', async () => {
      const home = await createCommunity(t.app);
      const { user } = await memberOf([home]);
      const { key } = await createApiKey(t.app, home.id, user.id);
      const res = await call(t.app, 'GET', '/api/probe/jwt-only', { apiKey: key });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expect(res.body.error).toMatch(/login token/);
    });
  });

  describe('permissions', () => {
    it('grants WEBHOOKS_MANAGE to OWNER and ADMIN, and refuses MODERATOR and MEMBER with 403 FORBIDDEN', async () => {
      const community = await createCommunity(t.app, { plan: 'PRO' });
      for (const [role, status] of [
        ['OWNER', 200],
        ['ADMIN', 200],
        ['MODERATOR', 403],
        ['MEMBER', 403],
      ] as const) {
        const { token } = await memberOf([community], role);
        const res = await call(t.app, 'GET', '/api/probe/permission', { token });
        expect({ role, status: res.status }).toEqual({ role, status });
        if (status === 403) {
          expect(res.body).toEqual({
            success: false,
            error: 'This requires the WEBHOOKS_MANAGE permission',
            code: 'FORBIDDEN',
          });
        }
      }
    });

    it("limits an API key to its scopes within its creator's role", async () => {
      const community = await createCommunity(t.app);
      const owner = await memberOf([community], 'OWNER');
      const narrow = await createApiKey(t.app, community.id, owner.user.id, ['CONTENT_CREATE']);
      const refused = await call(t.app, 'GET', '/api/probe/permission', { apiKey: narrow.key });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('FORBIDDEN');

      const full = await createApiKey(t.app, community.id, owner.user.id);
      const allowed = await call(t.app, 'GET', '/api/probe/tenant', { apiKey: full.key });
      expect(allowed.body.data.permissions).toContain('WEBHOOKS_MANAGE');
      expect(allowed.body.data.permissions).not.toContain('API_KEYS_MANAGE');

      // A key made by a MEMBER never exceeds a MEMBER's rights, whatever its scopes say.
      const member = await memberOf([community], 'MEMBER');
      const memberKey = await createApiKey(t.app, community.id, member.user.id);
      const byMember = await call(t.app, 'GET', '/api/probe/tenant', { apiKey: memberKey.key });
      expect(byMember.body.data.permissions).toEqual(['CONTENT_CREATE']);
    });
  });

  describe('plan features', () => {
    it('answers 403 FEATURE_NOT_AVAILABLE with featureKey when the plan lacks the feature', async () => {
      const community = await createCommunity(t.app, { plan: 'FREE' });
      const { token } = await memberOf([community]);
      const res = await call(t.app, 'GET', '/api/probe/feature', { token });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        success: false,
        error: "The community's plan does not include the 'webhooks' feature",
        code: 'FEATURE_NOT_AVAILABLE',
        featureKey: 'webhooks',
      });
    });

    it('allows the feature on a plan that has it', async () => {
      const community = await createCommunity(t.app, { plan: 'PRO' });
      const { token } = await memberOf([community], 'MEMBER');
      const res = await call(t.app, 'GET', '/api/probe/feature', { token });
      expect(res.status).toBe(200);
    });

    it("lets a community's override win over its plan, both ways", async () => {
      const granted = await createCommunity(t.app, { plan: 'FREE', featureOverrides: { webhooks: true } });
      const withdrawn = await createCommunity(t.app, {
        plan: 'ENTERPRISE',
        featureOverrides: { webhooks: false },
      });
      const { token } = await memberOf([granted, withdrawn]);
      const yes = await call(t.app, 'GET', '/api/probe/feature', {
        token,
        headers: { 'x-tenant-id': granted.id },
      });
      const no = await call(t.app, 'GET', '/api/probe/feature', {
        token,
        headers: { 'x-tenant-id': withdrawn.id },
      });
      expect(yes.status).toBe(200);
      expect(no.status).toBe(403);
      expect(no.body.featureKey).toBe('webhooks');
    });
  });
});
