import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { Receiver, ReceivedWebhook, startReceiver } from '../utils/webhook-receiver';
import { DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';

// An endpoint's rate limit (docs/api.md#webhooks), with two workers sharing its budget.
// Here, run one file at a time, because its figures are times seen by the receiver.
jest.setTimeout(90_000);

const RATE = 5;

describe('an endpoint rate limit, two workers', () => {
  let api: TestApp;
  let workers: TestWorker[];
  let receiver: Receiver;

  beforeAll(async () => {
    api = await createTestApp(DELIVERY_TEST_ENV);
    workers = [await startTestWorker(DELIVERY_TEST_ENV), await startTestWorker(DELIVERY_TEST_ENV)];
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await Promise.all((workers ?? []).map((w) => w.stop()));
    await api?.close();
    await receiver?.close();
  });

  async function endpointFor(communityId: string, token: string, path: string, rateLimit: number | null) {
    const res = await call(api.app, 'POST', `/api/communities/${communityId}/webhooks`, {
      token,
      body: { url: receiver.url + path, events: ['tweet.created'], rateLimit },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ rateLimit });
    return (res.body.data as { id: string }).id;
  }

  const messageIds = (requests: ReceivedWebhook[]) => requests.map((r) => r.headers['webhook-id']);

  it(`sends at most ${RATE} a second across both workers, all of them, none failed, and leaves an unlimited endpoint's pace alone`, async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const limitedPath = `/${unique('limited')}`;
    const freePath = `/${unique('free')}`;
    const limited = await endpointFor(community.id, token, limitedPath, RATE);
    await endpointFor(community.id, token, freePath, null);

    const events = 60;
    for (let n = 0; n < events; n++) {
      const res = await call(api.app, 'POST', '/api/sdk/tweets', { token, body: { content: `burst ${n}` } });
      expect(res.status).toBe(201);
    }
    await waitFor(
      'every event at the limited endpoint',
      () => receiver.at(limitedPath).length >= events,
      60_000,
    );

    const sent = receiver.at(limitedPath);
    expect(new Set(messageIds(sent)).size).toBe(events);
    expect(sent).toHaveLength(events);
    // in any one second, counted from each request on: at most RATE requests, the first burst included
    const times = sent.map((r) => r.receivedAt).sort((a, b) => a - b);
    const busiest = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1000).length));
    expect(busiest).toBeLessThanOrEqual(RATE);
    // held back is not failed: one SUCCESS per event, nothing else
    const rows = await api.prisma.webhookDelivery.groupBy({
      by: ['status'],
      where: { endpointId: limited },
      _count: true,
    });
    expect(rows).toEqual([{ status: 'SUCCESS', _count: events }]);

    // the endpoint without a limit had all of them before the limited one could have had its 11th
    const free = receiver.at(freePath);
    expect(new Set(messageIds(free)).size).toBe(events);
    expect(Math.max(...free.map((r) => r.receivedAt))).toBeLessThan(times[2 * RATE]);
  });

  it("holds the endpoint's other sends past a 429's Retry-After, and sends the refused one again after it", async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const path = `/${unique('busy')}`;
    let refusedAt = 0;
    receiver.respond(path, (request) => {
      if (refusedAt) return { status: 200 };
      refusedAt = request.receivedAt;
      return { status: 429, headers: { 'retry-after': '1' } };
    });
    const endpointId = await endpointFor(community.id, token, path, 100);

    const post = (content: string) => call(api.app, 'POST', '/api/sdk/tweets', { token, body: { content } });
    expect((await post('first')).status).toBe(201);
    // the worker holds the endpoint before it records the 429
    await waitFor('the 429 recorded', () =>
      api.prisma.webhookDelivery.count({ where: { endpointId, status: 'FAILED' } }),
    );
    for (const content of ['second', 'third', 'fourth']) expect((await post(content)).status).toBe(201);
    await waitFor(
      'the refused event again and the three after it',
      () => receiver.at(path).length >= 5,
      30_000,
    );

    const after = receiver.at(path).slice(1);
    expect(new Set(messageIds(after)).size).toBe(4);
    // Retry-After: 1 second, on Redis's clock; the receiver's clock may see it a few ms early
    for (const request of after) expect(request.receivedAt).toBeGreaterThanOrEqual(refusedAt + 1000 - 20);
  });
});
