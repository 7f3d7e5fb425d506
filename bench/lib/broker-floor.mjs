// The floor of a broker destination (bench/broker-destinations.mjs): a bare script that publishes what
// the worker publishes for one endpoint, the same way, with nothing else around it: no NestJS, no
// database, no queue of jobs. Each message is a delivery-sized JSON body (the harness's tweet.created
// event) signed as Standard Webhooks (HMAC-SHA256 over `id.timestamp.body`), with the worker's message
// headers and properties, and waits for the broker's word as the worker does:
//   - rabbitmq: a persistent, mandatory message on a ConfirmChannel, done at its confirm;
//   - nats: a JetStream publish, done at the stream's ack.
// IN_FLIGHT loops publish one message after another each (the worker's WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT
// for one endpoint), after WARMUP messages outside the clock. The rate is counted first confirm to last,
// as the service's is. Run as its own process (runBrokerFloor), as the worker runs in its own:
//
//   BROKER=rabbitmq URL=amqp://guest:guest@127.0.0.1:5672 EXCHANGE=x ROUTING_KEY=k node bench/lib/broker-floor.mjs
//   BROKER=nats URL=nats://127.0.0.1:4222 SUBJECT=s.events node bench/lib/broker-floor.mjs
//   # MESSAGES (5000), IN_FLIGHT (10), WARMUP (500)
//
// With LOG_DATABASE_URL it also keeps a log as the http floor's `deliver` round does (not the bar, a
// reference beside it): each message's attempt INSERTed PENDING before its publish and UPDATEd
// SUCCESS with the ack after, in a table of its own (floor_broker_attempts) of that database.
//
// It prints one JSON line: messagesPerSecond, seconds, cpuMsPerMessage, bodyBytes, peakRssMiB.
import { spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ownChild } from './children.mjs';

const require = createRequire(import.meta.url);
const SELF = fileURLToPath(import.meta.url);
/** The worker's user-agent has this shape (name/version of package.json). */
const USER_AGENT = 'community-platform/0.0.1';

/** A delivery body as the worker sends it for the harness's events (delivery-harness.mjs insertEvents). */
export function deliveryBody(id, communityId) {
  return JSON.stringify({
    id,
    type: 'tweet.created',
    timestamp: new Date().toISOString(),
    communityId,
    data: {
      tweet: {
        id: randomUUID(),
        communityId,
        authorId: randomUUID(),
        content: 'x'.repeat(280),
        likeCount: 0,
      },
    },
  });
}

/** The message's body and headers, signed as the worker signs (one secret). */
function signedMessage(n, key, communityId) {
  const id = `msg_F${String(n).padStart(25, '0')}`; // as long as a worker's msg_<ULID>
  const body = deliveryBody(id, communityId);
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return {
    id,
    body,
    timestamp,
    headers: {
      'user-agent': USER_AGENT,
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': `v1,${signature}`,
    },
  };
}

/** A publish function for RabbitMQ resolving at the broker's confirm, and its close. */
async function rabbitPublisher(url, exchange, routingKey) {
  const amqp = require('amqplib');
  const model = await amqp.connect(url);
  const ch = await model.createConfirmChannel();
  const returned = new Set();
  ch.on('return', (msg) => returned.add(msg.properties.messageId));
  const publish = (m) =>
    new Promise((resolve, reject) => {
      ch.publish(
        exchange,
        routingKey,
        Buffer.from(m.body),
        {
          persistent: true,
          mandatory: true,
          contentType: 'application/json',
          messageId: m.id,
          type: 'tweet.created',
          timestamp: m.timestamp,
          headers: m.headers,
        },
        (err) => {
          if (err) return reject(err);
          if (returned.delete(m.id)) return reject(new Error(`unroutable: ${m.id}`));
          resolve();
        },
      );
    });
  return { publish, close: () => model.close() };
}

