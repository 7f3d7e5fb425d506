import type { Prisma, WebhookEndpoint } from '../../src/generated/prisma/client';
import { WorkerOutboxStore } from '../../src/modules/webhooks/worker/outbox.store';
import { createTestApp, TestApp } from './app';
import { createIsolatedDatabase, IsolatedDatabase } from './isolated-database';

export interface RelayDatabase {
  db: IsolatedDatabase;
  api: TestApp;
  /** the relay's store, on the app's pool */
  store: WorkerOutboxStore;
  /** An endpoint created after every earlier one (the relay lists a pair's endpoints in creation order). */
  endpoint(
    communityId: string,
    events: string[],
    extra?: Partial<Prisma.WebhookEndpointUncheckedCreateInput>,
  ): Promise<WebhookEndpoint>;
}

/**
 * A database of the describe block's own, for tests that call the relay's statement directly: it takes
 * any unrelayed row, so no other file's worker may share the outbox. Each test starts from an outbox
 * with nothing left to relay. Read the fields inside the tests (they exist once beforeAll ran).
 */
export function useRelayDatabase(name: string): RelayDatabase {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const relay: Pick<RelayDatabase, 'endpoint'> & Partial<RelayDatabase> = {
    endpoint(communityId, events, extra = {}) {
      clock += 1_000;
      return relay.api!.prisma.webhookEndpoint.create({
        data: { communityId, url: 'http://127.0.0.1:1/hook', events, createdAt: new Date(clock), ...extra },
      });
    },
  };
  beforeAll(async () => {
    relay.db = await createIsolatedDatabase(name);
    relay.api = await createTestApp({
      DATABASE_URL: relay.db.url,
      REDIS_KEY_PREFIX: relay.db.redisKeyPrefix,
    });
    relay.store = new WorkerOutboxStore(relay.api.prisma);
  }, 60_000);
  afterAll(async () => {
    await relay.api?.close();
    await relay.db?.drop();
  });
  afterEach(() =>
    relay.api!.prisma.outboxEvent.updateMany({ where: { relayedAt: null }, data: { relayedAt: new Date() } }),
  );
  // complete once beforeAll ran, which is when the tests read it
  return relay as RelayDatabase;
}
