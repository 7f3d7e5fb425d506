import type { ChannelModel, ConfirmChannel } from 'amqplib';
import type { NatsConnection } from 'nats';
import { guardedLookup } from '../delivery/delivery-agent';
import { isBlockedAddress, type ResolveAll } from '../delivery/url-safety';
import type { BrokerCredentials, StoredDestination } from './broker-destination';

/** One message as every broker gets it: the signed JSON body and its headers. */
export interface BrokerMessage {
  messageId: string;
  eventType: string;
  body: string;
  /** webhook-id, webhook-timestamp, webhook-signature, the custom headers, traceparent */
  headers: Record<string, string>;
}

/** What the broker acknowledged: the delivery log's response text. */
export type BrokerAck = string;

/** The broker refused or lost the message; the message is the attempt's error, never a credential. */
export class BrokerPublishError extends Error {}

/** A connection to one destination, shared by every delivery of its endpoint in this process. */
export interface BrokerConnection {
  publish(message: BrokerMessage, timeoutMs: number): Promise<BrokerAck>;
  /** resolves once the connection is closed; never throws */
  close(): Promise<void>;
  /** called once when the connection ends by itself (the broker went away) */
  onEnd(listener: () => void): void;
}

export interface ConnectOptions {
  url: URL;
  credentials: BrokerCredentials | null;
  destination: StoredDestination;
  resolve: ResolveAll;
  /** check the resolved address (off only with WEBHOOK_ALLOW_INSECURE_TARGETS) */
  guard: boolean;
  connectTimeoutMs: number;
  /** names the connection on the broker (RabbitMQ's connection_name, NATS's name) */
  name: string;
}

let amqplib: typeof import('amqplib') | undefined;
let nats: typeof import('nats') | undefined;

/**
 * The clients are required on the first connect, not at start: the API publishes only for the test
 * route (docs/architecture.md#what-each-process-loads).
 */
function amqp(): typeof import('amqplib') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (amqplib ??= require('amqplib') as typeof import('amqplib'));
}
function natsClient(): typeof import('nats') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (nats ??= require('nats') as typeof import('nats'));
}

export function connectBroker(options: ConnectOptions): Promise<BrokerConnection> {
  return options.destination.type === 'rabbitmq' ? connectRabbit(options) : connectNats(options);
}

/** Settles `work` or fails with `message` after `ms`; the timer never outlives it. */
export async function within<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BrokerPublishError(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * RabbitMQ: one connection and one confirm channel. The socket resolves the host through the same
 * connect-time check as an http delivery (guardedLookup), so a name that re-binds to a private address
 * is refused. Success is the broker's confirm (basic.ack); a mandatory message the exchange could
 * route to no queue comes back (basic.return, before the ack) and is a failure.
 */
async function connectRabbit(options: ConnectOptions): Promise<BrokerConnection> {
  const destination = options.destination as Extract<StoredDestination, { type: 'rabbitmq' }>;
  const url = new URL(options.url.href);
  url.username = '';
  url.password = '';
  const model: ChannelModel = await amqp().connect(
    {
      protocol: url.protocol.slice(0, -1),
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : undefined,
      vhost: url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : '/',
      username: options.credentials?.username ?? 'guest',
      password: options.credentials?.password ?? 'guest',
      heartbeat: 30,
    },
    {
      timeout: options.connectTimeoutMs,
      lookup: guardedLookup(options.resolve, options.guard),
      clientProperties: { connection_name: options.name },
    },
  );
  const ends: (() => void)[] = [];
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    for (const listener of ends) listener();
  };
  // a connection error is followed by its close; both end this destination's connection
  model.on('error', () => undefined);
  model.on('close', end);
  let channel: Promise<{
    ch: ConfirmChannel;
    state: { error: string | null; returned: Set<string> };
  }> | null = null;
  const open = () =>
    (channel ??= model.createConfirmChannel().then((ch) => {
      const state = { error: null as string | null, returned: new Set<string>() };
      // a channel error (e.g. 404 NOT_FOUND for a missing exchange) closes the channel; the next publish opens another
      ch.on('error', (err: Error) => (state.error = err.message));
      ch.on('close', () => (channel = null));
      ch.on('return', (msg: { properties: { messageId?: string } }) => {
        if (msg.properties.messageId) state.returned.add(msg.properties.messageId);
      });
      return { ch, state };
    }));
  return {
    async publish(message, timeoutMs) {
      const { ch, state } = await within(
        open(),
        timeoutMs,
        `timeout after ${timeoutMs} ms (opening a channel)`,
      );
      const confirmed = new Promise<void>((resolve, reject) => {
        ch.publish(
          destination.exchange,
          destination.routingKey,
          Buffer.from(message.body),
          {
            persistent: true,
            mandatory: true,
            contentType: 'application/json',
            messageId: message.messageId,
            type: message.eventType,
            timestamp: Number(message.headers['webhook-timestamp']),
            headers: message.headers,
          },
          (err) => (err ? reject(new BrokerPublishError(rabbitError(err, state.error))) : resolve()),
        );
      });
      await within(confirmed, timeoutMs, `timeout after ${timeoutMs} ms waiting for the broker's confirm`);
      if (state.returned.delete(message.messageId))
        throw new BrokerPublishError(
          `unroutable: exchange "${destination.exchange}" has no queue bound for routing key "${destination.routingKey}"`,
        );
      return `confirmed by RabbitMQ: exchange "${destination.exchange}", routing key "${destination.routingKey}"`;
    },
    async close() {
      ended = true;
      await model.close().catch(() => undefined);
    },
    onEnd(listener) {
      ends.push(listener);
    },
  };
}

