// Benchmark: deliveries to receivers behind enterprise doors (docs/api.md#receivers-behind-enterprise-doors).
// One worker delivers the same events to ten endpoints twice in one invocation: straight out with no
// OAuth (the reference), then through Debian's squid (WEBHOOK_EGRESS_PROXY, a CONNECT tunnel per
// connection) with every endpoint set to OAuth 2.0 client credentials against a token endpoint served by the
// bench (one token per endpoint, kept for every worker: each delivery carries a cached token). Prints one
// JSON line: both rates (first receipt to last recorded, as bench/delivery-throughput.mjs counts them), their
// ratio (target ≥ 0.8), the token requests and squid's tunnels, the worker's and squid's CPU per delivery.
// With the floor present (bench/README.md#the-floor-and-running-without-it) its `deliver` round of as many
// jobs runs first, and the reference's ratio to it is printed beside.
//
//   npm run build && node bench/enterprise-doors.mjs   # BENCH_EVENTS (10000), BENCH_ENDPOINTS (10), BENCH_ROUNDS (1)
//
// BENCH_ROUNDS runs the pair that many times, alternating, and prints the median round (a busy machine's
// load moves between two runs of half a minute each).
//
// Needs /usr/sbin/squid (apt-get install squid). BENCH_RECORD=1 appends to bench/results/enterprise-doors.jsonl.
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  benchEncryptionKey,
  benchEnvironment,
  compiled,
  countSucceeded,
  insertEvents,
  processCpuMs,
  seedEndpoints,
  startWorker,
  until,
} from './lib/delivery-harness.mjs';
import { floorPresent, ratioIfFloor, runFloor } from './lib/floor.mjs';
import { record } from './lib/record.mjs';
import { startSquid } from './lib/squid.mjs';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 10);
const TARGET = 0.8;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const WARM_UP = 500;

/** A local target answering 200; notes each webhook-id's first arrival and the requests with a Bearer token. */
async function startReceiver() {
  const firstSeen = new Map();
  let requests = 0;
  let bearer = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      if (req.headers.authorization?.startsWith('Bearer bench-token-')) bearer += 1;
      const id = req.headers['webhook-id'];
      if (!firstSeen.has(id)) firstSeen.set(id, performance.timeOrigin + performance.now());
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  let connections = 0;
  server.on('connection', () => (connections += 1));
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    firstSeen,
    connections: () => connections,
    requests: () => requests,
    bearer: () => bearer,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
  };
}

