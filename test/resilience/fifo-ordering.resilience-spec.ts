import Redis from 'ioredis';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { syntheticData } from '../utils/synthetic-event';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { DELIVERY_TEST_ENV, waitFor } from '../utils/worker';
import { ChildWorker, killStillRunning, RedisServer, spawnWorker, sparePort, startRedis } from './processes';

// A FIFO endpoint (docs/api.md#webhooks, "Ordering") fed by two API instances and sent to by two
// worker processes, one of them SIGKILLed mid-stream, and Redis emptied mid-stream.
jest.setTimeout(180_000);

const EVENTS = 200;
/** The receiver's answer time: long enough that two requests in flight would overlap. */
const RECEIVER_LATENCY_MS = 2;

describe('a FIFO endpoint under two API instances, two workers, a SIGKILL and a FLUSHALL', () => {
  let redis: RedisServer;
  let apis: TestApp[];
  let receiver: Receiver;
  let env: Record<string, string>;
  const workers: ChildWorker[] = [];

  beforeAll(async () => {
    redis = await startRedis(await sparePort());
    env = {
      ...DELIVERY_TEST_ENV,
      REDIS_URL: redis.url,
      // a dead worker's job is taken over within seconds, its claim closed soon after
      WORKER_STALLED_INTERVAL: '2s',
      WEBHOOK_SWEEP_INTERVAL: '1s',
      // the dead worker's attempt counts as a failure; it must not disable the endpoint
      WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '1000',
    };
    apis = [await createTestApp(env), await createTestApp(env)];
    receiver = await startReceiver();
  });

  afterAll(async () => {
    killStillRunning(workers);
    await Promise.all((apis ?? []).map((api) => api.close()));
    await receiver?.close();
    await redis?.stop();
  });

  async function startWorker(): Promise<ChildWorker> {
    const worker = spawnWorker(env);
    workers.push(worker);
    await worker.ready;
    return worker;
  }

  it('receives every event in commit order with one request in flight at a time, the failing one holding back the rest', async () => {
    const [first] = apis;
    const member = await memberWithToken(first.app, { plan: 'PRO', role: 'OWNER' });
    const path = `/${unique('fifo')}`;
    const created = await call(first.app, 'POST', `/api/communities/${member.community.id}/webhooks`, {
      token: member.token,
      body: { url: receiver.url + path, events: ['tweet.created'], ordering: 'fifo' },
    });
    expect(created.status).toBe(201);

    const raised: string[] = [];
    const failures = new Map<string, number>();
    let inFlight = 0;
    let maxInFlight = 0;
    receiver.respond(path, async (request) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, RECEIVER_LATENCY_MS));
      inFlight--;
      // the 10th event fails twice, then succeeds
      const messageId = request.headers['webhook-id'];
      if (messageId !== raised[9]) return { status: 200 };
      const failed = failures.get(messageId) ?? 0;
      failures.set(messageId, failed + 1);
      return { status: failed < 2 ? 500 : 200 };
    });
    const distinctReceived = () => new Set(receiver.at(path).map((r) => r.headers['webhook-id'])).size;

    /** Raises `count` events one after another, alternately through each API instance: commit order is their order. */
    async function raise(count: number) {
      for (let n = 0; n < count; n++) {
        const api = apis[raised.length % 2];
        const event = await api.prisma.$transaction((tx) =>
          api.app
            .get(OutboxService)
            .record(tx, member.community.id, 'tweet.created', syntheticData({ n: raised.length })),
        );
        raised.push(event.id);
      }
    }

    const [killed] = [await startWorker(), await startWorker()];
    await raise(80);
    await waitFor('the stream under way', () => distinctReceived() >= 30, 60_000);
    killed.process.kill('SIGKILL');
    expect(await killed.exited).toBeNull();
    await raise(60);
    await startWorker();
    await waitFor('the stream past the kill', () => distinctReceived() >= 100, 60_000);
    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();
    await raise(EVENTS - raised.length);

    await waitFor('every event received', () => distinctReceived() === EVENTS, 90_000, 50);
    const received = receiver.at(path).map((r) => r.headers['webhook-id']);
    // a request the killed worker had sent may arrive again (its outcome is unknown), right after itself
    const runs = received.filter((id, n) => n === 0 || received[n - 1] !== id);
    expect(runs).toEqual(raised);
    expect(received.filter((id) => id === raised[9]).length).toBeGreaterThanOrEqual(3);
    expect(maxInFlight).toBe(1);
    // the worker records the last attempt's outcome after its receiver has answered
    const succeeded = await waitFor(
      'every outcome recorded',
      async () => {
        const rows = await first.prisma.webhookDelivery.groupBy({
          by: ['messageId'],
          where: { endpointId: created.body.data.id as string, status: 'SUCCESS' },
          _count: true,
        });
        return rows.length >= EVENTS && rows;
      },
      30_000,
      50,
    );
    expect(succeeded).toHaveLength(EVENTS);
    expect(succeeded.every((row) => row._count === 1)).toBe(true);
  });
});
