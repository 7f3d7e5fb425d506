import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PORTAL_DIR } from '../../src/bootstrap/portal-static';
import { createTestApp, TestApp } from '../utils/app';

/** The webhook portal's files (docs/api.md#webhook-portal): needs `npm run build` (it builds dist/portal). */
describe('the webhook portal at /portal', () => {
  let t: TestApp;
  beforeAll(async () => {
    if (!existsSync(join(PORTAL_DIR, 'index.html'))) throw new Error('run `npm run build` first');
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it('redirects /portal to /portal/ and serves the page uncached under a strict CSP', async () => {
    const bare = await get('/portal');
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/portal/');
    const page = await get('/portal/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['cache-control']).toBe('no-cache, no-store, must-revalidate');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    // nothing from another origin, no inline script
    expect(page.body).not.toMatch(/(src|href)="https?:/);
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('serves hashed assets with a year-long immutable cache', async () => {
    const page = await get('/portal/');
    const assets = [...page.body.matchAll(/(?:src|href)="(\/portal\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      expect(asset).toMatch(/-[A-Za-z0-9_-]{8}\.(js|css)$/);
      const res = await get(asset);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-security-policy']).toBeDefined();
    }
  });

  it('has an icon, linked from the page, and sends /favicon.ico to it instead of a 401', async () => {
    const page = await get('/portal/');
    expect(page.body).toContain('<link rel="icon" type="image/svg+xml" href="/portal/favicon.svg"');
    const icon = await get('/portal/favicon.svg');
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toMatch(/image\/svg\+xml/);
    const favicon = await get('/favicon.ico');
    expect(favicon.statusCode).toBe(301);
    expect(favicon.headers.location).toBe('/portal/favicon.svg');
  });

  it("answers each section's address with the page, under the page's policy, so a reload keeps the section", async () => {
    const page = await get('/portal/');
    for (const url of [
      '/portal/replays',
      '/portal/search?subject=abc',
      '/portal/endpoints/5e6f0000-0000-4000-8000-000000000000/log',
      '/portal/catalog?community=no-such-community',
    ]) {
      const res = await get(url);
      expect({ url, status: res.statusCode, type: res.headers['content-type'] }).toEqual({
        url,
        status: 200,
        type: expect.stringMatching(/text\/html/),
      });
      expect(res.body).toBe(page.body);
      expect(res.headers['cache-control']).toBe('no-cache, no-store, must-revalidate');
      expect(String(res.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    }
  });

  it('leaves the unmatched-path rule untouched, under /api and under /portal', async () => {
    const api = await get('/api/portal');
    const missing = await get('/portal/missing.js');
    // not a section: no page for it
    const other = await get('/portal/settings');
    expect(other.statusCode).toBe(401);
    expect(api.statusCode).toBe(401);
    expect(missing.statusCode).toBe(401);
    expect(JSON.parse(missing.body).code).toBe('UNAUTHORIZED');
  });
});