/** A publish function for NATS JetStream resolving at the stream's ack, and its close. */
async function natsPublisher(url, subject) {
  const { connect, headers } = require('nats');
  const nc = await connect({ servers: url.replace(/^nats:\/\//, ''), reconnect: false });
  const js = nc.jetstream();
  const publish = async (m) => {
    const h = headers();
    for (const [name, value] of Object.entries(m.headers)) h.set(name, value);
    h.set('content-type', 'application/json');
    await js.publish(subject, Buffer.from(m.body), { headers: h, timeout: 15_000 });
  };
  return { publish, close: () => nc.close() };
}

/** `count` messages by `inFlight` loops; returns the time of each confirm (ms, performance.now()). */
async function publishAll(publish, count, inFlight, key, communityId, from) {
  const confirms = [];
  let next = 0;
  const loop = async () => {
    while (next < count) {
      const n = from + next++;
      await publish(signedMessage(n, key, communityId));
      confirms.push(performance.now());
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, loop));
  return confirms;
}

/** `publish` wrapped in the http floor's attempt rows (a pg Pool of 10, the worker's pool size). */
async function withLog(publish, databaseUrl) {
  const pg = require('pg');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(
    `CREATE TABLE IF NOT EXISTS floor_broker_attempts (id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
       message_id text NOT NULL, status text NOT NULL, response text, updated_at timestamptz NOT NULL DEFAULT now())`,
  );
  const logged = async (m) => {
    const { rows } = await pool.query(
      `INSERT INTO floor_broker_attempts (message_id, status) VALUES ($1, 'PENDING') RETURNING id`,
      [m.id],
    );
    await publish(m);
    await pool.query(
      `UPDATE floor_broker_attempts SET status = 'SUCCESS', response = 'acked', updated_at = now() WHERE id = $1`,
      [rows[0].id],
    );
  };
  return { publish: logged, close: () => pool.end() };
}

async function main() {
  const env = process.env;
  const messages = Number(env.MESSAGES ?? 5_000);
  const inFlight = Number(env.IN_FLIGHT ?? 10);
  const warmup = Number(env.WARMUP ?? 500);
  const key = randomBytes(32);
  const communityId = randomUUID();
  const publisher =
    env.BROKER === 'rabbitmq'
      ? await rabbitPublisher(env.URL, env.EXCHANGE, env.ROUTING_KEY)
      : await natsPublisher(env.URL, env.SUBJECT);
  const log = env.LOG_DATABASE_URL ? await withLog(publisher.publish, env.LOG_DATABASE_URL) : null;
  const publish = log?.publish ?? publisher.publish;
  try {
    await publishAll(publish, warmup, inFlight, key, communityId, 0);
    const cpuBefore = process.cpuUsage();
    const confirms = await publishAll(publish, messages, inFlight, key, communityId, warmup);
    const seconds = (confirms[confirms.length - 1] - confirms[0]) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const status = readFileSync('/proc/self/status', 'utf8');
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)[1]);
    console.log(
      JSON.stringify({
        broker: env.BROKER,
        log: log !== null,
        messages,
        inFlight,
        messagesPerSecond: Math.round((messages - 1) / seconds),
        seconds: Number(seconds.toFixed(2)),
        cpuMsPerMessage: Number(((cpu.user + cpu.system) / 1000 / messages).toFixed(3)),
        bodyBytes: Buffer.byteLength(signedMessage(0, key, communityId).body),
        peakRssMiB: Math.round(hwm / 1024),
      }),
    );
  } finally {
    await log?.close();
    await publisher.close();
  }
}

/** Runs the floor as its own process with `env` (BROKER, URL, …); resolves with its JSON line. */
export function runBrokerFloor(env) {
  return new Promise((resolve, reject) => {
    const child = ownChild(
      spawn(process.execPath, [SELF], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const json = out
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('{'));
      if (code !== 0 || !json)
        reject(new Error(`the ${env.BROKER} floor exited ${code} without its figures`));
      else resolve(JSON.parse(json));
    });
  });
}

if (process.argv[1] === SELF) await main();
