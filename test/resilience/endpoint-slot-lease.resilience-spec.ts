import Redis from 'ioredis';
import { AppConfig } from '../../src/config/app-config';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { DELIVERY_QUEUE, deliveryJobId } from '../../src/modules/webhooks/core/delivery-job';
import { MIN_PARK_MS } from '../../src/modules/webhooks/worker/endpoint-slots';
import { queuePrefix } from '../../src/redis/redis-client';
import { endpointAtReceiver } from '../utils/delivery-stack';
import { createCommunity } from '../utils/factories';
import { syntheticData } from '../utils/synthetic-event';
import { waitFor } from '../utils/worker';
import { useWorkerProcessStack } from './delivery-helpers';

jest.setTimeout(120_000);

/**
 * One slot per endpoint, leases of 3 s renewed every second (the defaults), and a request timeout far
 * longer than the test: only the lease can free the slot of a worker killed mid-send.
 */
const ENV = {
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '1',
  WEBHOOK_TIMEOUT: '60s',
  WEBHOOK_SLOT_LEASE: '3s',
  WEBHOOK_SLOT_RENEW_INTERVAL: '1s',
};
/** The requirement: a dead worker's endpoint slot takes the endpoint's next delivery no longer than this. */
const FREED_WITHIN_MS = 5_000;
/**
 * What the measurement adds on this shared 2-core machine: the signal's delivery, the parked job's
 * promotion, pick-up and claim, and the request to the receiver's stamp.
 */
const MEASUREMENT_MARGIN_MS = 500;

/**
 * Endpoint slots held by a killed worker (README.md in src/modules/webhooks/worker, "Fairness
 * between endpoints"): the leases are renewed while the request runs, so a live worker keeps its
 * slot past a lease, and a killed one's lease expires unrenewed, so another worker delivers the
 * endpoint's next event within WEBHOOK_SLOT_LEASE and the parked job's look again.
 */
describe('a worker killed while it holds an endpoint slot', () => {
  const stack = useWorkerProcessStack({ env: ENV });
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(stack.api.app.get(AppConfig).REDIS_URL);
  });
  afterAll(() => redis?.quit());

  const raise = (communityId: string, n: number) =>
    stack.api.prisma.$transaction((tx) =>
      stack.api.app.get(OutboxService).record(tx, communityId, 'tweet.created', syntheticData({ n })),
    );

  it(`frees its slot within ${FREED_WITHIN_MS} ms: another worker delivers the endpoint's next event`, async () => {
    const { api, receiver } = stack;
    const config = api.app.get(AppConfig);
    const community = await createCommunity(api.app);
    const endpoint = await endpointAtReceiver(stack, community.id, { name: 'slot' });
    const { path } = endpoint;
    // the first request never gets an answer; later ones are answered at once
    receiver.respond(path, (request) =>
      receiver.at(path)[0] === request ? new Promise(() => undefined) : { status: 200 },
    );

    // the first worker takes the endpoint's only slot and hangs in its request
    const holder = stack.spawnWorker();
    await holder.ready;
    const first = await raise(community.id, 1);
    await waitFor('the first request at the receiver', () => receiver.at(path).length === 1, 30_000);
    const heldSince = receiver.at(path)[0].receivedAt;

    const other = stack.spawnWorker();
    await other.ready;
    const second = await raise(community.id, 2);
    const secondJob = deliveryJobId(second.id, endpoint.id, 1);
    const delayed = `${queuePrefix(config)}:${DELIVERY_QUEUE}:delayed`;
    /** When the second event's parked job wakes by itself (BullMQ's delayed score: ms × 4096). */
    const parkedUntil = async () => {
      const score = await redis.zscore(delayed, secondJob);
      return score === null ? null : Math.floor(Number(score) / 0x1000);
    };

    // renewed, the slot outlives several leases while its request runs: the second event waits
    await waitFor(
      'two leases since the first request',
      () => Date.now() > heldSince + 2 * config.webhookSlotLeaseMs,
      30_000,
    );
    expect(receiver.at(path)).toHaveLength(1);
    expect(first.id).not.toBe(second.id);

    // killed while the second event's job is parked (not running in the worker that dies), with
    // time to spare before it looks again
    await waitFor(
      "the second event's job parked",
      async () => {
        const due = await parkedUntil();
        return due !== null && due > Date.now() + MIN_PARK_MS;
      },
      30_000,
      5,
    );
    const killedAt = Date.now();
    holder.process.kill('SIGKILL');
    expect(await holder.exited).toBeNull();

    const delivered = await waitFor(
      'the second event at the receiver',
      () => receiver.at(path).find((r) => r.headers['webhook-id'] === second.id),
      30_000,
      5,
    );
    // the lease ran out at most WEBHOOK_SLOT_LEASE after the kill (renewed at most a renewal interval
    // before it); the parked job looks again within a renewal interval (and MIN_PARK_MS) of that
    expect(config.webhookSlotLeaseMs + config.webhookSlotRenewIntervalMs + MIN_PARK_MS).toBeLessThan(
      FREED_WITHIN_MS,
    );
    expect(delivered.receivedAt - killedAt).toBeLessThanOrEqual(FREED_WITHIN_MS + MEASUREMENT_MARGIN_MS);

    other.process.kill('SIGTERM');
    expect(await other.exited).toBe(0);
  });
});
