import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import type { EventBody } from '../../events/event-body';
import { PrismaService } from '../../../prisma/prisma.service';
import { DeliveriesStore } from '../deliveries.store';
import { SubscribedEndpoint, WebhookEndpointsStore } from '../webhook-endpoints.store';
import type { DeliveryJobData } from './delivery-job';
import { DeliveryQueue } from './delivery-queue.service';
import { OutboxWakeups } from './outbox-wakeups';

/** Outbox rows locked per transaction. */
export const RELAY_BATCH_SIZE = 200;
/** A batch stops taking rows once this many jobs are due, so one wide fan-out stays one short transaction. */
export const RELAY_MAX_JOBS_PER_BATCH = 5_000;
/** After an empty poll the relay waits this long, doubling up to OUTBOX_POLL_INTERVAL while idle. */
const FIRST_IDLE_DELAY_MS = 5;
/** Back-off after a failed batch (Redis or the database down), doubling up to this. */
const MAX_ERROR_DELAY_MS = 2_000;

interface OutboxRow {
  id: bigint;
  community_id: string;
  message_id: string;
  event_type: string;
  payload: EventBody;
  request_id: string | null;
}

type EndpointRow = SubscribedEndpoint;

/**
 * Fans committed outbox events out to their deliveries. In one transaction it locks outbox rows
 * (FOR UPDATE SKIP LOCKED: several workers never take the same row), writes attempt 1 of every
 * (event, subscribed endpoint) pair as a PENDING row due now, and marks the outbox rows relayed: from
 * that commit on, PostgreSQL holds each delivery's state. Only then are the queue jobs added, as a
 * best effort: a job lost to a failed enqueue, a crash or an emptied Redis is re-added by the sweep
 * (DeliverySweep) from the PENDING row, and the deterministic job ids make a second add a no-op.
 */
@Injectable()
export class OutboxRelay {
  private readonly logger = new Logger(OutboxRelay.name);
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  /** Events committed while a batch ran: the next pause returns at once. */
  private committedMeanwhile = false;

  constructor(
    private readonly prisma: PrismaService,
    private readonly endpoints: WebhookEndpointsStore,
    private readonly deliveries: DeliveriesStore,
    private readonly queue: DeliveryQueue,
    private readonly wakeups: OutboxWakeups,
    private readonly config: AppConfig,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
    void this.wakeups.listen(() => this.eventsCommitted());
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.wakeups.stop();
    this.wake?.();
    await this.loop;
  }

  private eventsCommitted(): void {
    if (this.wake) this.wake();
    else this.committedMeanwhile = true;
  }

  /**
   * Polls again at once while batches come back non-empty, and wakes as soon as PostgreSQL notifies
   * a commit of outbox events (OutboxWakeups); when idle, the wait doubles from 5 ms up to
   * OUTBOX_POLL_INTERVAL, a backstop for a lost notification that costs one indexed query per
   * interval.
   */
  private async run(): Promise<void> {
    let idleDelay = FIRST_IDLE_DELAY_MS;
    let errorDelay = FIRST_IDLE_DELAY_MS * 20;
    // after a full batch or a commit notification there is work: skip the look and take a batch
    let workLikely = true;
    while (this.running) {
      try {
        const relayed = workLikely || (await this.hasUnrelayed()) ? await this.relayBatch() : 0;
        errorDelay = FIRST_IDLE_DELAY_MS * 20;
        if (relayed > 0) {
          idleDelay = FIRST_IDLE_DELAY_MS;
          workLikely = true;
          continue;
        }
        workLikely = await this.pause(idleDelay);
        idleDelay = Math.min(idleDelay * 2, Math.max(this.config.outboxPollIntervalMs, FIRST_IDLE_DELAY_MS));
      } catch (err) {
        this.logger.warn(`outbox relay failed, will retry: ${(err as Error).message}`);
        await this.pause(errorDelay);
        errorDelay = Math.min(errorDelay * 2, MAX_ERROR_DELAY_MS);
      }
    }
  }

