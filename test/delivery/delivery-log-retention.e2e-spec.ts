import type { Plan } from '../../src/generated/prisma/enums';
import { DeliveryLogRetention } from '../../src/modules/webhooks/worker/delivery-log-retention.service';
import { DeliveryLogRetentionStore } from '../../src/modules/webhooks/worker/delivery-log-retention.store';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { createIsolatedDatabase, IsolatedDatabase } from '../utils/isolated-database';
import { createEndpoint, DELIVERY_TEST_ENV } from '../utils/worker';

const DAY = 24 * 3600_000;

/** Retention of the delivery log (docs/api.md#retention-of-the-delivery-log), with the defaults: 90 days, 30 on FREE. */
describe('delivery log retention', () => {
  let db: IsolatedDatabase;
  let api: TestApp;
  let retention: DeliveryLogRetention;
  // a database of its own, whose statistics no other file changes: the run's shared database is
  // analysed by other files while its log is small, and a chunk planned from those statistics read
  // its endpoint's recent attempts once per candidate
  // (bench/README.md#retention-of-the-delivery-log-benchdelivery-log-retentionmjs); with autovacuum on,
  // production's are kept current
  beforeAll(async () => {
    db = await createIsolatedDatabase('retention');
    api = await createTestApp({
      ...DELIVERY_TEST_ENV,
      DATABASE_URL: db.url,
      REDIS_KEY_PREFIX: db.redisKeyPrefix,
    });
    retention = new DeliveryLogRetention(new DeliveryLogRetentionStore(api.prisma), api.config);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  });

  /** A community on `plan` with an endpoint and an owner's token. */
  async function endpointOn(plan: Plan) {
    const { community, token } = await memberWithToken(api.app, { plan });
    const endpoint = await createEndpoint(api, community.id, {
      url: 'http://127.0.0.1:9/retention',
      events: ['tweet.created'],
      isActive: false,
    });
    return { communityId: community.id, endpointId: endpoint.id, token };
  }

  /** Attempts of one message at the endpoint, written `daysAgo` each (as the relay, retries and resends would). */
  async function message(
    at: { communityId: string; endpointId: string },
    attempts: { daysAgo: number; status: 'PENDING' | 'SUCCESS' | 'FAILED' }[],
  ) {
    const messageId = `msg_${unique('r').replace(/[^0-9A-Za-z]/g, '')}`;
    await api.prisma.webhookDelivery.createMany({
      data: attempts.map((a, i) => ({
        communityId: at.communityId,
        endpointId: at.endpointId,
        messageId,
        eventType: 'tweet.created',
        attempt: i + 1,
        status: a.status,
        createdAt: new Date(Date.now() - a.daysAgo * DAY),
      })),
    });
    return messageId;
  }

  const left = async (endpointId: string) =>
    (
      await api.prisma.webhookDelivery.findMany({
        where: { endpointId },
        select: { messageId: true, attempt: true },
        orderBy: [{ messageId: 'asc' }, { attempt: 'asc' }],
      })
    ).map((d) => `${d.messageId}#${d.attempt}`);

  it('deletes the messages whose every attempt is past retention, on both sides of the cutoff, and never a PENDING one', async () => {
    const pro = await endpointOn('PRO');
    const free = await endpointOn('FREE');
    const gone = await message(pro, [
      { daysAgo: 100, status: 'FAILED' },
      { daysAgo: 99, status: 'SUCCESS' },
    ]);
    const justPast = await message(pro, [{ daysAgo: 90.01, status: 'SUCCESS' }]);
    const justInside = await message(pro, [{ daysAgo: 89.99, status: 'SUCCESS' }]);
    // first attempt past retention, its resend not: the message stays whole
    const straddling = await message(pro, [
      { daysAgo: 100, status: 'FAILED' },
      { daysAgo: 10, status: 'SUCCESS' },
    ]);
    const pending = await message(pro, [{ daysAgo: 120, status: 'PENDING' }]);
    const pendingRetry = await message(pro, [
      { daysAgo: 120, status: 'FAILED' },
      { daysAgo: 119, status: 'PENDING' },
    ]);
    const freeGone = await message(free, [{ daysAgo: 31, status: 'SUCCESS' }]);
    const freeKept = await message(free, [{ daysAgo: 29, status: 'FAILED' }]);
    const goneIds = (
      await api.prisma.webhookDelivery.findMany({ where: { messageId: gone }, select: { id: true } })
    ).map((d) => d.id);

    expect(await retention.prune()).toBeGreaterThanOrEqual(4);

    expect(await left(pro.endpointId)).toEqual(
      [
        `${justInside}#1`,
        `${straddling}#1`,
        `${straddling}#2`,
        `${pending}#1`,
        `${pendingRetry}#1`,
        `${pendingRetry}#2`,
      ].sort(),
    );
    expect(await left(free.endpointId)).toEqual([`${freeKept}#1`]);
    // PRO past 90 days, FREE past 30: no attempt of theirs anywhere
    expect(
      await api.prisma.webhookDelivery.count({ where: { messageId: { in: [gone, justPast, freeGone] } } }),
    ).toBe(0);

    // the log's totals follow (its counters are kept by the table's triggers), and a removed delivery is gone
    const log = await call(
      api.app,
      'GET',
      `/api/communities/${pro.communityId}/webhooks/${pro.endpointId}/deliveries`,
      {
        token: pro.token,
      },
    );
    expect(log.body.data.total).toBe(6);
    await api.prisma.webhookEndpoint.update({ where: { id: pro.endpointId }, data: { isActive: true } });
    const resend = await call(
      api.app,
      'POST',
      `/api/communities/${pro.communityId}/webhooks/${pro.endpointId}/deliveries/${goneIds[0]}/resend`,
      { token: pro.token, body: {} },
    );
    expect(resend.status).toBe(404);
  });

  it("has autovacuum reclaim a day's deletes and analyse a day's changes, not wait for a fifth of the table", async () => {
    // the settings autovacuum applies to the table: its own storage parameters, else the server's
    const [settings] = await api.prisma.$queryRaw<
      { vacuumScale: number; vacuumRows: number; analyzeScale: number; analyzeRows: number }[]
    >`
      WITH own AS (
        SELECT split_part(o, '=', 1) AS name, split_part(o, '=', 2) AS value
          FROM pg_class c, unnest(coalesce(c.reloptions, '{}')) o
         WHERE c.oid = 'webhook_deliveries'::regclass
      ), setting AS (
        SELECT s.name, coalesce(own.value, s.setting)::float8 AS value
          FROM pg_settings s LEFT JOIN own ON own.name = s.name
         WHERE s.name IN ('autovacuum_vacuum_scale_factor', 'autovacuum_vacuum_threshold',
                          'autovacuum_analyze_scale_factor', 'autovacuum_analyze_threshold')
      )
      SELECT (SELECT value FROM setting WHERE name = 'autovacuum_vacuum_scale_factor') AS "vacuumScale",
             (SELECT value FROM setting WHERE name = 'autovacuum_vacuum_threshold') AS "vacuumRows",
             (SELECT value FROM setting WHERE name = 'autovacuum_analyze_scale_factor') AS "analyzeScale",
             (SELECT value FROM setting WHERE name = 'autovacuum_analyze_threshold') AS "analyzeRows"`;
    // PostgreSQL's rule: a table is vacuumed once its dead rows exceed threshold + scale factor × rows
    // (analysed likewise, counting inserted, updated and deleted rows); a day's prune at the 90 days'
    // retention deletes 1/90 of the log, the log's day of inserts adds as many
    for (const rows of [1_000_000, 10_000_000]) {
      const day = rows / 90;
      expect(day).toBeGreaterThan(settings.vacuumRows + settings.vacuumScale * rows);
      expect(day).toBeGreaterThan(settings.analyzeRows + settings.analyzeScale * rows);
    }
  });

  it('walks past a chunk of messages it must keep to the old ones behind it', async () => {
    const pro = await endpointOn('PRO');
    // 5,001 messages older than the cutoff whose retries are recent (more than one chunk), then one to delete
    await api.prisma.$executeRaw`
      INSERT INTO webhook_deliveries (id, community_id, endpoint_id, message_id, event_type, attempt, status,
                                      created_at, updated_at)
      SELECT gen_random_uuid(), ${pro.communityId}::uuid, ${pro.endpointId}::uuid, 'msg_kept' || n, 'tweet.created',
             a, 'FAILED', now() - CASE a WHEN 1 THEN interval '200 days' + n * interval '1 second'
                                          ELSE interval '1 day' END, now()
        FROM generate_series(1, 5001) n, generate_series(1, 2) a`;
    const behind = await message(pro, [{ daysAgo: 150, status: 'SUCCESS' }]);

    await retention.prune();

    const remaining = await left(pro.endpointId);
    expect(remaining).toHaveLength(10_002);
    expect(remaining).not.toContain(`${behind}#1`);
  });

  it('pauses after every chunk that deleted, so a large prune leaves the database to the deliveries', async () => {
    const pro = await endpointOn('PRO');
    // 2,500 messages past retention: three chunks that delete
    await api.prisma.$executeRaw`
      INSERT INTO webhook_deliveries (id, community_id, endpoint_id, message_id, event_type, attempt, status,
                                      created_at, updated_at)
      SELECT gen_random_uuid(), ${pro.communityId}::uuid, ${pro.endpointId}::uuid, 'msg_paced' || n, 'tweet.created',
             1, 'SUCCESS', now() - interval '200 days' + n * interval '1 second', now()
        FROM generate_series(1, 2500) n`;
    const pauses: number[] = [];
    const pause = jest
      .spyOn(retention as unknown as { pause(ms: number): Promise<void> }, 'pause')
      .mockImplementation((ms: number) => {
        pauses.push(ms);
        return Promise.resolve();
      });
    try {
      expect(await retention.prune()).toBeGreaterThanOrEqual(2_500);
    } finally {
      pause.mockRestore();
    }
    expect(await left(pro.endpointId)).toEqual([]);
    expect(pauses.length).toBeGreaterThanOrEqual(3);
    expect(pauses.every((ms) => ms >= 0)).toBe(true);
  });
});
