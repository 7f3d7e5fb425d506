import { API_KEY_REFUSED } from '../../src/modules/auth/auth.guard';
import { useTestApp } from '../utils/app';
import { memberWithCredentials, unique } from '../utils/factories';
import { call } from '../utils/http';
import { DELIVERY_TEST_ENV } from '../utils/worker';

/**
 * How the webhook routes name their community (docs/api.md#webhooks): by id or by slug, in any case,
 * like every other way of naming a community; and what an API key hears on these login-only routes.
 */
describe('webhook routes: the community by id or slug', () => {
  const api = useTestApp(DELIVERY_TEST_ENV);

  const body = () => ({ url: `http://127.0.0.1:9/${unique('hook')}`, events: ['tweet.created'] });

  it('takes the slug wherever it takes the id, in any case, and acts on the same community', async () => {
    const { community, token } = await memberWithCredentials(api.app, { plan: 'PRO' });
    const created = await call(api.app, 'POST', `/api/communities/${community.slug}/webhooks`, {
      token,
      body: body(),
    });
    expect(created.status).toBe(201);
    expect(created.body.data.communityId).toBe(community.id);
    const id = created.body.data.id as string;

    const listed = await call(api.app, 'GET', `/api/communities/${community.slug.toUpperCase()}/webhooks`, {
      token,
    });
    expect(listed.status).toBe(200);
    expect((listed.body.data.items as { id: string }[]).map((e) => e.id)).toEqual([id]);
    const patched = await call(api.app, 'PATCH', `/api/communities/${community.slug}/webhooks/${id}`, {
      token,
      body: { description: 'by slug' },
    });
    expect(patched.status).toBe(200);
    const log = await call(api.app, 'GET', `/api/communities/${community.slug}/webhooks/${id}/deliveries`, {
      token,
    });
    expect(log.status).toBe(200);
    const byId = await call(api.app, 'GET', `/api/communities/${community.id}/webhooks`, { token });
    expect(byId.body.data.items[0].description).toBe('by slug');
  });

  it("refuses another community's slug and a reference that is neither an id nor a slug", async () => {
    const mine = await memberWithCredentials(api.app, { plan: 'PRO' });
    const theirs = await memberWithCredentials(api.app, { plan: 'PRO' });
    const other = await call(api.app, 'GET', `/api/communities/${theirs.community.slug}/webhooks`, {
      token: mine.token,
    });
    expect(other.status).toBe(403);

    const malformed = await call(api.app, 'GET', '/api/communities/not%20a%20slug!/webhooks', {
      token: mine.token,
    });
    // the community is resolved before the route's own validation: the answer names the reference
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('TENANT_CONTEXT_REQUIRED');
    expect(malformed.body.error).toBe("Community 'not a slug!' could not be resolved");
  });

  it('answers an API key with 401 saying a login token is needed', async () => {
    const { community, apiKey } = await memberWithCredentials(api.app, { plan: 'PRO' });
    for (const [method, url] of [
      ['GET', `/api/communities/${community.id}/webhooks`],
      ['POST', `/api/communities/${community.slug}/webhooks`],
    ] as const) {
      const res = await call(api.app, method, url, {
        apiKey,
        body: method === 'POST' ? body() : undefined,
      });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expect(res.body.error).toBe(API_KEY_REFUSED);
    }
  });
});
