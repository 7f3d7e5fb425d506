import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { DELIVERY_TEST_ENV } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

/**
 * The `rateLimit` field of an endpoint (docs/api.md#webhooks): validated, kept, shown, cleared. How
 * the worker keeps to it is test/resilience/endpoint-rate-limit.resilience-spec.ts.
 */
describe('webhook endpoint rate limit field', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await createTestApp(DELIVERY_TEST_ENV);
  });

  afterAll(async () => {
    await api?.close();
  });

  async function owner() {
    return memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
  }

  const create = (communityId: string, token: string, extra: Record<string, unknown>) =>
    call(api.app, 'POST', hooks(communityId), {
      token,
      body: { url: `http://127.0.0.1:9/${unique('hook')}`, events: ['tweet.created'], ...extra },
    });

  it('is null unless set, and is kept, listed, changed and removed', async () => {
    const { community, token } = await owner();
    const plain = await create(community.id, token, {});
    expect(plain.status).toBe(201);
    expect(plain.body.data.rateLimit).toBeNull();

    const limited = await create(community.id, token, { rateLimit: 25 });
    expect(limited.status).toBe(201);
    expect(limited.body.data.rateLimit).toBe(25);
    const id = limited.body.data.id as string;
    const row = await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(row.rateLimit).toBe(25);

    const list = await call(api.app, 'GET', hooks(community.id), { token });
    const listed = (list.body.data.items as { id: string; rateLimit: number | null }[]).find(
      (e) => e.id === id,
    );
    expect(listed?.rateLimit).toBe(25);

    // a PATCH without the field leaves it; with a number changes it; with null removes it
    const renamed = await call(api.app, 'PATCH', `${hooks(community.id)}/${id}`, {
      token,
      body: { description: 'slow receiver' },
    });
    expect(renamed.body.data.rateLimit).toBe(25);
    const raised = await call(api.app, 'PATCH', `${hooks(community.id)}/${id}`, {
      token,
      body: { rateLimit: 10_000 },
    });
    expect(raised.status).toBe(200);
    expect(raised.body.data.rateLimit).toBe(10_000);
    const removed = await call(api.app, 'PATCH', `${hooks(community.id)}/${id}`, {
      token,
      body: { rateLimit: null },
    });
    expect(removed.status).toBe(200);
    expect(removed.body.data.rateLimit).toBeNull();
    expect((await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).rateLimit).toBeNull();
  });

  it.each([0, 10_001, 2.5, '5', true, -1])(
    'refuses %p with 400 naming the field, and creates nothing',
    async (value) => {
      const { community, token } = await owner();
      const res = await create(community.id, token, { rateLimit: value });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(res.body)).toContain('rateLimit');
      expect(await api.prisma.webhookEndpoint.count({ where: { communityId: community.id } })).toBe(0);
    },
  );

  it("refuses an out-of-range PATCH and keeps the endpoint's limit", async () => {
    const { community, token } = await owner();
    const created = await create(community.id, token, { rateLimit: 3 });
    const id = created.body.data.id as string;
    const res = await call(api.app, 'PATCH', `${hooks(community.id)}/${id}`, {
      token,
      body: { rateLimit: 0 },
    });
    expect(res.status).toBe(400);
    expect((await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).rateLimit).toBe(3);
  });

  it("cannot be read or changed through another community's route", async () => {
    const first = await owner();
    const second = await owner();
    const created = await create(first.community.id, first.token, { rateLimit: 7 });
    const id = created.body.data.id as string;
    const res = await call(api.app, 'PATCH', `${hooks(second.community.id)}/${id}`, {
      token: second.token,
      body: { rateLimit: 9 },
    });
    expect(res.status).toBe(404);
    expect((await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } })).rateLimit).toBe(7);
  });
});
