/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are untyped JSON that each test reads as it expects */
import { createTestApp, TestApp } from '../utils/app';
import { addMember, createCommunity, createUser, login } from '../utils/factories';
import { call } from '../utils/http';

// A tenant source names one community or none: repeated, array-valued or non-string sources are
// refused (400 naming communityId) instead of silently ignored, which let the token's community win.
describe('repeated or array-valued tenant sources (docs/product-decisions.md#3-tenancy-roles-permissions-plans)', () => {
  let t: TestApp;
  let a: { id: string; slug: string };
  let b: { id: string; slug: string };
  let token: string;
  beforeAll(async () => {
    t = await createTestApp();
    [a, b] = [await createCommunity(t.app), await createCommunity(t.app)];
    const user = await createUser(t.app);
    await addMember(t.app, a.id, user.id, 'OWNER');
    await addMember(t.app, b.id, user.id, 'OWNER');
    token = (await login(t.app, user.email, a.id)).accessToken;
  });
  afterAll(() => t.close());

  function expectRefused(res: { status: number; body: any }) {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['communityId']);
  }

  const refusedQueries = () => [
    `communityId=${b.id}&communityId=${a.id}`,
    `communityId[]=${b.id}`,
    `communityId[0]=${b.id}`,
  ];

  it('refuses them on a POST route, and writes nothing', async () => {
    for (const query of refusedQueries()) {
      const content = `probe ${query}`;
      const res = await call(t.app, 'POST', `/api/sdk/tweets?${query}`, { token, body: { content } });
      expectRefused(res);
      expect(await t.prisma.tweet.count({ where: { content } })).toBe(0);
    }
  });

  it('refuses them on a GET route', async () => {
    for (const query of refusedQueries()) {
      expectRefused(await call(t.app, 'GET', `/api/sdk/tweets?${query}`, { token }));
    }
  });

  it('refuses a body communityId that is not a string', async () => {
    for (const communityId of [123, null, [b.id], { id: b.id }, true]) {
      const res = await call(t.app, 'POST', '/api/sdk/tweets', {
        token,
        body: { content: 'x', communityId },
      });
      expectRefused(res);
    }
  });

  it('still takes a single communityId from the query and the body', async () => {
    const viaQuery = await call(t.app, 'POST', `/api/sdk/tweets?communityId=${b.id}`, {
      token,
      body: { content: 'in b via query' },
    });
    expect(viaQuery.status).toBe(201);
    expect(viaQuery.body.data.communityId).toBe(b.id);
    const viaBody = await call(t.app, 'POST', '/api/sdk/tweets', {
      token,
      body: { content: 'in b via body', communityId: b.slug },
    });
    expect(viaBody.status).toBe(201);
    expect(viaBody.body.data.communityId).toBe(b.id);
    const list = await call(t.app, 'GET', `/api/sdk/tweets?communityId=${b.slug}`, { token });
    expect(list.status).toBe(200);
    expect(list.body.data.items.every((tw: { communityId: string }) => tw.communityId === b.id)).toBe(true);
  });
});
