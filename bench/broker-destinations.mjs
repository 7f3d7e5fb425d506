// Broker destinations (docs/api.md#broker-destinations): how fast ONE worker process publishes the
// deliveries of one rabbitmq endpoint and of one nats endpoint, each beside its floor measured in the
// same invocation (bench/lib/broker-floor.mjs: a bare amqplib / nats script publishing bodies of the
// same size with the same confirms and the same number in flight). For each broker, in turn:
//   1. the floor: BENCH_EVENTS messages to the bench's own exchange + queue (or stream), after a warm-up;
//   2. the service: one endpoint of that type in a throw-away database, the real worker (dist/), 500
//      events of warm-up, then BENCH_EVENTS events committed to the outbox; each delivery is a publish
//      recorded SUCCESS at the broker's confirm (the stream's ack). Its rate is counted as the floor's,
//      first confirmed attempt to last (the attempts' updated_at in the log, PostgreSQL's clock);
//      the queue (stream) is then checked to hold every message.
// Prints one JSON line: per broker, service, floor and their ratio (target >= 0.7), the worker's and
// the floor's CPU per message, the publishes the worker had in flight on average (the attempts'
// duration_ms over the run's seconds; the floor keeps IN_FLIGHT) and the load average.
//
//   npm run build && node bench/broker-destinations.mjs
//   # BENCH_EVENTS (5000), BENCH_BROKERS (rabbitmq,nats), BENCH_RABBITMQ_URL, BENCH_NATS_URL,
//   # WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT (10: the worker's and the floor's messages in flight)
//   BENCH_FLOOR_LOG=1 node bench/broker-destinations.mjs
//
// also runs, after each floor, the floor with an attempt log (INSERT PENDING, publish, UPDATE SUCCESS,
// as the http floor's `deliver` round keeps one) and prints the service's ratio to it beside: a
// reference for where the difference goes, not the bar.
//
// The exchange, queue and stream have random names and are deleted at the end, as is the database.
// BENCH_RECORD=1 (or --record) appends the run to bench/results/broker-destinations.jsonl.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import {
  benchEncryptionKey,
  benchEnvironment,
  compiled,
  insertEvents,
  seedEndpoints,
  startWorker,
  until,
} from './lib/delivery-harness.mjs';
import { runBrokerFloor } from './lib/broker-floor.mjs';
import { ratio } from './lib/floor.mjs';
import { record } from './lib/record.mjs';

const require = createRequire(import.meta.url);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5_000);
const WARMUP = 500;
/** The worker's cap for one endpoint (its default), and so the floor's messages in flight. */
const IN_FLIGHT = Number(process.env.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT ?? 10);
const BROKERS = (process.env.BENCH_BROKERS ?? 'rabbitmq,nats').split(',');
const RABBITMQ_URL = process.env.BENCH_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const TARGET_RATIO = 0.7;
const suffix = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

/** A durable queue bound to a direct exchange, as a customer's would be; persistent messages reach its disk. */
async function rabbitTarget() {
  const model = await require('amqplib').connect(RABBITMQ_URL);
  const ch = await model.createChannel();
  const exchange = `bench-ex-${suffix}`;
  const queue = `bench-q-${suffix}`;
  const routingKey = `bench.${suffix}`;
  await ch.assertExchange(exchange, 'direct', { durable: true });
  await ch.assertQueue(queue, { durable: true });
  await ch.bindQueue(queue, exchange, routingKey);
  return {
    url: RABBITMQ_URL,
    floorEnv: { EXCHANGE: exchange, ROUTING_KEY: routingKey },
    names: { exchange, routingKey },
    messages: async () => (await ch.checkQueue(queue)).messageCount,
    /** the size of the oldest message's body (taken off the queue) */
    bodyBytes: async () => (await ch.get(queue, { noAck: true }))?.content.length,
    purge: () => ch.purgeQueue(queue),
    remove: async () => {
      await ch.deleteQueue(queue).catch(() => undefined);
      await ch.deleteExchange(exchange).catch(() => undefined);
      await model.close().catch(() => undefined);
    },
  };
}

