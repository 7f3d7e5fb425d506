import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { AppConfig } from '../../../config/app-config';

/** Channel the outbox trigger notifies on every insert (migration 20261124100000_outbox_notify). */
export const OUTBOX_CHANNEL = 'outbox_events';
/** Reconnect back-off after the LISTEN connection drops, doubling up to this. */
const MAX_RECONNECT_DELAY_MS = 5_000;

/**
 * Tells the outbox relay that events were committed, through PostgreSQL's LISTEN/NOTIFY on a
 * connection of its own (a pooled one could not hold the LISTEN; behind PgBouncer it is
 * DATABASE_DIRECT_URL's, or none and the relay polls). Without it the relay would wait
 * for its next poll, up to OUTBOX_POLL_INTERVAL when idle. A notification is only a hint: while the
 * connection is down the relay polls as before, and the connection comes back by itself.
 */
@Injectable()
export class OutboxWakeups implements OnApplicationShutdown {
  private readonly logger = new Logger(OutboxWakeups.name);
  private client?: Client;
  private listener?: () => void;
  private stopped = false;
  private reconnectDelayMs = 100;
  private reconnectTimer?: NodeJS.Timeout;

  constructor(private readonly config: AppConfig) {}

  /** Calls `onCommit` after each transaction that wrote outbox events, from now on. */
  async listen(onCommit: () => void): Promise<void> {
    this.listener = onCommit;
    this.stopped = false;
    // behind PgBouncer without DATABASE_DIRECT_URL there is no session to listen on: the relay polls
    if (this.config.databaseSessionUrl) await this.connect(this.config.databaseSessionUrl);
  }

  private async connect(url: string): Promise<void> {
    const client = new Client({ connectionString: url });
    client.on('notification', () => this.listener?.());
    client.on('error', (err) => this.dropped(url, client, err));
    client.on('end', () => this.dropped(url, client, new Error('connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.client = client;
      this.reconnectDelayMs = 100;
      // events committed while nobody listened are found by this wake-up
      this.listener?.();
    } catch (err) {
      this.dropped(url, client, err as Error);
    }
  }

  private dropped(url: string, client: Client, err: Error): void {
    if (this.client && this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    if (this.stopped || this.reconnectTimer) return;
    this.logger.warn({
      msg: 'outbox notifications lost; the relay polls until they are back',
      error: err.message,
    });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.stopped) void this.connect(url);
    }, this.reconnectDelayMs);
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, MAX_RECONNECT_DELAY_MS);
  }

  /** The PostgreSQL backend holding the LISTEN (`pg_stat_activity.pid`) while connected. */
  listeningPid(): number | undefined {
    return (this.client as (Client & { processID?: number }) | undefined)?.processID;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }

  onApplicationShutdown(): Promise<void> {
    return this.stop();
  }
}