  /** A one-round-trip look at the partial index, so an idle poll opens no transaction. */
  private async hasUnrelayed(): Promise<boolean> {
    const [row] = await this.prisma.$queryRaw<{ pending: boolean }[]>`
      SELECT EXISTS (SELECT 1 FROM outbox_events WHERE relayed_at IS NULL) AS pending`;
    return row.pending;
  }

  /** Relays one batch; returns how many outbox rows it marked relayed. */
  async relayBatch(): Promise<number> {
    const { taken, jobs } = await this.prisma.$transaction(
      async (tx) => {
        const rows = await tx.$queryRaw<OutboxRow[]>`
          SELECT id, community_id, message_id, event_type, payload, request_id
          FROM outbox_events
          WHERE relayed_at IS NULL
          ORDER BY id
          LIMIT ${RELAY_BATCH_SIZE}
          FOR UPDATE SKIP LOCKED`;
        if (rows.length === 0) return { taken: [], jobs: [] };

        const endpoints = await this.endpoints.subscribed(
          tx,
          [...new Set(rows.map((r) => r.community_id))],
          [...new Set(rows.map((r) => r.event_type))],
        );
        const batch = fanOut(rows, endpoints);
        const requestIdOf = new Map(batch.taken.map((r) => [r.message_id, r.request_id]));
        await this.deliveries.insertFirstAttempts(
          tx,
          batch.jobs.map((job) => ({ ...job, requestId: requestIdOf.get(job.messageId) ?? null })),
        );
        await tx.$executeRaw`
          UPDATE outbox_events SET relayed_at = now() WHERE id = ANY(${batch.taken.map((r) => r.id)}::bigint[])`;
        return batch;
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
    if (jobs.length > 0) {
      await this.queue.addAll(jobs).catch((err: Error) =>
        this.logger.warn({
          msg: 'delivery jobs not queued; the sweep will queue them from their PENDING rows',
          jobs: jobs.length,
          error: err.message,
        }),
      );
    }
    return taken.length;
  }

  /** Waits `ms`, or less when events are committed meanwhile; resolves true when they were. */
  private pause(ms: number): Promise<boolean> {
    if (this.committedMeanwhile || !this.running) {
      const committed = this.committedMeanwhile;
      this.committedMeanwhile = false;
      return Promise.resolve(committed);
    }
    return new Promise((resolve) => {
      const done = (committed: boolean) => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve(committed);
      };
      const timer = setTimeout(() => done(false), ms);
      this.wake = () => done(true);
    });
  }
}

/**
 * One job per (event, subscribed endpoint), in outbox id order. Takes rows until the job budget is
 * spent (always at least one row); rows left out stay unrelayed for the next batch.
 */
export function fanOut(
  rows: OutboxRow[],
  endpoints: EndpointRow[],
): { taken: OutboxRow[]; jobs: DeliveryJobData[] } {
  const byCommunity = new Map<string, EndpointRow[]>();
  for (const e of endpoints) {
    const list = byCommunity.get(e.community_id);
    if (list) list.push(e);
    else byCommunity.set(e.community_id, [e]);
  }
  const taken: OutboxRow[] = [];
  const jobs: DeliveryJobData[] = [];
  for (const row of rows) {
    const targets = (byCommunity.get(row.community_id) ?? []).filter((e) =>
      e.events.includes(row.event_type),
    );
    if (taken.length > 0 && jobs.length + targets.length > RELAY_MAX_JOBS_PER_BATCH) break;
    taken.push(row);
    for (const endpoint of targets) {
      jobs.push({
        communityId: row.community_id,
        endpointId: endpoint.id,
        messageId: row.message_id,
        eventType: row.event_type,
        attempt: 1,
        outboxId: row.id.toString(),
        payload: row.payload,
      });
    }
  }
  return { taken, jobs };
}
