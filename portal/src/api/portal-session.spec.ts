import { ApiError } from './client';
import { exchangePortalLink } from './portal-session';

/**
 * The page's side of a portal link (docs/api.md#webhook-portal): the exchange names the community the
 * page is for, and the server's refusal of another community's link, which leaves it unused, reads as
 * 'other-community' rather than as a broken link. The server's side: test/portal/portal-links.e2e-spec.ts.
 */
describe('exchangePortalLink', () => {
  const realFetch = globalThis.fetch;
  let sent: { url: string; body: unknown }[];
  const answer = (status: number, body: unknown) => {
    sent = [];
    // the typed client hands fetch a Request
    globalThis.fetch = (async (request: Request) => {
      sent.push({ url: new URL(request.url).pathname, body: await request.json() });
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
  };
  afterEach(() => (globalThis.fetch = realFetch));

  const session = {
    accessToken: 'a.b.c',
    expiresIn: 3600,
    communityId: 'c1',
    communityName: 'Acme',
    communitySlug: 'acme',
    branding: { logoUrl: null, faviconUrl: null, primaryColor: null, accentColor: null },
  };

  it("sends the page's community with the token, and answers the session", async () => {
    answer(201, { success: true, data: session });
    await expect(exchangePortalLink('t'.repeat(43), 'acme')).resolves.toEqual(session);
    expect(sent).toEqual([
      { url: '/api/webhooks/portal-sessions', body: { token: 't'.repeat(43), community: 'acme' } },
    ]);
  });

  it('sends the token alone from a page that names no community', async () => {
    answer(201, { success: true, data: session });
    await exchangePortalLink('t'.repeat(43), null);
    expect(sent[0]!.body).toEqual({ token: 't'.repeat(43) });
  });

  it("reads the server's 403 as a link of another community, and a 401 as a link that no longer works", async () => {
    answer(403, { success: false, code: 'FORBIDDEN', error: 'This portal link is for another community' });
    await expect(exchangePortalLink('t'.repeat(43), 'acme')).resolves.toBe('other-community');
    answer(401, { success: false, code: 'UNAUTHORIZED', error: 'already used or has expired' });
    await expect(exchangePortalLink('t'.repeat(43), 'acme')).rejects.toBeInstanceOf(ApiError);
  });
});