/** A client-credentials token endpoint: a new token per request, valid an hour. */
async function startTokenServer() {
  let issued = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ access_token: `bench-token-${++issued}`, token_type: 'Bearer', expires_in: 3600 }),
        ),
    );
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/token`,
    issued: () => issued,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
  };
}

/** Sets OAuth 2.0 client credentials on every endpoint of the communities, sealed as the API seals them. */
async function setOAuth(db, communityIds, tokenUrl) {
  const { SecretKeyRing } = compiled('common/crypto/secret-cipher.js');
  const { sealAuth } = compiled('modules/webhooks/core/http-transport/endpoint-auth.js');
  const ring = new SecretKeyRing([Buffer.from(benchEncryptionKey(), 'base64')]);
  const auth = sealAuth(
    ring,
    { type: 'oauth2_client_credentials', tokenUrl, clientId: 'bench', clientSecret: 'bench-client-secret' },
    null,
  );
  await db.query(
    `UPDATE webhook_endpoints SET auth = $1::jsonb, transport_version = transport_version + 1
     WHERE community_id = ANY($2::uuid[])`,
    [JSON.stringify(auth), communityIds],
  );
}

/** One run of the worker: `doors` sends through squid with OAuth, otherwise straight out without. */
async function run(doors) {
  const env = await benchEnvironment();
  const receiver = await startReceiver();
  const tokens = doors ? await startTokenServer() : null;
  const squid = doors ? await startSquid() : null;
  let worker;
  try {
    const communityIds = [];
    for (let n = 0; n < ENDPOINTS; n++)
      communityIds.push((await seedEndpoints(env.db, 1, receiver.url)).communityId);
    if (tokens) await setOAuth(env.db, communityIds, tokens.url);
    worker = await startWorker({
      DATABASE_URL: env.databaseUrl,
      REDIS_KEY_PREFIX: env.prefix,
      ...(squid ? { WEBHOOK_EGRESS_PROXY: squid.url } : {}),
    });
    // warm-up: connections, tunnels, tokens, JIT, prepared plans
    await insertEvents(env.db, communityIds, WARM_UP);
    await until('the warm-up', async () => (await countSucceeded(env.db)) >= WARM_UP, 60_000);
    const workerCpu = worker.cpuMs();
    const squidCpu = squid ? processCpuMs(squid.pid) : 0;
    const started = performance.now();
    for (let i = 0; i < EVENTS; i += 5_000)
      await insertEvents(env.db, communityIds, Math.min(5_000, EVENTS - i));
    const total = EVENTS + WARM_UP;
    await until('every delivery to arrive', async () => receiver.requests() >= total, 600_000, 5);
    await until(
      'every delivery to be recorded',
      async () => (await countSucceeded(env.db)) >= total,
      600_000,
      5,
    );
    const ended = performance.now();
    const startedAt = performance.timeOrigin + started;
    let firstReceipt = Infinity;
    for (const at of receiver.firstSeen.values()) if (at >= startedAt && at < firstReceipt) firstReceipt = at;
    const seconds = (performance.timeOrigin + ended - firstReceipt) / 1000;
    const figures = {
      deliveriesPerSecond: Math.round((EVENTS - 1) / seconds),
      seconds: Number(seconds.toFixed(2)),
      workerCpuMsPerDelivery: Number(((worker.cpuMs() - workerCpu) / EVENTS).toFixed(3)),
      workerPeakRssMiB: worker.peakRssMiB(),
      receiverRequests: receiver.requests(),
      // kept alive: far fewer than the requests (through squid, each is a tunnel)
      receiverConnections: receiver.connections(),
    };
    if (!doors) return figures;
    // squid logs a tunnel when it closes: stopping the worker closes its pools
    await worker.stop();
    worker = null;
    return {
      ...figures,
      squidCpuMsPerDelivery: Number(((processCpuMs(squid.pid) - squidCpu) / EVENTS).toFixed(3)),
      withBearerToken: receiver.bearer(),
      tokenRequests: tokens.issued(),
      squidTunnels: squid.tunnels(),
    };
  } finally {
    await worker?.stop();
    await squid?.stop();
    await tokens?.close();
    await receiver.close();
    await env.drop();
  }
}

const floor = floorPresent()
  ? await runFloor('floor-delivery.mjs', { ONLY: 'deliver', ROUNDS: '1', JOBS: String(EVENTS) })
  : null;
// rounds alternate the two runs, so a change of the machine's load falls on both; the figure is the median
const rounds = [];
for (let n = 0; n < ROUNDS; n++) {
  const plain = await run(false);
  const doors = await run(true);
  if (doors.withBearerToken !== doors.receiverRequests)
    throw new Error(`${doors.receiverRequests - doors.withBearerToken} deliveries arrived without the token`);
  rounds.push({
    plain,
    proxyAndOAuth: doors,
    ratio: ratioIfFloor(doors.deliveriesPerSecond, plain.deliveriesPerSecond),
  });
}
const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
const ratio = median(rounds.map((r) => r.ratio));
const { plain, proxyAndOAuth: doors } = rounds.find((r) => r.ratio === ratio);
const floorRate = floor ? Math.round(floor.deliveriesPerSecond) : undefined;
console.log(
  JSON.stringify({
    benchmark: 'enterprise-doors',
    date: new Date().toISOString().slice(0, 10),
    events: EVENTS,
    endpoints: ENDPOINTS,
    // the median round's figures, and every round's ratio
    plain,
    proxyAndOAuth: doors,
    ratios: rounds.map((r) => r.ratio),
    ratio,
    floor: floorRate,
    plainToFloor: ratioIfFloor(plain.deliveriesPerSecond, floorRate),
    loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
    target: `proxy + OAuth / plain >= ${TARGET}`,
    pass: ratio >= TARGET,
  }),
);
record('enterprise-doors', [
  {
    series: `${ENDPOINTS} endpoints, squid + OAuth`,
    unit: 'deliveries/s',
    events: EVENTS,
    service: doors.deliveriesPerSecond,
    plain: plain.deliveriesPerSecond,
    // to the same run without proxy and OAuth, not to the floor
    ratioToPlain: ratio,
    target: `>= ${TARGET} of plain`,
    floor: floorRate,
    tokenRequests: doors.tokenRequests,
  },
]);
