// The delivery log's retention at scale (docs/api.md#retention-of-the-delivery-log): the compiled
// DeliveryLogRetention, as the worker runs it, on BENCH_RETENTION_ATTEMPTS attempts (default 1,000,000)
// spread evenly over 100 days in BENCH_RETENTION_COMMUNITIES communities (default 100, one endpoint each,
// PRO: 90 days kept). Then three cycles of a day: a day's worth of new attempts, the clock a day on, one
// prune (a day past retention), VACUUM (what autovacuum does on its own schedule). Prints one JSON line:
// the first prune (the 10 days already past), each cycle's prune time and rows, the table's on-disk size
// after each cycle and the ratio of the third to the first (the claim: deletes keep it flat).
//
//   npm run build && node bench/delivery-log-retention.mjs
//
// Not a ratio to a floor: there is no floor for retention; the targets are absolute (one day's prune
// in < 5 s, the size after three cycles within 10% of after one).
import { performance } from 'node:perf_hooks';
import { benchEnvironment, compiled, seedEndpoints } from './lib/delivery-harness.mjs';

const ATTEMPTS = Number(process.env.BENCH_RETENTION_ATTEMPTS ?? 1_000_000);
const COMMUNITIES = Number(process.env.BENCH_RETENTION_COMMUNITIES ?? 100);
const DAYS = 100;
const DAY_MS = 24 * 3600_000;
const CYCLES = 3;
const BATCH = 100_000;

/** `count` attempts of the bench's endpoints, the n-th written `dayOffset + n / count × span` days ago. */
async function insertAttempts(db, count, newestDaysAgo, spanDays, tag) {
  for (let done = 0; done < count; done += BATCH) {
    const rows = Math.min(BATCH, count - done);
    await db.query(
      `INSERT INTO webhook_deliveries (id, community_id, endpoint_id, message_id, event_type, attempt, status,
                                       response_status, duration_ms, created_at, updated_at)
       SELECT gen_random_uuid(), e.community_id, e.id, 'msg_' || $5 || '_' || n, 'tweet.created', 1,
              CASE WHEN n % 10 = 0 THEN 'FAILED' ELSE 'SUCCESS' END::"DeliveryStatus", 200, 5,
              now() - ($3 + (n::float8 / $4) * $6) * interval '1 day', now()
         FROM generate_series($1::int, $2::int) n
         JOIN (SELECT community_id, id, row_number() OVER (ORDER BY id) - 1 AS k FROM webhook_endpoints) e
           ON e.k = n % $7`,
      [done, done + rows - 1, newestDaysAgo, count, tag, spanDays, COMMUNITIES],
    );
  }
}

async function tableMiB(db) {
  const { rows } = await db.query(`SELECT pg_total_relation_size('webhook_deliveries') AS bytes`);
  return Math.round(Number(rows[0].bytes) / 1048576);
}

const env = await benchEnvironment();
try {
  for (let c = 0; c < COMMUNITIES; c++) await seedEndpoints(env.db, 1, 'http://127.0.0.1:9/retention');
  const seeded = performance.now();
  await insertAttempts(env.db, ATTEMPTS, 0, DAYS, 'seed');
  await env.db.query('VACUUM ANALYZE webhook_deliveries');
  const seedSeconds = (performance.now() - seeded) / 1000;

  const { loadConfig } = compiled('config/app-config.js');
  const { PrismaService } = compiled('prisma/prisma.service.js');
  const { DeliveryLogRetention } = compiled('modules/webhooks/worker/delivery-log-retention.service.js');
  const { DeliveryLogRetentionStore } = compiled('modules/webhooks/worker/delivery-log-retention.store.js');
  const { config } = loadConfig({ ...process.env, NODE_ENV: 'development', DATABASE_URL: env.databaseUrl });
  const prisma = new PrismaService(config);
  const retention = new DeliveryLogRetention(new DeliveryLogRetentionStore(prisma), config);
  const timed = async (now) => {
    const started = performance.now();
    const deleted = await retention.prune(now);
    return { seconds: Number(((performance.now() - started) / 1000).toFixed(2)), deleted };
  };
  try {
    const first = await timed(new Date());
    await env.db.query('VACUUM webhook_deliveries');
    const cycles = [];
    for (let day = 1; day <= CYCLES; day++) {
      // a day's worth of attempts, written "day" days ahead of the seed's newest
      await insertAttempts(env.db, Math.round(ATTEMPTS / DAYS), -day, 1, `day${day}`);
      const prune = await timed(new Date(Date.now() + day * DAY_MS));
      await env.db.query('VACUUM webhook_deliveries');
      cycles.push({ ...prune, tableMiB: await tableMiB(env.db) });
    }
    const growth = Number((cycles[CYCLES - 1].tableMiB / cycles[0].tableMiB).toFixed(3));
    console.log(
      JSON.stringify({
        benchmark: 'delivery-log-retention',
        date: new Date().toISOString().slice(0, 10),
        attempts: ATTEMPTS,
        communities: COMMUNITIES,
        seedSeconds: Number(seedSeconds.toFixed(1)),
        firstPrune: first,
        cycles,
        sizeAfterThirdToFirst: growth,
        targets: "one day's prune < 5 s, the size after three cycles within 10% of after one",
        pass: cycles.every((c) => c.seconds < 5) && Math.abs(growth - 1) <= 0.1,
      }),
    );
  } finally {
    await prisma.$disconnect();
    await prisma.pool.end().catch(() => undefined);
  }
} finally {
  await env.drop();
}
