import { createTestApp, TestApp } from '../utils/app';
import { call, CallResult } from '../utils/http';
import { addMember, announceCommunityChange, createUser, login, memberWithToken } from '../utils/factories';
import { Receiver, startReceiver } from '../utils/webhook-receiver';

const base = (communityId: string) => `/api/communities/${communityId}/webhooks`;

/**
 * Token buckets (docs/product-decisions.md#8-limits-and-unmatched-paths): exact burst counts, per caller and
 * community, and one bucket shared by every API instance through Redis. No test waits for a refill.
 */
describe('webhook rate limits', () => {
  let a: TestApp;
  let b: TestApp;
  let receiver: Receiver;
  let BODY: { url: string; events: string[] };
  beforeAll(async () => {
    // two API instances on the same database and Redis prefix; a local receiver for the test route
    const env = { WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' };
    a = await createTestApp(env);
    b = await createTestApp(env);
    receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    BODY = { url: receiver.url, events: ['tweet.created'] };
  });
  afterAll(async () => {
    await receiver.close();
    await a.close();
    await b.close();
  });

  function expectLimited(res: CallResult, maxSeconds: number) {
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(res.body.retryAfter).toBeGreaterThanOrEqual(1);
    expect(res.body.retryAfter).toBeLessThanOrEqual(maxSeconds);
    expect(res.headers['retry-after']).toBe(String(res.body.retryAfter));
  }

  it('create: 10 succeed, the 11th is 429 with Retry-After, and nothing was created by it', async () => {
    const { community, token } = await memberWithToken(a.app, { plan: 'PRO' });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await call(a.app, 'POST', base(community.id), { token, body: BODY })).status);
    expect(statuses).toEqual(Array(10).fill(201));
    expectLimited(await call(a.app, 'POST', base(community.id), { token, body: BODY }), 10);
    expect(await a.prisma.webhookEndpoint.count({ where: { communityId: community.id } })).toBe(10);
  });

  it('create: one bucket is shared by two API instances', async () => {
    const { community, token } = await memberWithToken(a.app, { plan: 'PRO' });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const app = i % 2 === 0 ? a.app : b.app;
      statuses.push((await call(app, 'POST', base(community.id), { token, body: BODY })).status);
    }
    expect(statuses).toEqual(Array(10).fill(201));
    expectLimited(await call(b.app, 'POST', base(community.id), { token, body: BODY }), 10);
    expectLimited(await call(a.app, 'POST', base(community.id), { token, body: BODY }), 10);
  });

  it('create: concurrent requests never get more than the burst', async () => {
    const { community, token } = await memberWithToken(a.app, { plan: 'PRO' });
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call(i % 2 ? a.app : b.app, 'POST', base(community.id), { token, body: BODY }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(6);
  });

  it('buckets are per caller and per community', async () => {
    const first = await memberWithToken(a.app, { plan: 'PRO' });
    for (let i = 0; i < 10; i++)
      await call(a.app, 'POST', base(first.community.id), { token: first.token, body: BODY });
    expectLimited(
      await call(a.app, 'POST', base(first.community.id), { token: first.token, body: BODY }),
      10,
    );
    // another OWNER of the same community has a bucket of their own
    const colleague = await createUser(a.app);
    await addMember(a.app, first.community.id, colleague.id, 'OWNER');
    const colleagueToken = (await login(a.app, colleague.email, first.community.id)).accessToken;
    expect(
      (await call(a.app, 'POST', base(first.community.id), { token: colleagueToken, body: BODY })).status,
    ).toBe(201);
    // the same caller in another community too
    const second = await memberWithToken(a.app, { plan: 'PRO' });
    await addMember(a.app, second.community.id, first.user.id, 'OWNER');
    expect(
      (await call(a.app, 'POST', base(second.community.id), { token: first.token, body: BODY })).status,
    ).toBe(201);
  });

  it('refused callers spend no tokens: a MEMBER’s 403s leave the bucket full', async () => {
    const { community, token, user } = await memberWithToken(a.app, { plan: 'PRO', role: 'MEMBER' });
    for (let i = 0; i < 12; i++)
      expect((await call(a.app, 'POST', base(community.id), { token, body: BODY })).status).toBe(403);
    await a.prisma.membership.updateMany({
      where: { communityId: community.id, userId: user.id },
      data: { role: 'OWNER' },
    });
    await announceCommunityChange(a.app, community.id);
    expect((await call(a.app, 'POST', base(community.id), { token, body: BODY })).status).toBe(201);
  });

  it('a route without @RateLimit has no bucket: 30 reads at once all answer 200', async () => {
    // every throttler counts only the routes that name it; one that counted every route would refuse some
    const { community, token } = await memberWithToken(a.app, { plan: 'PRO' });
    const reads = await Promise.all(
      Array.from({ length: 30 }, () => call(a.app, 'GET', base(community.id), { token })),
    );
    expect(reads.map((r) => r.status)).toEqual(Array(30).fill(200));
  });

  it('the bucket is taken before unknown fields are refused, as before the pipe: 10 × 400 spend it', async () => {
    const { community, token } = await memberWithToken(a.app, { plan: 'PRO' });
    for (let i = 0; i < 10; i++) {
      const res = await call(a.app, 'POST', `${base(community.id)}?bogus=1`, { token, body: BODY });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    expectLimited(await call(a.app, 'POST', base(community.id), { token, body: BODY }), 10);
    expect(await a.prisma.webhookEndpoint.count({ where: { communityId: community.id } })).toBe(0);
  });

  it.each([
    ['rotate-secret', 20],
    ['test', 20],
  ])('%s: 5 succeed, the 6th is 429', async (action, maxSeconds) => {
    const { community, token } = await memberWithToken(a.app, { plan: 'PRO' });
    const created = await call(a.app, 'POST', base(community.id), { token, body: BODY });
    const url = `${base(community.id)}/${created.body.data.id}/${action}`;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await call(i % 2 ? b.app : a.app, 'POST', url, { token })).status);
    expect(statuses).toEqual(Array(5).fill(200));
    expectLimited(await call(a.app, 'POST', url, { token }), maxSeconds);
  });
});
