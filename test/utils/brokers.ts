import { type ChannelModel, connect as amqpConnect } from 'amqplib';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { connect as natsConnect, type JetStreamManager, type NatsConnection } from 'nats';
import { createTestApp, type TestApp } from './app';
import { unique } from './factories';
import { DELIVERY_TEST_ENV, startTestWorker, type TestWorker } from './worker';

/** The brokers running on the test machine (docs/operations.md#broker-destinations). */
export const RABBITMQ_URL = process.env.TEST_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
export const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** One message as a consumer of the test's queue or stream got it. */
export interface ConsumedMessage {
  body: string;
  headers: Record<string, string>;
  /** when the stream stored it (NATS only) */
  storedAt?: Date;
  /** AMQP delivery mode: 2 is persistent (RabbitMQ only) */
  deliveryMode?: number;
}

/** An exchange and a queue bound to it with a routing key, with random names, deleted by `remove`. */
export interface RabbitTarget {
  exchange: string;
  routingKey: string;
  queue: string;
  /** the messages in the queue now, taken off it */
  take: () => Promise<ConsumedMessage[]>;
  remove: () => Promise<void>;
}

export async function rabbitTarget(): Promise<RabbitTarget> {
  const model: ChannelModel = await amqpConnect(RABBITMQ_URL);
  const ch = await model.createChannel();
  const exchange = unique('wh-ex');
  const queue = unique('wh-q');
  const routingKey = unique('wh.rk');
  await ch.assertExchange(exchange, 'direct', { durable: false, autoDelete: false });
  await ch.assertQueue(queue, { durable: true });
  await ch.bindQueue(queue, exchange, routingKey);
  return {
    exchange,
    routingKey,
    queue,
    take: async () => {
      const got: ConsumedMessage[] = [];
      for (;;) {
        const msg = await ch.get(queue, { noAck: true });
        if (!msg) return got;
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(msg.properties.headers ?? {}))
          headers[name] = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
        got.push({ body: msg.content.toString('utf8'), headers, deliveryMode: msg.properties.deliveryMode });
      }
    },
    remove: async () => {
      await ch.deleteQueue(queue).catch(() => undefined);
      await ch.deleteExchange(exchange).catch(() => undefined);
      await model.close().catch(() => undefined);
    },
  };
}

/** A JetStream stream capturing one random subject, deleted by `remove`. */
export interface NatsTarget {
  stream: string;
  subject: string;
  /** every message the stream holds */
  messages: () => Promise<ConsumedMessage[]>;
  remove: () => Promise<void>;
}

export async function natsTarget(): Promise<NatsTarget> {
  const nc: NatsConnection = await natsConnect({ servers: NATS_URL.replace(/^nats:\/\//, '') });
  const jsm: JetStreamManager = await nc.jetstreamManager();
  const stream = unique('WH').replace(/[^A-Za-z0-9_-]/g, '_');
  const subject = `${unique('wh').replace(/[^A-Za-z0-9_-]/g, '_')}.events`;
  await jsm.streams.add({ name: stream, subjects: [subject] });
  return {
    stream,
    subject,
    messages: async () => {
      const info = await jsm.streams.info(stream);
      const got: ConsumedMessage[] = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const msg = await jsm.streams.getMessage(stream, { seq });
        const headers: Record<string, string> = {};
        for (const name of msg.header?.keys() ?? []) headers[name.toLowerCase()] = msg.header.get(name);
        got.push({ body: new TextDecoder().decode(msg.data), headers, storedAt: msg.time });
      }
      return got;
    },
    remove: async () => {
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close().catch(() => undefined);
    },
  };
}

/**
 * A TCP relay in front of a broker, on a port of its own: the test stops it (the broker is unreachable,
 * open connections cut) and starts it again on the same port, and counts the connections through it.
 */
export interface BrokerRelay {
  port: number;
  open: () => number;
  stop: () => Promise<void>;
  start: () => Promise<void>;
}

export async function brokerRelay(target: { host: string; port: number }): Promise<BrokerRelay> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = createConnection(target.port, target.host);
        sockets.add(client);
        const end = () => {
          sockets.delete(client);
          client.destroy();
          upstream.destroy();
        };
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  await start();
  return {
    get port() {
      return port;
    },
    open: () => sockets.size,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = null;
    },
    start,
  };
}

/** A port nothing listens on (taken and given back at once). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A broker test file's API and worker (DELIVERY_TEST_ENV, started before its tests and stopped after), and
 * the removals of the exchanges, queues and streams its tests made (`cleanups`), run after both stopped.
 */
export function useBrokerStack(): { api: TestApp; worker: TestWorker; cleanups: (() => Promise<void>)[] } {
  const stack = { cleanups: [] } as unknown as {
    api: TestApp;
    worker: TestWorker;
    cleanups: (() => Promise<void>)[];
  };
  beforeAll(async () => {
    stack.api = await createTestApp(DELIVERY_TEST_ENV);
    stack.worker = await startTestWorker(DELIVERY_TEST_ENV);
  });
  afterAll(async () => {
    await stack.worker?.stop();
    await stack.api?.close();
    for (const cleanup of stack.cleanups) await cleanup();
  });
  return stack;
}
