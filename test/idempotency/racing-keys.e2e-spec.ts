import { randomUUID } from 'node:crypto';
import { getStorageToken, type ThrottlerStorage } from '@nestjs/throttler';
import { AppModule } from '../../src/app.module';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call, type CallResult } from '../utils/http';
import { syntheticData } from '../utils/synthetic-event';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';

/** Requests sent at once with one key, and how many times that is done per route. */
const AT_ONCE = 20;
const ROUNDS = 20;

/**
 * The routes' own rate limits (a burst of 5 per caller) would refuse most of 20 requests of one caller
 * before their key is looked at; they are not what this file is about, so they let everything through.
 */
const unlimited: ThrottlerStorage = {
  increment: () => Promise.resolve({ totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 }),
};

/**
 * docs/idempotency.md#the-rules: however many requests of one key arrive at once, on however many
 * instances, the first runs and every other is answered 409 IDEMPOTENCY_KEY_IN_USE (it still runs) or
 * with the first's answer replayed (it has finished); none answers 5xx, and the write happens once.
 */
describe('one Idempotency-Key sent many times at once through two instances', () => {
  let a: TestApp;
  let b: TestApp;
  let worker: TestWorker;
  let receiver: Receiver;
  let owner: Awaited<ReturnType<typeof memberWithToken>>;
  const hooks = () => `/api/communities/${owner.community.id}/webhooks`;

  beforeAll(async () => {
    const app = () =>
      createTestApp(DELIVERY_TEST_ENV, [AppModule], (builder) =>
        builder.overrideProvider(getStorageToken()).useValue(unlimited),
      );
    [a, b] = await Promise.all([app(), app()]);
    worker = await startTestWorker();
    receiver = await startReceiver();
    owner = await memberWithToken(a.app, { plan: 'PRO' });
  });
  afterAll(async () => {
    await worker?.stop();
    await Promise.all([a?.close(), b?.close()]);
    await receiver?.close();
  });

  /** Sends the request AT_ONCE times with one fresh key, half through each instance. */
  async function race(method: 'POST' | 'DELETE', url: string, body?: unknown): Promise<CallResult[]> {
    const key = randomUUID();
    return Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) =>
        call(i % 2 === 0 ? a.app : b.app, method, url, {
          token: owner.token,
          headers: { 'idempotency-key': key },
          body,
        }),
      ),
    );
  }

  /** Exactly one answer of the run, with `status`; every other one 409 IN_USE or its replay. */
  function oneRun(answers: CallResult[], status: number): CallResult {
    const outcome = (r: CallResult) =>
      r.status === 409
        ? `409 ${r.body?.code}`
        : `${r.status}${r.headers['idempotent-replayed'] === 'true' ? ' replayed' : ''}`;
    const outcomes = answers.map(outcome);
    const runs = answers.filter((r) => outcome(r) === String(status));
    expect({ outcomes, runs: runs.length }).toEqual({ outcomes, runs: 1 });
    for (const r of answers) {
      expect({ outcomes, outcome: outcome(r) }).toEqual({
        outcomes,
        outcome: expect.stringMatching(
          new RegExp(`^(${status}|${status} replayed|409 IDEMPOTENCY_KEY_IN_USE)$`),
        ),
      });
      if (outcome(r) === `${status} replayed`) expect(r.body).toEqual(runs[0].body);
    }
    return runs[0];
  }

  it('creating an endpoint: one endpoint per key', async () => {
    const before = await a.prisma.webhookEndpoint.count({ where: { communityId: owner.community.id } });
    for (let round = 1; round <= ROUNDS; round++) {
      const answers = await race('POST', hooks(), {
        url: `${receiver.url}/${unique('created')}`,
        events: ['tweet.created'],
      });
      oneRun(answers, 201);
      expect(await a.prisma.webhookEndpoint.count({ where: { communityId: owner.community.id } })).toBe(
        before + round,
      );
    }
  });

  it('rotating a secret: one new secret per key', async () => {
    const endpoint = await createEndpoint(a, owner.community.id, {
      url: `${receiver.url}/${unique('rotated')}`,
      events: ['tweet.created'],
    });
    for (let round = 0; round < ROUNDS; round++) {
      const since = new Date();
      const run = oneRun(await race('POST', `${hooks()}/${endpoint.id}/rotate-secret`), 200);
      expect(run.body.data.secret).toMatch(/^whsec_/);
      expect(
        await a.prisma.webhookSecret.count({ where: { endpointId: endpoint.id, createdAt: { gte: since } } }),
      ).toBe(1);
    }
  });

  it('resending a delivery: one new attempt per key', async () => {
    const path = `/${unique('resent')}`;
    const endpoint = await createEndpoint(a, owner.community.id, {
      url: receiver.url + path,
      events: ['tweet.created'],
    });
    const event = await a.prisma.$transaction((tx) =>
      a.app
        .get(OutboxService)
        .record(tx, owner.community.id, 'tweet.created', syntheticData({ tweet: { id: unique('t') } })),
    );
    const attempts = () => a.prisma.webhookDelivery.count({ where: { endpointId: endpoint.id } });
    await waitFor('the first delivery', async () => (await attempts()) === 1);
    const first = await a.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
    for (let round = 1; round <= ROUNDS; round++) {
      const run = oneRun(
        await race('POST', `${hooks()}/${endpoint.id}/deliveries/${first.id}/resend`, {}),
        202,
      );
      expect(run.body.data).toMatchObject({ messageId: event.id, attempt: round + 1 });
      expect(await attempts()).toBe(round + 1);
    }
  });

  it('deleting an endpoint: one deletion per key', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const endpoint = await createEndpoint(a, owner.community.id, {
        url: `${receiver.url}/${unique('deleted')}`,
        events: ['tweet.created'],
      });
      const run = oneRun(await race('DELETE', `${hooks()}/${endpoint.id}`), 200);
      expect(run.body.data).toEqual({ id: endpoint.id, deleted: true });
      expect(await a.prisma.webhookEndpoint.count({ where: { id: endpoint.id } })).toBe(0);
    }
  });
});