/** The broker's words for a lost confirm: the channel's close reason when it has one. */
function rabbitError(err: Error, channelError: string | null): string {
  const reason = channelError ?? err.message;
  const missing = /no exchange '([^']*)' in vhost '([^']*)'/.exec(reason);
  if (missing) return `exchange not found: no exchange "${missing[1]}" in vhost "${missing[2]}"`;
  // a negative confirm, or the channel or connection closing under the publish
  return `publish failed: ${reason}`;
}

/**
 * NATS: the host is resolved and checked here, and the client connects to the checked address (TLS
 * still verifies the host name), so it cannot re-resolve to another one; it never reconnects by itself
 * (the next delivery connects again). Success is the stream's ack, whose sequence the log keeps.
 */
async function connectNats(options: ConnectOptions): Promise<BrokerConnection> {
  const destination = options.destination as Extract<StoredDestination, { type: 'nats' }>;
  const { url, credentials } = options;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const address = await checkedAddress(host, options);
  const port = url.port ? Number(url.port) : 4222;
  const { connect, headers } = natsClient();
  const nc: NatsConnection = await connect({
    servers: `${address.includes(':') ? `[${address}]` : address}:${port}`,
    name: options.name,
    timeout: options.connectTimeoutMs,
    reconnect: false,
    maxReconnectAttempts: 0,
    // the client's TLS options reach tls.connect: the certificate is checked against the host name
    ...(url.protocol === 'tls:' ? { tls: { servername: host } as Record<string, unknown> } : {}),
    ...(credentials
      ? credentials.password === ''
        ? { token: credentials.username }
        : { user: credentials.username, pass: credentials.password }
      : {}),
  });
  const js = nc.jetstream();
  const ends: (() => void)[] = [];
  let ended = false;
  void nc.closed().then(() => {
    if (ended) return;
    ended = true;
    for (const listener of ends) listener();
  });
  return {
    async publish(message, timeoutMs) {
      const h = headers();
      for (const [name, value] of Object.entries(message.headers)) h.set(name, value);
      h.set('content-type', 'application/json');
      try {
        const ack = await js.publish(destination.subject, Buffer.from(message.body), {
          headers: h,
          timeout: timeoutMs,
        });
        return `JetStream ack: stream "${ack.stream}", sequence ${ack.seq}${ack.duplicate ? ' (duplicate)' : ''}`;
      } catch (err) {
        const e = err as { code?: string; message?: string };
        if (e.code === '503' || /no responders/i.test(e.message ?? ''))
          throw new BrokerPublishError(`no stream for subject "${destination.subject}"`);
        if (e.code === 'TIMEOUT' || /timeout/i.test(e.message ?? ''))
          throw new BrokerPublishError(`timeout after ${timeoutMs} ms waiting for the stream's ack`);
        throw new BrokerPublishError(`publish failed: ${e.message ?? String(err)}`);
      }
    },
    async close() {
      ended = true;
      await nc.close().catch(() => undefined);
    },
    onEnd(listener) {
      ends.push(listener);
    },
  };
}

/** The host's first address, every one of them public unless the guard is off (as guardedLookup decides). */
function checkedAddress(host: string, options: ConnectOptions): Promise<string> {
  return new Promise((resolve, reject) =>
    guardedLookup(options.resolve, options.guard)(host, { all: true }, (err, addresses) => {
      if (err) return reject(err);
      const list = addresses as { address: string }[];
      const first = list[0]?.address;
      // guardedLookup refused a blocked answer already; the literal check is for an IP host
      if (!first || (options.guard && isBlockedAddress(first)))
        return reject(new BrokerPublishError(`connect refused: address check failed for ${host}`));
      resolve(first);
    }),
  );
}
