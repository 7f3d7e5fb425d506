import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PORTAL_DIR } from '../../src/bootstrap/portal-static';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithCredentials, memberWithToken, outboxOf } from '../utils/factories';
import { call } from '../utils/http';

/**
 * Embedding the webhook portal (docs/api.md#embedding-the-portal): the origins a community allows to frame
 * it, and the page's frame-ancestors for the community its URL names. Needs `npm run build` (dist/portal).
 */
describe('embedding the webhook portal', () => {
  let t: TestApp;
  beforeAll(async () => {
    if (!existsSync(join(PORTAL_DIR, 'index.html'))) throw new Error('run `npm run build` first');
    t = await createTestApp({ PUBLIC_BASE_URL: 'https://hooks.example.com' });
  });
  afterAll(() => t.close());

  const settings = (token: string, body: object) =>
    call(t.app, 'PATCH', '/api/sdk/community/settings', { token, body });
  const page = (search: string) => t.app.inject({ method: 'GET', url: `/portal/${search}` });
  const frameAncestors = (csp: unknown) => /frame-ancestors ([^;]+)/.exec(String(csp))?.[1];

  describe('portalAllowedOrigins', () => {
    it('stores the origins normalised, reads them with the settings and announces the change once', async () => {
      const owner = await memberWithToken(t.app, { plan: 'PRO' });
      const origins = ['https://App.Example.com', 'https://admin.example.com:8443', 'https://x.example:443'];
      const res = await settings(owner.token, { portalAllowedOrigins: origins });
      expect(res.status).toBe(200);
      const stored = ['https://app.example.com', 'https://admin.example.com:8443', 'https://x.example'];
      expect(res.body.data.portalAllowedOrigins).toEqual(stored);
      const read = await call(t.app, 'GET', '/api/sdk/community/settings', { token: owner.token });
      expect(read.body.data.portalAllowedOrigins).toEqual(stored);
      const community = await call(t.app, 'GET', '/api/sdk/community', { token: owner.token });
      expect(community.body.data.portalAllowedOrigins).toEqual(stored);
      // the same list again changes nothing: no second event
      expect((await settings(owner.token, { portalAllowedOrigins: stored })).status).toBe(200);
      const events = await outboxOf(t.app, owner.community.id, 'community.updated');
      expect(events.map((e) => (e.payload as { data: { changed: string[] } }).data.changed)).toEqual([
        ['portalAllowedOrigins'],
      ]);
      // [] allows none again
      const cleared = await settings(owner.token, { portalAllowedOrigins: [] });
      expect(cleared.body.data.portalAllowedOrigins).toEqual([]);
    });

    it.each([
      ['another scheme', ['http://app.example.com']],
      ['no scheme', ['app.example.com']],
      ['a path', ['https://app.example.com/portal']],
      ['a trailing slash', ['https://app.example.com/']],
      ['a query', ['https://app.example.com?x=1']],
      ['a fragment', ['https://app.example.com#top']],
      ['credentials', ['https://user:pw@app.example.com']],
      ['a wildcard', ['https://*.example.com']],
      ['a CSP separator', ['https://app.example.com;script-src']],
      ['port 0', ['https://app.example.com:0']],
      ['port 00', ['https://app.example.com:00']],
      ['a port past 65535', ['https://app.example.com:65536']],
      ['a duplicate', ['https://app.example.com', 'https://app.example.com']],
      ['a duplicate once lower-cased', ['https://app.example.com', 'https://APP.example.com']],
      ['too many', Array.from({ length: 11 }, (_, i) => `https://a${i}.example.com`)],
      ['not a list', 'https://app.example.com'],
      ['not strings', [42]],
      ['null', null],
    ])('refuses %s with 400 VALIDATION_ERROR naming the field', async (_what, value) => {
      const owner = await memberWithToken(t.app, { plan: 'PRO' });
      const res = await settings(owner.token, { portalAllowedOrigins: value });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain('portalAllowedOrigins');
      const row = await t.prisma.community.findUniqueOrThrow({ where: { id: owner.community.id } });
      expect(row.portalAllowedOrigins).toEqual([]);
    });

    it('takes ten origins', async () => {
      const owner = await memberWithToken(t.app, { plan: 'PRO' });
      const ten = Array.from({ length: 10 }, (_, i) => `https://a${i}.example.com`);
      const res = await settings(owner.token, { portalAllowedOrigins: ten });
      expect(res.status).toBe(200);
      expect(res.body.data.portalAllowedOrigins).toEqual(ten);
    });

    it("lets neither another community's admin nor a MEMBER change a community's origins", async () => {
      const a = await memberWithToken(t.app, { plan: 'PRO' });
      const b = await memberWithCredentials(t.app, { plan: 'PRO' });
      const member = await memberWithToken(t.app, { role: 'MEMBER', communityId: a.community.id });
      const body = { communityId: a.community.id, portalAllowedOrigins: ['https://evil.example.com'] };
      const byToken = await call(t.app, 'PATCH', '/api/sdk/community/settings', { token: b.token, body });
      const byKey = await call(t.app, 'PATCH', '/api/sdk/community/settings', { apiKey: b.apiKey, body });
      const byMember = await settings(member.token, { portalAllowedOrigins: ['https://evil.example.com'] });
      expect([byToken.status, byKey.status, byMember.status]).toEqual([403, 403, 403]);
      const row = await t.prisma.community.findUniqueOrThrow({ where: { id: a.community.id } });
      expect(row.portalAllowedOrigins).toEqual([]);
      // B's own PATCH changes only B
      expect((await settings(b.token, { portalAllowedOrigins: ['https://b.example.com'] })).status).toBe(200);
      const after = await t.prisma.community.findUniqueOrThrow({ where: { id: a.community.id } });
      expect(after.portalAllowedOrigins).toEqual([]);
    });
  });

  describe("the page's frame-ancestors", () => {
    it("lets exactly the community's origins frame the page its link opens, with no X-Frame-Options", async () => {
      const owner = await memberWithToken(t.app, { plan: 'PRO' });
      const origins = ['https://app.example.com', 'https://admin.example.com:8443'];
      expect((await settings(owner.token, { portalAllowedOrigins: origins })).status).toBe(200);
      const link = await call(t.app, 'POST', `/api/communities/${owner.community.id}/webhooks/portal-links`, {
        token: owner.token,
      });
      const url = new URL(link.body.data.url);
      expect(url.searchParams.get('community')).toBe(owner.community.id);
      const res = await page(url.search);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache, no-store, must-revalidate');
      expect(frameAncestors(res.headers['content-security-policy'])).toBe(origins.join(' '));
      expect(res.headers['x-frame-options']).toBeUndefined();
      // the rest of the policy is unchanged
      expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
      expect(String(res.headers['content-security-policy'])).toContain("default-src 'none'");
      // the slug names the community too, and index.html is the same page
      expect(
        frameAncestors((await page(`?community=${owner.community.slug}`)).headers['content-security-policy']),
      ).toBe(origins.join(' '));
      const index = await page(`index.html?community=${owner.community.id}`);
      expect(frameAncestors(index.headers['content-security-policy'])).toBe(origins.join(' '));
    });

    it("answers 'none' and X-Frame-Options DENY without an allowed origin, or without a known community", async () => {
      const owner = await memberWithToken(t.app, { plan: 'PRO' });
      const other = await memberWithToken(t.app, { plan: 'PRO' });
      await settings(other.token, { portalAllowedOrigins: ['https://other.example.com'] });
      for (const search of [
        `?community=${owner.community.id}`,
        '?community=6f1c1f7e-0000-4000-8000-000000000000',
        '?community=not%20a%20community!',
        `?community=${other.community.id}&community=${other.community.id}`,
        '?community=',
        '',
      ]) {
        const res = await page(search);
        expect(res.statusCode).toBe(200);
        expect(frameAncestors(res.headers['content-security-policy'])).toBe("'none'");
        expect(res.headers['x-frame-options']).toBe('DENY');
        expect(res.body).toContain('<div id="app">');
      }
    });

    it("leaves out a stored origin that today's rules refuse (port 0, from before they did)", async () => {
      const owner = await memberWithToken(t.app, { plan: 'PRO' });
      await t.prisma.community.update({
        where: { id: owner.community.id },
        data: { portalAllowedOrigins: ['https://app.example.com', 'https://app.example.com:0'] },
      });
      const res = await page(`?community=${owner.community.id}`);
      expect(frameAncestors(res.headers['content-security-policy'])).toBe('https://app.example.com');
    });

    it("adds an https logo's origin to img-src, never an http one", async () => {
      const owner = await memberWithToken(t.app, { plan: 'PRO' });
      const brand = (logoUrl: string) =>
        call(t.app, 'PATCH', '/api/sdk/community/branding', { token: owner.token, body: { logoUrl } });
      const imgSrc = async () =>
        /img-src ([^;]+)/.exec(
          String((await page(`?community=${owner.community.id}`)).headers['content-security-policy']),
        )?.[1];
      expect(await imgSrc()).toBe("'self' data:");
      expect((await brand('https://cdn.example.com/brand/logo.svg')).status).toBe(200);
      expect(await imgSrc()).toBe("'self' data: https://cdn.example.com");
      expect((await brand('http://cdn.example.com/logo.png')).status).toBe(200);
      expect(await imgSrc()).toBe("'self' data:");
    });

    it('keeps the fixed policy on the hashed files', async () => {
      const res = await page('');
      const [asset] = [...res.body.matchAll(/src="(\/portal\/assets\/[^"]+)"/g)].map((m) => m[1]);
      const file = await t.app.inject({ method: 'GET', url: asset });
      expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(frameAncestors(file.headers['content-security-policy'])).toBe("'none'");
    });
  });
});
