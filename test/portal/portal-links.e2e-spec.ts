import { createTestApp, TestApp } from '../utils/app';
import { createApiKey, memberWithToken } from '../utils/factories';
import { call } from '../utils/http';

/**
 * Webhook portal links (docs/api.md#webhook-portal): a single-use, short-lived token in a URL fragment,
 * exchanged for a session that reaches its own community's webhook routes and nothing else.
 */
describe('webhook portal links', () => {
  let t: TestApp;
  let written: string[];
  let spy: jest.SpyInstance;

  beforeAll(async () => {
    written = [];
    spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    t = await createTestApp({
      PUBLIC_BASE_URL: 'https://hooks.example.com',
      PORTAL_LINK_TTL: '1s',
      LOG_LEVEL: 'debug',
    });
  });
  afterAll(async () => {
    await t.close();
    spy.mockRestore();
  });

  const linksUrl = (communityId: string) => `/api/communities/${communityId}/webhooks/portal-links`;
  const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, '');
  const exchange = (token: string) =>
    call(t.app, 'POST', '/api/webhooks/portal-sessions', { body: { token } });
  const issued: string[] = [];

  async function link(owner: { community: { id: string }; token: string }) {
    const res = await call(t.app, 'POST', linksUrl(owner.community.id), { token: owner.token });
    expect(res.status).toBe(201);
    const token = tokenOf(res.body.data.url);
    issued.push(token);
    return { ...res.body.data, token } as { url: string; expiresAt: string; token: string };
  }

  it('answers 201 {url, expiresAt} with the token in the fragment, stored only as a hash', async () => {
    const owner = await memberWithToken(t.app, { plan: 'PRO' });
    const before = Date.now();
    const created = await link(owner);
    const url = new URL(created.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://hooks.example.com/portal/');
    // the community rides in the query (the page's server decides who may frame it), never the token
    expect(url.search).toBe(`?community=${owner.community.id}`);
    expect(url.hash).toBe(`#token=${created.token}`);
    expect(created.token.length).toBeGreaterThanOrEqual(40);
    const expiresAt = Date.parse(created.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 1000);
    const rows = await t.prisma.webhookPortalLink.findMany({ where: { communityId: owner.community.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ createdById: owner.user.id, usedAt: null });
    expect(JSON.stringify(rows)).not.toContain(created.token);
  });

  it('is single use: the first exchange opens a session, the second is refused', async () => {
    const owner = await memberWithToken(t.app, { plan: 'PRO' });
    await t.prisma.community.update({
      where: { id: owner.community.id },
      data: { primaryColor: '#FFCC00', logoUrl: 'https://cdn.example.com/logo.png' },
    });
    const { token } = await link(owner);
    const [first, second] = await Promise.all([exchange(token), exchange(token)]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([201, 401]);
    const won = first.status === 201 ? first : second;
    const lost = first.status === 201 ? second : first;
    expect(won.body.data).toMatchObject({
      tokenType: 'Bearer',
      communityId: owner.community.id,
      communityName: owner.community.name,
      communitySlug: owner.community.slug,
      // the branding the portal takes on: a portal session cannot read the community's own routes
      branding: {
        logoUrl: 'https://cdn.example.com/logo.png',
        faviconUrl: null,
        primaryColor: '#FFCC00',
        accentColor: null,
      },
    });
    expect(lost.body.error).toMatch(/already used or has expired/);

    const list = await call(t.app, 'GET', `/api/communities/${owner.community.id}/webhooks`, {
      token: won.body.data.accessToken,
    });
    expect(list.status).toBe(200);
    const catalog = await call(t.app, 'GET', '/api/webhooks/event-types', {
      token: won.body.data.accessToken,
    });
    expect(catalog.status).toBe(200);
  });

  it('expires after PORTAL_LINK_TTL', async () => {
    const owner = await memberWithToken(t.app, { plan: 'PRO' });
    const { token, expiresAt } = await link(owner);
    // wait on the database's own clock until the link's expiry has passed
    await t.prisma
      .$executeRaw`SELECT pg_sleep(greatest(0, extract(epoch from (${new Date(expiresAt)}::timestamptz - now())) + 0.05))`;
    const res = await exchange(token);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it('refuses unknown and malformed tokens in words', async () => {
    expect((await exchange('x'.repeat(43))).status).toBe(401);
    const malformed = await call(t.app, 'POST', '/api/webhooks/portal-sessions', { body: { token: 42 } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.details[0].field).toBe('token');
  });

  it("confines the session to its own community's webhook routes", async () => {
    const a = await memberWithToken(t.app, { plan: 'PRO' });
    const b = await memberWithToken(t.app, { plan: 'PRO' });
    // the link's creator is a member of B too: only the session's scope keeps it out of B
    await t.prisma.membership.create({
      data: { communityId: b.community.id, userId: a.user.id, role: 'OWNER' },
    });
    const { token } = await link(a);
    const session = (await exchange(token)).body.data.accessToken as string;

    const tweets = await call(t.app, 'GET', '/api/sdk/tweets', {
      token: session,
      headers: { 'x-community-id': a.community.id },
    });
    expect(tweets.status).toBe(401);
    expect(tweets.body.error).toMatch(/portal session cannot call this route/);

    const other = await call(t.app, 'GET', `/api/communities/${b.community.id}/webhooks`, { token: session });
    expect(other.status).toBe(403);
    expect(other.body.error).toMatch(/another community/);
    // nor by its slug, while its own community answers by slug as by id
    const otherBySlug = await call(t.app, 'GET', `/api/communities/${b.community.slug}/webhooks`, {
      token: session,
    });
    expect(otherBySlug.status).toBe(403);
    expect(otherBySlug.body.error).toMatch(/another community/);
    const ownBySlug = await call(t.app, 'GET', `/api/communities/${a.community.slug}/webhooks`, {
      token: session,
    });
    expect(ownBySlug.status).toBe(200);

    // a session cannot mint further links (it would outlive its own), nor end its user's other sessions
    const relink = await call(t.app, 'POST', linksUrl(a.community.id), { token: session });
    expect(relink.status).toBe(401);
    const logoutAll = await call(t.app, 'POST', '/api/auth/logout-all', { token: session });
    expect(logoutAll.status).toBe(401);
    expect(logoutAll.body.error).toMatch(/portal session cannot call this route/);
    expect((await call(t.app, 'GET', '/api/admin/sdk/me', { token: a.token })).status).toBe(200);
    // ... but it can end itself (test/auth/sessions.e2e-spec.ts covers the other instances)
    const logout = await call(t.app, 'POST', '/api/auth/logout', { token: session });
    expect(logout.status).toBe(200);
    const after = await call(t.app, 'GET', `/api/communities/${a.community.id}/webhooks`, { token: session });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('This session has been revoked');
  });

  it('needs WEBHOOKS_MANAGE in that community, the webhooks feature and a login token', async () => {
    const a = await memberWithToken(t.app, { plan: 'PRO' });
    const b = await memberWithToken(t.app, { plan: 'PRO' });
    const crossed = await call(t.app, 'POST', linksUrl(b.community.id), { token: a.token });
    expect(crossed.status).toBe(403);
    const member = await memberWithToken(t.app, { communityId: a.community.id, role: 'MEMBER' });
    expect((await call(t.app, 'POST', linksUrl(a.community.id), { token: member.token })).status).toBe(403);
    const free = await memberWithToken(t.app, { plan: 'FREE' });
    const noFeature = await call(t.app, 'POST', linksUrl(free.community.id), { token: free.token });
    expect(noFeature.status).toBe(403);
    expect(noFeature.body.code).toBe('FEATURE_NOT_AVAILABLE');
    const { key } = await createApiKey(t.app, a.community.id, a.user.id);
    expect((await call(t.app, 'POST', linksUrl(a.community.id), { apiKey: key })).status).toBe(401);
    const missing = await call(t.app, 'POST', linksUrl('00000000-0000-4000-8000-000000000000'), {
      token: a.token,
    });
    // an unknown community is the platform's usual answer: it cannot be resolved
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('TENANT_CONTEXT_REQUIRED');
    expect(await t.prisma.webhookPortalLink.count({ where: { communityId: b.community.id } })).toBe(0);
  });

  it("lists the caller's communities where they may run webhooks, for the portal's picker", async () => {
    const owner = await memberWithToken(t.app, { plan: 'PRO' });
    const moderated = await memberWithToken(t.app, { plan: 'PRO' });
    const free = await memberWithToken(t.app, { plan: 'FREE' });
    await t.prisma.membership.createMany({
      data: [
        { communityId: moderated.community.id, userId: owner.user.id, role: 'MODERATOR' },
        { communityId: free.community.id, userId: owner.user.id, role: 'OWNER' },
      ],
    });
    const res = await call(t.app, 'GET', '/api/webhooks/manageable-communities', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual([
      { id: owner.community.id, name: owner.community.name, slug: owner.community.slug, role: 'OWNER' },
    ]);
    const { token } = await link(owner);
    const session = (await exchange(token)).body.data.accessToken as string;
    const bySession = await call(t.app, 'GET', '/api/webhooks/manageable-communities', { token: session });
    expect(bySession.status).toBe(401);
  });

  it('refuses a link on a page pinned to another community without spending it, and it still opens its own', async () => {
    const a = await memberWithToken(t.app, { plan: 'PRO' });
    const b = await memberWithToken(t.app, { plan: 'PRO' });
    const pinnedTo = (token: string, community: string) =>
      call(t.app, 'POST', '/api/webhooks/portal-sessions', { body: { token, community } });
    const { token } = await link(a);

    for (const other of [b.community.id, b.community.slug, '00000000-0000-4000-8000-000000000000']) {
      const refused = await pinnedTo(token, other);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'FORBIDDEN' });
      expect(refused.body.error).toMatch(/for another community than this page, so it was not used/);
    }
    const row = await t.prisma.webhookPortalLink.findFirstOrThrow({ where: { communityId: a.community.id } });
    expect(row.usedAt).toBeNull();

    // its own community, by slug in any case as the page's URL may name it
    const opened = await pinnedTo(token, a.community.slug.toUpperCase());
    expect(opened.status).toBe(201);
    expect(opened.body.data.communityId).toBe(a.community.id);
    // spent now: a used link is the 401 of any used link, whichever page asks
    expect((await pinnedTo(token, b.community.id)).status).toBe(401);
    expect((await pinnedTo(token, a.community.id)).status).toBe(401);

    const byId = await link(a);
    expect((await pinnedTo(byId.token, a.community.id)).status).toBe(201);
    const malformed = await pinnedTo((await link(a)).token, 'not a community!');
    expect(malformed.status).toBe(400);
    expect(malformed.body.details).toEqual([
      { field: 'community', message: "community must be the community's id (a uuid) or its slug" },
    ]);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await call(t.app, 'GET', '/api/docs-json');
    expect(doc.status).toBe(200);
    const path = doc.body.paths['/api/communities/{communityId}/webhooks/portal-links'];
    expect(path.post.responses['201']).toBeDefined();
    expect(doc.body.paths['/api/webhooks/portal-sessions'].post).toBeDefined();
  });

  it('never writes a link token to the logs', () => {
    const text = written.join('');
    expect(text).toContain('/api/webhooks/portal-sessions');
    for (const token of issued) expect(text).not.toContain(token);
  });
});
