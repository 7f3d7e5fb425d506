import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import { AppConfig } from '../../../../config/app-config';
import { WEBHOOK_DNS_LOOKUP } from '../delivery/dns-lookup';
import { describeSendError } from '../delivery/send-errors';
import { type ResolveAll } from '../delivery/url-safety';
import { EndpointTransportStore } from '../http-transport/endpoint-transport.store';
import { openCredentials, parseBrokerUrl, type StoredDestination } from './broker-destination';
import {
  type BrokerAck,
  type BrokerConnection,
  type BrokerMessage,
  BrokerPublishError,
  connectBroker,
  within,
} from './broker-connections';

/** The longest a connect may take, whatever the send's timeout (as for http). */
const MAX_CONNECT_MS = 10_000;
/** How often the connections of paused, disabled or deleted endpoints are looked for and closed. */
export const BROKER_CONNECTION_CHECK_MS = 2_000;

/** One publish: where to, at which version of the endpoint's settings, and what. */
export interface BrokerPublish {
  endpointId: string;
  version: number;
  /** the url as stored: without its credentials */
  url: string;
  destination: StoredDestination;
  message: BrokerMessage;
  timeoutMs: number;
}

/** A publish's outcome: the broker's ack, or the error the log shows. */
export type BrokerOutcome = { ok: true; ack: BrokerAck } | { ok: false; error: string };

interface Held {
  version: number;
  broker: StoredDestination['type'];
  connection: Promise<BrokerConnection>;
}

/**
 * The connections to RabbitMQ and NATS destinations (docs/architecture.md#broker-destinations): one per
 * endpoint in each process, made on its first delivery and shared by all of them, replaced when the
 * endpoint's settings change (transport_version), dropped when the broker closes it (the next delivery
 * connects again), and closed when the endpoint is paused, disabled or deleted (a check every
 * BROKER_CONNECTION_CHECK_MS while any is open) and when the process stops.
 */
@Injectable()
export class BrokerTransports implements OnModuleDestroy {
  private readonly logger = new Logger(BrokerTransports.name);
  private readonly ring: SecretKeyRing;
  private readonly allowInsecure: boolean;
  private readonly connectTimeoutMs: number;
  private readonly held = new Map<string, Held>();
  private checker?: NodeJS.Timeout;
  private checking = false;

  constructor(
    config: AppConfig,
    @Inject(WEBHOOK_DNS_LOOKUP) private readonly resolve: ResolveAll,
    private readonly endpoints: EndpointTransportStore,
  ) {
    this.ring = new SecretKeyRing(config.webhookEncryptionKeys);
    this.allowInsecure = config.WEBHOOK_ALLOW_INSECURE_TARGETS;
    this.connectTimeoutMs = Math.min(config.webhookTimeoutMs, MAX_CONNECT_MS);
  }

  /** The endpoints this process holds a connection for (metrics and tests). */
  openEndpoints(): string[] {
    return [...this.held.keys()];
  }

  /** How many connections this process holds (or is opening), by broker: the worker's gauge. */
  openByBroker(): Record<StoredDestination['type'], number> {
    const counts = { rabbitmq: 0, nats: 0 };
    for (const held of this.held.values()) counts[held.broker] += 1;
    return counts;
  }

  /** Publishes one message; never throws for anything the broker or the network does. */
  async publish(input: BrokerPublish): Promise<BrokerOutcome> {
    let connection: BrokerConnection;
    try {
      // the rules of the stored url again (an IP literal's address), as an http send checks its url
      parseBrokerUrl(input.destination.type, input.url, this.allowInsecure);
      connection = await within(
        this.connection(input),
        Math.min(input.timeoutMs, this.connectTimeoutMs),
        `timeout after ${Math.min(input.timeoutMs, this.connectTimeoutMs)} ms (connect)`,
      );
    } catch (err) {
      this.forget(input.endpointId, input.version);
      return { ok: false, error: this.connectError(err, input) };
    }
    try {
      return { ok: true, ack: await connection.publish(input.message, input.timeoutMs) };
    } catch (err) {
      if (!(err instanceof BrokerPublishError)) this.forget(input.endpointId, input.version);
      else if (/^timeout/.test(err.message)) this.forget(input.endpointId, input.version);
      return { ok: false, error: err instanceof Error ? err.message : 'publish failed' };
    }
  }