/** A JetStream stream (file storage, the server's default) capturing one subject. */
async function natsTarget() {
  const nc = await require('nats').connect({ servers: NATS_URL.replace(/^nats:\/\//, '') });
  const jsm = await nc.jetstreamManager();
  const stream = `BENCH_${suffix}`;
  const subject = `bench_${suffix}.events`;
  await jsm.streams.add({ name: stream, subjects: [subject] });
  return {
    url: NATS_URL,
    floorEnv: { SUBJECT: subject },
    names: { subject },
    messages: async () => (await jsm.streams.info(stream)).state.messages,
    bodyBytes: async () => {
      const { state } = await jsm.streams.info(stream);
      return state.messages > 0
        ? (await jsm.streams.getMessage(stream, { seq: state.first_seq })).data.length
        : undefined;
    },
    purge: () => jsm.streams.purge(stream),
    remove: async () => {
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close().catch(() => undefined);
    },
  };
}

/** One endpoint of `broker` publishing to `target`, its url's credentials sealed as the API seals them. */
async function seedBrokerEndpoint(db, broker, target) {
  const { parseBrokerUrl, sealCredentials } = compiled(
    'modules/webhooks/core/broker-transport/broker-destination.js',
  );
  const { SecretKeyRing } = compiled('common/crypto/secret-cipher.js');
  const ring = new SecretKeyRing([Buffer.from(benchEncryptionKey(), 'base64')]);
  const { plain, credentials } = parseBrokerUrl(broker, target.url, true);
  const { communityId, endpointIds } = await seedEndpoints(db, 1, plain);
  const destination = { type: broker, ...target.names, credentials: sealCredentials(ring, credentials) };
  // transport_version 1: the worker loads the destination for a claim, as after an API create
  await db.query(
    `UPDATE webhook_endpoints SET type = $2, destination = $3::jsonb, transport_version = 1 WHERE id = $1`,
    [endpointIds[0], broker, JSON.stringify(destination)],
  );
  return { communityId, endpointId: endpointIds[0] };
}

async function succeeded(db, endpointId) {
  const { rows } = await db.query(
    `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'SUCCESS'`,
    [endpointId],
  );
  return rows[0].n;
}

/** `count` events of the endpoint's community, 5,000 per transaction; answers the last id. */
async function raise(db, communityId, count) {
  let last;
  for (let i = 0; i < count; i += 5_000)
    last = (await insertEvents(db, communityId, Math.min(5_000, count - i))).at(-1);
  return last;
}

/** The service's run for one endpoint: warm-up, then EVENTS events timed from first confirm to last. */
async function service(db, worker, endpoint, target) {
  // message ids are monotonic ULIDs: the measured events' sort after the warm-up's last
  const afterWarmup = await raise(db, endpoint.communityId, WARMUP);
  await until('the warm-up', async () => (await succeeded(db, endpoint.endpointId)) >= WARMUP, 60_000, 50);
  await target.purge();
  const cpuBefore = worker.cpuMs();
  await raise(db, endpoint.communityId, EVENTS);
  // the log is asked every 100 ms: the timing is the log's own (updated_at), not this poll's
  await until(
    'every delivery to be confirmed',
    async () => (await succeeded(db, endpoint.endpointId)) >= WARMUP + EVENTS,
    600_000,
    100,
  );
  const cpuMs = worker.cpuMs() - cpuBefore;
  const { rows } = await db.query(
    `SELECT count(*)::int AS n, extract(epoch FROM max(updated_at) - min(updated_at))::float8 AS seconds,
            percentile_disc(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
            percentile_disc(0.99) WITHIN GROUP (ORDER BY duration_ms) AS p99,
            sum(duration_ms)::float8 / 1000 AS "publishSeconds",
            (SELECT count(*)::int FROM webhook_deliveries WHERE endpoint_id = $1 AND status <> 'SUCCESS') AS failed
       FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'SUCCESS' AND message_id COLLATE "C" > $2`,
    [endpoint.endpointId, afterWarmup],
  );
  const r = rows[0];
  const inBroker = await target.messages();
  if (r.n !== EVENTS || inBroker !== EVENTS)
    throw new Error(`expected ${EVENTS} confirmed messages: the log has ${r.n}, the broker ${inBroker}`);
  return {
    messagesPerSecond: Math.round((EVENTS - 1) / r.seconds),
    seconds: Number(r.seconds.toFixed(2)),
    publishP50Ms: r.p50,
    publishP99Ms: r.p99,
    // the publishes (sign + publish + confirm) in flight on average: the floor keeps IN_FLIGHT all along
    meanPublishesInFlight: Number((r.publishSeconds / r.seconds).toFixed(1)),
    failedAttempts: r.failed,
    workerCpuMsPerMessage: Number((cpuMs / EVENTS).toFixed(3)),
    workerPeakRssMiB: worker.peakRssMiB(),
    bodyBytes: await target.bodyBytes(),
  };
}

const targets = {};
const env = await benchEnvironment();
let worker;
const results = {};
try {
  for (const broker of BROKERS)
    targets[broker] = broker === 'rabbitmq' ? await rabbitTarget() : await natsTarget();
  const endpoints = {};
  for (const broker of BROKERS) endpoints[broker] = await seedBrokerEndpoint(env.db, broker, targets[broker]);
  worker = await startWorker({ DATABASE_URL: env.databaseUrl, REDIS_KEY_PREFIX: env.prefix });
  for (const broker of BROKERS) {
    const target = targets[broker];
    const floorEnv = {
      BROKER: broker,
      URL: target.url,
      MESSAGES: String(EVENTS),
      IN_FLIGHT: String(IN_FLIGHT),
      WARMUP: String(WARMUP),
      ...target.floorEnv,
    };
    const floor = await runBrokerFloor(floorEnv);
    const floorWithLog = process.env.BENCH_FLOOR_LOG
      ? await runBrokerFloor({ ...floorEnv, LOG_DATABASE_URL: env.databaseUrl })
      : undefined;
    const measured = await service(env.db, worker, endpoints[broker], target);
    results[broker] = {
      service: measured,
      floor,
      ratio: ratio(measured.messagesPerSecond, floor.messagesPerSecond),
      ...(floorWithLog && {
        floorWithLog,
        ratioToFloorWithLog: ratio(measured.messagesPerSecond, floorWithLog.messagesPerSecond),
      }),
    };
    process.stderr.write(`${broker}: ${JSON.stringify(results[broker])}\n`);
  }
} finally {
  await worker?.stop();
  for (const target of Object.values(targets)) await target.remove();
  await env.drop();
}

console.log(
  JSON.stringify({
    benchmark: 'broker-destinations',
    date: new Date().toISOString().slice(0, 10),
    events: EVENTS,
    inFlight: IN_FLIGHT,
    ...results,
    loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
    target: `service / floor >= ${TARGET_RATIO} per broker`,
    pass: Object.values(results).every((r) => r.ratio >= TARGET_RATIO),
  }),
);
record(
  'broker-destinations',
  Object.entries(results).map(([broker, r]) => ({
    series: `${broker}, one endpoint`,
    unit: 'messages/s',
    events: EVENTS,
    inFlight: IN_FLIGHT,
    service: r.service.messagesPerSecond,
    floor: r.floor.messagesPerSecond,
    ratio: r.ratio,
    target: `>= ${TARGET_RATIO}`,
    p50Ms: r.service.publishP50Ms,
    p99Ms: r.service.publishP99Ms,
    meanPublishesInFlight: r.service.meanPublishesInFlight,
    workerCpuMsPerMessage: r.service.workerCpuMsPerMessage,
    peakRssMiB: r.service.workerPeakRssMiB,
    floorPeakRssMiB: r.floor.peakRssMiB,
    floorCpuMsPerMessage: r.floor.cpuMsPerMessage,
    floorWithLog: r.floorWithLog?.messagesPerSecond,
    ratioToFloorWithLog: r.ratioToFloorWithLog,
  })),
);
