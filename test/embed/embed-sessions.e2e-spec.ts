import { JwtService } from '@nestjs/jwt';
import { useTestApp } from '../utils/app';
import { CREDENTIAL_KINDS, credentialsOf, memberWithCredentials, memberWithToken } from '../utils/factories';
import { call } from '../utils/http';

describe('POST /api/embed/sessions (docs/product-decisions.md#7-resources)', () => {
  const t = useTestApp({ PUBLIC_BASE_URL: 'https://community.example.com' });

  const URL = '/api/embed/sessions';
  const events = (communityId: string) =>
    t.prisma.outboxEvent.findMany({ where: { communityId, eventType: 'embed.session.created' } });

  describe.each(CREDENTIAL_KINDS)('with %s', (kind) => {
    it('creates a session with a scoped, short-lived embed token and records the event without it', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'PRO' });
      const before = Math.floor(Date.now() / 1000);
      const res = await call(t.app, 'POST', URL, {
        ...credentialsOf(owner, kind),
        body: { allowedOrigin: 'https://App.Example.com:443', ttlSeconds: 600, userRef: 'viewer-42' },
      });
      expect(res.status).toBe(201);
      const session = res.body.data;
      expect(session).toMatchObject({ allowedOrigin: 'https://app.example.com', userRef: 'viewer-42' });
      expect(session.embedUrl).toBe(
        `https://community.example.com/embed/${owner.community.id}?session=${session.id}`,
      );
      expect(session.embedUrl).not.toContain(session.token);

      const claims = t.app.get(JwtService).verify(session.token);
      expect(claims).toMatchObject({
        typ: 'embed',
        sessionId: session.id,
        communityId: owner.community.id,
        allowedOrigin: 'https://app.example.com',
      });
      expect(claims.exp - claims.iat).toBe(600);
      expect(claims.iat).toBeGreaterThanOrEqual(before);
      expect(Date.parse(session.expiresAt)).toBe(claims.exp * 1000);

      const row = await t.prisma.embedSession.findUniqueOrThrow({ where: { id: session.id } });
      expect(row).toMatchObject({
        communityId: owner.community.id,
        createdById: owner.user.id,
        userRef: 'viewer-42',
      });

      const [event] = await events(owner.community.id);
      expect(event.payload).toMatchObject({
        data: { session: { id: session.id, embedUrl: session.embedUrl } },
      });
      expect(JSON.stringify(event.payload)).not.toContain(session.token);
    });

    it('defaults to one hour and no origin restriction', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'ENTERPRISE' });
      const res = await call(t.app, 'POST', URL, { ...credentialsOf(owner, kind), body: {} });
      expect(res.status).toBe(201);
      const claims = t.app.get(JwtService).verify(res.body.data.token);
      expect(claims.exp - claims.iat).toBe(3600);
      expect(claims.allowedOrigin).toBeNull();
      expect(res.body.data.allowedOrigin).toBeNull();
    });

    it.each([
      ['ttlSeconds', { ttlSeconds: 59 }],
      ['ttlSeconds', { ttlSeconds: 86_401 }],
      ['ttlSeconds', { ttlSeconds: 90.5 }],
      ['ttlSeconds', { ttlSeconds: '600' }],
      ['allowedOrigin', { allowedOrigin: 'https://example.com/path' }],
      ['allowedOrigin', { allowedOrigin: 'example.com' }],
      ['allowedOrigin', { allowedOrigin: 'ftp://example.com' }],
      ['allowedOrigin', { allowedOrigin: 42 }],
      ['userRef', { userRef: 'u'.repeat(201) }],
      ['theme', { theme: 'dark' }],
    ])('refuses a bad %s with 400 naming it, and records nothing', async (field, body) => {
      const owner = await memberWithCredentials(t.app, { plan: 'PRO' });
      const res = await call(t.app, 'POST', URL, { ...credentialsOf(owner, kind), body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await events(owner.community.id)).toHaveLength(0);
    });

    it('is refused on FREE with FEATURE_NOT_AVAILABLE embed', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'FREE' });
      const res = await call(t.app, 'POST', URL, { ...credentialsOf(owner, kind), body: {} });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FEATURE_NOT_AVAILABLE', featureKey: 'embed' });
    });
  });

  it('needs EMBED_CREATE: a MODERATOR may, a MEMBER may not', async () => {
    const owner = await memberWithToken(t.app, { plan: 'PRO' });
    const mod = await memberWithToken(t.app, { communityId: owner.community.id, role: 'MODERATOR' });
    const member = await memberWithToken(t.app, { communityId: owner.community.id, role: 'MEMBER' });
    expect((await call(t.app, 'POST', URL, { token: mod.token, body: {} })).status).toBe(201);
    const refused = await call(t.app, 'POST', URL, { token: member.token, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
  });

  it('the embed token is refused by every other route (401)', async () => {
    const owner = await memberWithToken(t.app, { plan: 'ENTERPRISE' });
    const { token } = (await call(t.app, 'POST', URL, { token: owner.token, body: {} })).body.data;
    const headers = { 'x-tenant-id': owner.community.id };
    const attempts = [
      call(t.app, 'GET', '/api/sdk/members', { token, headers }),
      call(t.app, 'PUT', '/api/sdk/customization/sidebar', { token, headers, body: { items: [] } }),
      call(t.app, 'POST', URL, { token, headers, body: {} }),
      call(t.app, 'GET', '/api/admin/sdk/me', { token }),
      call(t.app, 'POST', '/api/auth/refresh', { token }),
      call(t.app, 'GET', '/api/sdk/no-such-route', { token }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
    }
  });

  it("isolates communities: a key of B cannot open a session in A's community", async () => {
    const a = await memberWithCredentials(t.app, { plan: 'PRO' });
    const b = await memberWithCredentials(t.app, { plan: 'PRO' });
    const res = await call(t.app, 'POST', URL, { apiKey: b.apiKey, body: { communityId: a.community.id } });
    expect(res.status).toBe(403);
    expect(await events(a.community.id)).toHaveLength(0);
  });
});
