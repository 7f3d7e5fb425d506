import Redis from 'ioredis';
import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { OutboxService } from '../../src/modules/events/outbox.service';
import { createTestApp, TestApp } from '../utils/app';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { syntheticData } from '../utils/synthetic-event';
import { DELIVERY_TEST_ENV, waitFor } from '../utils/worker';
import { ChildWorker, killStillRunning, RedisServer, sparePort, spawnWorker, startRedis } from './processes';

/**
 * The test's own bursts wait for a connection and finish as long as they need: the scale test raises
 * ten at once through a pool of 4, and Prisma's defaults (2 s to start, 5 s to finish) measured the
 * machine's speed that day, not the service's behaviour.
 */
const BURST_TRANSACTION = { maxWait: 60_000, timeout: 60_000 };

/** Raises `count` events in transactions of 50, as a burst of API writes would. */
export async function raiseBurst(
  api: TestApp,
  communityId: string,
  count: number,
  type: SubscribableEvent = 'tweet.created',
) {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await api.prisma.$transaction(
      (tx) =>
        Promise.all(
          Array.from({ length: Math.min(50, count - i) }, (_, n) =>
            api.app.get(OutboxService).record(tx, communityId, type, syntheticData({ n: i + n })),
          ),
        ),
      BURST_TRANSACTION,
    );
    ids.push(...batch.map((e) => e.id));
  }
  return ids;
}

/** How many requests the receiver got per webhook-id at `path`. */
export function requestsPerMessage(receiver: Receiver, path: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of receiver.at(path)) {
    const id = String(r.headers['webhook-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

export interface WorkerProcessStack {
  api: TestApp;
  receiver: Receiver;
  /** the settings of the API and of every worker process the block spawns */
  env: Record<string, string>;
  /** the block's own redis-server (only with `ownRedis`) */
  redis: RedisServer;
  /** a worker process on `env` (with `extra` over it), killed after the block's last test if still running */
  spawnWorker: (extra?: Record<string, string>) => ChildWorker;
}

/**
 * The API in-process (DELIVERY_TEST_ENV with `options.env` over it), a local receiver, and worker
 * processes the tests spawn (from the build run.sh compiles), for one describe block. With `ownRedis`
 * everything runs on a redis-server of the block's own, which the tests may empty or stop. Read the
 * fields inside the tests (they exist once beforeAll ran).
 */
export function useWorkerProcessStack(
  options: { env?: Record<string, string>; ownRedis?: boolean } = {},
): WorkerProcessStack {
  const children: ChildWorker[] = [];
  const stack = {
    spawnWorker: (extra: Record<string, string> = {}) => {
      const child = spawnWorker({ ...stack.env, ...extra });
      children.push(child);
      return child;
    },
  } as WorkerProcessStack;
  beforeAll(async () => {
    stack.env = { ...DELIVERY_TEST_ENV, ...options.env };
    if (options.ownRedis) {
      stack.redis = await startRedis(await sparePort());
      stack.env.REDIS_URL = stack.redis.url;
    }
    stack.api = await createTestApp(stack.env);
    stack.receiver = await startReceiver();
  });
  afterAll(async () => {
    killStillRunning(children);
    await stack.api?.close();
    await stack.receiver?.close();
    await stack.redis?.stop();
  });
  return stack;
}

/** Expects the receiver got exactly `messageIds` at `path` (in any order), each `times` times. */
export function expectEachReceived(receiver: Receiver, path: string, messageIds: string[], times: number) {
  const counts = requestsPerMessage(receiver, path);
  expect([...counts.keys()].sort()).toEqual([...messageIds].sort());
  expect([...counts.values()].every((n) => n === times)).toBe(true);
}

/** Waits until `count` attempts of the endpoint have succeeded. */
export function successesReach(
  api: TestApp,
  endpointId: string,
  count: number,
  what: string,
  timeoutMs: number,
) {
  return waitFor(
    what,
    async () =>
      (await api.prisma.webhookDelivery.count({ where: { endpointId, status: 'SUCCESS' } })) === count,
    timeoutMs,
  );
}

/** Empties every key of a redis-server (FLUSHALL), as an empty replica promoted would. */
export async function flushAll(redisUrl: string) {
  const client = new Redis(redisUrl);
  await client.flushall();
  client.disconnect();
}