  /** Closes the endpoint's connection, if this process holds one. */
  async close(endpointId: string): Promise<void> {
    const held = this.held.get(endpointId);
    if (!held) return;
    this.held.delete(endpointId);
    await held.connection.then((c) => c.close()).catch(() => undefined);
    this.logger.log({ msg: 'broker connection closed', endpointId });
  }

  private connection(input: BrokerPublish): Promise<BrokerConnection> {
    const held = this.held.get(input.endpointId);
    if (held && held.version >= input.version) return held.connection;
    if (held) void held.connection.then((c) => c.close()).catch(() => undefined);
    const { destination } = input;
    const connection = (async () => {
      const credentials = (() => {
        try {
          return openCredentials(this.ring, destination.credentials);
        } catch {
          throw new BrokerPublishError(
            "the broker url's credentials could not be decrypted: their encryption key is not in WEBHOOK_SECRET_ENCRYPTION_KEY",
          );
        }
      })();
      const opened = await connectBroker({
        url: new URL(input.url),
        credentials,
        destination,
        resolve: this.resolve,
        guard: !this.allowInsecure,
        connectTimeoutMs: this.connectTimeoutMs,
        name: `webhook-endpoint:${input.endpointId}`,
      });
      opened.onEnd(() => {
        this.forget(input.endpointId, input.version);
        this.logger.log({ msg: 'broker connection ended by the broker', endpointId: input.endpointId });
      });
      return opened;
    })();
    const entry: Held = { version: input.version, broker: destination.type, connection };
    this.held.set(input.endpointId, entry);
    // a connect that fails is forgotten by publish; one that succeeds after its caller gave up is kept
    connection.catch(() => this.forget(input.endpointId, input.version));
    this.checker ??= setInterval(() => void this.closeInactive(), BROKER_CONNECTION_CHECK_MS).unref();
    return connection;
  }

  /** Drops the endpoint's connection of this version (closing it if it opens). */
  private forget(endpointId: string, version: number): void {
    const held = this.held.get(endpointId);
    if (!held || held.version !== version) return;
    this.held.delete(endpointId);
    void held.connection.then((c) => c.close()).catch(() => undefined);
  }

  /** Closes the connections of endpoints that are no longer active (paused, disabled, deleted). */
  async closeInactive(): Promise<void> {
    if (this.checking || this.held.size === 0) return;
    this.checking = true;
    try {
      const ids = [...this.held.keys()];
      const active = new Set(await this.endpoints.activeAmong(ids));
      await Promise.all(ids.filter((id) => !active.has(id)).map((id) => this.close(id)));
    } catch (err) {
      this.logger.warn({ msg: 'could not check the broker connections', error: (err as Error).message });
    } finally {
      this.checking = false;
    }
  }

  private connectError(err: unknown, input: BrokerPublish): string {
    if (err instanceof BrokerPublishError) return err.message;
    const host = new URL(input.url).host;
    const e = err as { code?: string; message?: string };
    if (e?.code === 'ECONNREFUSED' || /ECONNREFUSED|CONNECTION_REFUSED/.test(`${e?.code} ${e?.message}`))
      return `connection refused by ${host}`;
    if (/ACCESS.?REFUSED|AUTHORIZATION|authentication/i.test(e?.message ?? ''))
      return `the broker at ${host} refused the credentials`;
    return `could not connect to ${host}: ${describeSendError(err, input.timeoutMs, this.connectTimeoutMs)}`;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.checker);
    await Promise.all([...this.held.keys()].map((id) => this.close(id)));
  }
}
