import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { RelayLimits, WorkerOutboxStore } from '../../src/modules/webhooks/worker/outbox.store';
import type { PrismaService } from '../../src/prisma/prisma.service';
import { createCommunity, unique } from '../utils/factories';
import { useRelayDatabase } from '../utils/relay-database';

/**
 * The relay's one statement (WorkerOutboxStore.relayOutboxBatch), called directly on a database of this
 * file's own: it takes any unrelayed row, so no other file's worker may share the outbox.
 */
describe('outbox relay statement', () => {
  const database = useRelayDatabase('relay');
  const WIDE: RelayLimits = { rows: 200, attempts: 5_000, claims: 0 };
  const { endpoint } = database;

  /** Commits events in this order (ascending outbox ids); returns their message ids. */
  async function events(communityId: string, count: number, type = 'tweet.created', requestId?: string) {
    const ids = Array.from({ length: count }, () => unique('msg'));
    for (const messageId of ids)
      await database.api.prisma.outboxEvent.create({
        data: { communityId, messageId, eventType: type, payload: { id: messageId, type }, requestId },
      });
    return ids;
  }

  /** Attempt 1 of a (tweet.created event, endpoint) pair, written before the relay gets to it. */
  const attemptRow = (communityId: string, endpointId: string, messageId: string, status?: 'SUCCESS') =>
    database.api.prisma.webhookDelivery.create({
      data: { communityId, endpointId, messageId, eventType: 'tweet.created', attempt: 1, status },
    });

  /** The events one statement relayed (none of these tests' endpoints has a filter: none is left undecided). */
  const relay = async (on: WorkerOutboxStore, limits: RelayLimits) =>
    (await on.relayOutboxBatch(limits)).relayed;

  /** The store on a pool of one connection: a statement after the relay runs where the relay ran. */
  const storeOnOneConnection = (pool: Pool) =>
    new WorkerOutboxStore({ pool, statementName: (name: string) => name } as unknown as PrismaService);

  const relayedIds = async (messageIds: string[]) =>
    (
      await database.api.prisma.outboxEvent.findMany({
        where: { messageId: { in: messageIds }, relayedAt: { not: null } },
        select: { messageId: true },
      })
    ).map((r) => r.messageId);

  it('writes attempt 1 for the active, enabled, subscribed endpoints of the community only, with the request id', async () => {
    const community = await createCommunity(database.api.app);
    const neighbour = await createCommunity(database.api.app);
    const first = await endpoint(community.id, ['tweet.created', 'tweet.deleted']);
    const second = await endpoint(community.id, ['tweet.created']);
    const unsubscribed = await endpoint(community.id, ['tweet.deleted']);
    const paused = await endpoint(community.id, ['tweet.created'], { isActive: false });
    const disabled = await endpoint(community.id, ['tweet.created'], {
      isActive: false,
      disabledAt: new Date(),
    });
    const neighbours = await endpoint(neighbour.id, ['tweet.created']);
    const [event] = await events(community.id, 1, 'tweet.created', 'req-relay-1');
    const [unheard] = await events(community.id, 1, 'member.joined');

    const relayed = await relay(database.store, WIDE);

    expect(relayed.map((e) => [e.messageId, e.endpointIds])).toEqual([
      [event, [first.id, second.id]],
      [unheard, []],
    ]);
    expect(relayed[0]).toMatchObject({
      communityId: community.id,
      eventType: 'tweet.created',
      payload: { id: event, type: 'tweet.created' },
    });
    const rows = await database.api.prisma.webhookDelivery.findMany({
      where: { messageId: { in: [event, unheard] } },
    });
    expect(rows.map((r) => r.endpointId).sort()).toEqual([first.id, second.id].sort());
    for (const row of rows) {
      expect(row).toMatchObject({ attempt: 1, status: 'PENDING', startedAt: null, requestId: 'req-relay-1' });
      expect(row.nextAttemptAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    }
    for (const skipped of [unsubscribed, paused, disabled, neighbours])
      expect(await database.api.prisma.webhookDelivery.count({ where: { endpointId: skipped.id } })).toBe(0);
    expect((await relayedIds([event, unheard])).sort()).toEqual([event, unheard].sort());
    // relayed rows are never taken again
    expect(await relay(database.store, WIDE)).toEqual([]);
  });

  it("commits without waiting for the WAL flush in its own transaction only, never on the connection's later writes", async () => {
    const community = await createCommunity(database.api.app);
    await endpoint(community.id, ['tweet.created']);
    const [event] = await events(community.id, 1);
    // one connection, so the statement after the relay runs where the relay ran
    const pool = new Pool({ connectionString: database.db.url, max: 1 });
    try {
      const oneConnection = storeOnOneConnection(pool);
      expect((await relay(oneConnection, WIDE)).map((e) => e.messageId)).toEqual([event]);
      const { rows } = await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      expect(rows[0].synchronous_commit).toBe('on');
      expect(await relayedIds([event])).toEqual([event]);
    } finally {
      await pool.end();
    }
  });

  it('writes its first `claims` attempts on unordered endpoints claimed, in order, and answers each with its endpoint', async () => {
    const community = await createCommunity(database.api.app);
    const fifo = await endpoint(community.id, ['tweet.created']);
    await database.api.prisma.webhookEndpoint.update({ where: { id: fifo.id }, data: { ordering: 'fifo' } });
    const first = await endpoint(community.id, ['tweet.created']);
    const second = await endpoint(community.id, ['tweet.created']);
    // what the endpoint's health follows (EndpointHealth), read as the claim statement reads it
    const failingSince = new Date('2026-02-01T00:00:00.123Z');
    const lastSuccessAt = new Date('2026-01-31T23:00:00.456Z');
    await database.api.prisma.webhookEndpoint.update({
      where: { id: first.id },
      data: { consecutiveFailures: 2, failingSince, lastSuccessAt },
    });
    // a secret (its bytes are never opened here): the claim carries its version, the newest creation time
    const secretCreatedAt = new Date('2026-02-03T04:05:06.789Z');
    await database.api.prisma.webhookSecret.create({
      data: {
        communityId: community.id,
        endpointId: first.id,
        keyId: 'k',
        iv: Buffer.alloc(12),
        ciphertext: Buffer.alloc(32),
        authTag: Buffer.alloc(16),
        createdAt: secretCreatedAt,
      },
    });
    const ids = await events(community.id, 2, 'tweet.created', 'req-relay-claims');

    const relayed = await relay(database.store, { ...WIDE, claims: 3 });

    // the FIFO endpoint's attempts are never claimed here (its head is claimed in queue order)
    expect(relayed.map((e) => e.claims.map((c) => c.endpointId))).toEqual([
      [first.id, second.id],
      [first.id],
    ]);
    const rows = await database.api.prisma.webhookDelivery.findMany({ where: { messageId: { in: ids } } });
    const startedOf = (messageId: string, endpointId: string) =>
      rows.find((r) => r.messageId === messageId && r.endpointId === endpointId)!.startedAt;
    expect(startedOf(ids[0], first.id)).not.toBeNull();
    expect(startedOf(ids[0], second.id)).not.toBeNull();
    expect(startedOf(ids[1], first.id)).not.toBeNull();
    expect(startedOf(ids[1], second.id)).toBeNull();
    expect(startedOf(ids[0], fifo.id)).toBeNull();
    const [claim] = relayed[0].claims;
    expect(claim.claim).toMatchObject({
      deliveryId: rows.find((r) => r.messageId === ids[0] && r.endpointId === first.id)!.id,
      requestId: 'req-relay-claims',
      traceparent: null,
      endpoint: {
        url: first.url,
        is_active: true,
        disabled_at: null,
        ordering: 'unordered',
        rate_limit: null,
        retry_schedule_ms: [],
        timeout_ms: null,
        custom_headers: null,
        consecutive_failures: 2,
        failing_since: failingSince,
        last_success_at: lastSuccessAt,
      },
    });
    expect(claim.claim.secretsVersion).toBe(secretCreatedAt.getTime());
    expect(relayed[0].claims[1].claim.secretsVersion).toBeNull();
  });

  it('does not claim for the endpoints it is told have no free slot, and claims the next ones instead', async () => {
    const community = await createCommunity(database.api.app);
    const full = await endpoint(community.id, ['tweet.created']);
    const free = await endpoint(community.id, ['tweet.created']);
    const ids = await events(community.id, 2);

    const relayed = await relay(database.store, { ...WIDE, claims: 2, notClaimedFor: [full.id] });

    expect(relayed.map((e) => e.claims.map((c) => c.endpointId))).toEqual([[free.id], [free.id]]);
    const claimedRows = await database.api.prisma.webhookDelivery.findMany({
      where: { messageId: { in: ids }, startedAt: { not: null } },
    });
    expect(claimedRows.map((r) => r.endpointId)).toEqual([free.id, free.id]);
  });

  it('does not claim a pair whose row already exists', async () => {
    const community = await createCommunity(database.api.app);
    const target = await endpoint(community.id, ['tweet.created']);
    const [event] = await events(community.id, 1);
    await attemptRow(community.id, target.id, event);

    const [relayed] = await relay(database.store, { ...WIDE, claims: 5 });

    expect(relayed.claims).toEqual([]);
    const [row] = await database.api.prisma.webhookDelivery.findMany({ where: { messageId: event } });
    expect(row.startedAt).toBeNull();
  });

  it('commits synchronously when it claimed, as a claim does, and without waiting for the flush otherwise', async () => {
    const community = await createCommunity(database.api.app);
    await endpoint(community.id, ['tweet.created']);
    // inside a transaction of the test's own, the setting the statement made for its commit can be read
    const pool = new Pool({ connectionString: database.db.url, max: 1 });
    const oneConnection = storeOnOneConnection(pool);
    const commitModeAfter = async (claims: number) => {
      await events(community.id, 1);
      await pool.query('BEGIN');
      try {
        const relayed = await relay(oneConnection, { ...WIDE, claims });
        const { rows } = await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
        return { claimed: relayed.flatMap((e) => e.claims).length, mode: rows[0].synchronous_commit };
      } finally {
        await pool.query('ROLLBACK');
      }
    };
    try {
      expect(await commitModeAfter(1)).toEqual({ claimed: 1, mode: 'on' });
      expect(await commitModeAfter(0)).toEqual({ claimed: 0, mode: 'off' });
    } finally {
      await pool.end();
    }
  });

  it('keeps an attempt row that already exists and still returns its pair for the queue', async () => {
    const community = await createCommunity(database.api.app);
    const target = await endpoint(community.id, ['tweet.created']);
    const [event] = await events(community.id, 1);
    const existing = await attemptRow(community.id, target.id, event, 'SUCCESS');

    const relayed = await relay(database.store, WIDE);

    expect(relayed.map((e) => e.endpointIds)).toEqual([[target.id]]);
    const rows = await database.api.prisma.webhookDelivery.findMany({ where: { messageId: event } });
    expect(rows.map((r) => [r.id, r.status])).toEqual([[existing.id, 'SUCCESS']]);
  });

  it('locks at most `rows` events and stops taking them once `attempts` would be exceeded, always taking one', async () => {
    const community = await createCommunity(database.api.app);
    for (let n = 0; n < 3; n++) await endpoint(community.id, ['tweet.created']);
    const ids = await events(community.id, 6);

    // 3 attempts per event: 3 + 3 fit in 7, a third event would make 9
    expect(
      (await relay(database.store, { rows: 200, attempts: 7, claims: 0 })).map((e) => e.messageId),
    ).toEqual(ids.slice(0, 2));
    expect(await relayedIds(ids)).toEqual(ids.slice(0, 2));
    // one event alone is wider than the budget: it is still taken, alone
    expect(
      (await relay(database.store, { rows: 200, attempts: 2, claims: 0 })).map((e) => e.messageId),
    ).toEqual([ids[2]]);
    // the row lock bounds the batch below the budget
    expect(
      (await relay(database.store, { rows: 2, attempts: 5_000, claims: 0 })).map((e) => e.messageId),
    ).toEqual(ids.slice(3, 5));
    expect(await database.api.prisma.webhookDelivery.count({ where: { messageId: { in: ids } } })).toBe(15);
    expect((await relay(database.store, WIDE)).map((e) => e.messageId)).toEqual([ids[5]]);
  });

  it('relays every event exactly once when several relays run at the same time', async () => {
    const community = await createCommunity(database.api.app);
    const targets = [
      await endpoint(community.id, ['tweet.created']),
      await endpoint(community.id, ['tweet.created']),
    ];
    const ids = Array.from({ length: 400 }, () => `msg_${randomUUID()}`);
    await database.api.prisma.outboxEvent.createMany({
      data: ids.map((messageId) => ({
        communityId: community.id,
        messageId,
        eventType: 'tweet.created',
        payload: { id: messageId },
      })),
    });

    // eight relays taking small batches side by side until the outbox is empty
    const taken = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const mine: string[] = [];
        for (;;) {
          const batch = await relay(database.store, { rows: 10, attempts: 5_000, claims: 0 });
          if (batch.length === 0) return mine;
          mine.push(...batch.map((e) => e.messageId));
        }
      }),
    );

    const all = taken.flat();
    expect(all).toHaveLength(ids.length);
    expect(new Set(all)).toEqual(new Set(ids));
    // more than one relay took part, so the locks, not the turn order, kept the events apart
    expect(taken.filter((mine) => mine.length > 0).length).toBeGreaterThan(1);
    expect(
      await database.api.prisma.webhookDelivery.count({ where: { messageId: { in: ids }, attempt: 1 } }),
    ).toBe(ids.length * targets.length);
  });
});
