import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import type { DeliveryJobData } from '../core/delivery-job';
import { DeliveryQueue } from '../core/delivery-queue.service';
import type { AttemptClaim } from './attempt-claim';
import { EndpointFilters } from './endpoint-filters';
import { LocalDeliveries, relayedAttemptKey } from './local-deliveries';
import { OutboxWakeups } from './outbox-wakeups';
import { RelayedEvent, WorkerOutboxStore } from './outbox.store';
import { startSpan, tracingEnabled, type TraceSpan } from '../../../tracing/tracer';

/** Outbox rows locked per transaction. */
export const RELAY_BATCH_SIZE = 200;
/** A batch stops taking rows once this many jobs are due, so one wide fan-out stays one short statement. */
export const RELAY_MAX_JOBS_PER_BATCH = 5_000;
/** After an empty poll the relay waits this long, doubling up to OUTBOX_POLL_INTERVAL while idle. */
const FIRST_IDLE_DELAY_MS = 5;
/** Back-off after a failed batch (Redis or the database down), doubling up to this. */
const MAX_ERROR_DELAY_MS = 2_000;

/**
 * Fans committed outbox events out to their deliveries. In one statement
 * (WorkerOutboxStore.relayOutboxBatch) it locks outbox rows (FOR UPDATE SKIP LOCKED: several workers
 * never take the same row), writes attempt 1 of every (event, subscribed endpoint) pair as a PENDING
 * row due now, and marks the outbox rows relayed: from that commit on, PostgreSQL holds each
 * delivery's state. Then the attempts this worker has room for run here (LocalDeliveries) and the
 * queue jobs of the others are added, as a
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
    private readonly outbox: WorkerOutboxStore,
    private readonly queue: DeliveryQueue,
    private readonly wakeups: OutboxWakeups,
    private readonly config: AppConfig,
    private readonly filters: EndpointFilters,
    private readonly local?: LocalDeliveries,
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
   * OUTBOX_POLL_INTERVAL, a backstop for a lost notification that costs one statement per interval
   * (on an empty outbox it reads the partial index of unrelayed rows and writes nothing).
   */
  private async run(): Promise<void> {
    let idleDelay = FIRST_IDLE_DELAY_MS;
    let errorDelay = FIRST_IDLE_DELAY_MS * 20;
    while (this.running) {
      try {
        const relayed = await this.relayBatch();
        errorDelay = FIRST_IDLE_DELAY_MS * 20;
        if (relayed > 0) {
          idleDelay = FIRST_IDLE_DELAY_MS;
          continue;
        }
        // a commit notified meanwhile ends the wait at once
        await this.pause(idleDelay);
        idleDelay = Math.min(idleDelay * 2, Math.max(this.config.outboxPollIntervalMs, FIRST_IDLE_DELAY_MS));
      } catch (err) {
        this.logger.warn(`outbox relay failed, will retry: ${(err as Error).message}`);
        await this.pause(errorDelay);
        errorDelay = Math.min(errorDelay * 2, MAX_ERROR_DELAY_MS);
      }
    }
  }

  /**
   * Relays one batch; returns how many outbox rows it marked relayed or left for a filter decision
   * (decided here, for the next batch: either way the loop polls again at once).
   */
  async relayBatch(): Promise<number> {
    const started = Date.now();
    // the attempts this worker has room for are written claimed, and run here at once: no claim
    // statement, no queue round trip between the relay and their send
    const batch = await this.outbox.relayOutboxBatch({
      // past the events decided for it, the statement locks a batch more, whose undecided events it
      // reports: the next statement takes them, and a burst costs one statement per batch, not two
      rows: RELAY_BATCH_SIZE + Math.min(this.filters.carriedEvents(), RELAY_BATCH_SIZE),
      attempts: RELAY_MAX_JOBS_PER_BATCH,
      claims: this.local?.room() ?? 0,
      notClaimedFor: this.local?.endpointsWithoutFreeSlot() ?? [],
      decisions: this.filters.decisions(),
    });
    const events = batch.relayed;
    const spans = tracingEnabled() ? relaySpans(events, started) : null;
    const all = deliveryJobs(events);
    const jobs = this.local ? this.local.offer(all, relayClaims(events)) : all;
    if (jobs.length > 0) {
      await this.queue.addAll(jobs).catch((err: Error) =>
        this.logger.warn({
          msg: 'delivery jobs not queued; the sweep will queue them from their PENDING rows',
          jobs: jobs.length,
          error: err.message,
        }),
      );
    }
    if (spans) for (const span of spans) span.end();
    await this.filters.settle(batch);
    return events.length + batch.undecided.length;
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
 * With tracing on, one span per relayed event that carries a trace context (docs/operations.md#tracing):
 * a child of the API request that raised it, from the start of the batch's statement until its attempts
 * were started here or queued, so the trace shows how long the event waited in the outbox. Its attempts'
 * spans are children of that request too (their rows carry its context), not of this span.
 */
function relaySpans(events: RelayedEvent[], started: number): TraceSpan[] {
  const spans: TraceSpan[] = [];
  for (const event of events) {
    if (event.traceparent === null) continue;
    const span = startSpan('webhook.relay', {
      kind: 'internal',
      parent: event.traceparent,
      startTime: started,
      attributes: {
        'webhook.message_id': event.messageId,
        'webhook.event_type': event.eventType,
        'app.community_id': event.communityId,
        'webhook.endpoints': event.endpointIds.length,
        'webhook.batch_size': events.length,
      },
    });
    if (span) spans.push(span);
  }
  return spans;
}

/** The claims the relay statement wrote, by relayedAttemptKey. */
function relayClaims(events: RelayedEvent[]): Map<string, AttemptClaim> {
  return new Map(
    events.flatMap((event) =>
      event.claims.map(
        ({ endpointId, claim }) => [relayedAttemptKey(event.messageId, endpointId), claim] as const,
      ),
    ),
  );
}

/**
 * One job per (event, subscribed endpoint), in outbox id order; the events' bodies are shared, not
 * copied. A FIFO endpoint gets one job per batch, its first attempt's: that job sends the endpoint's
 * queue from its head, which holds the batch's other attempts in order (one job each would only find
 * the queue already being sent).
 */
export function deliveryJobs(events: RelayedEvent[]): DeliveryJobData[] {
  const fifoAsked = new Set<string>();
  return events.flatMap((event) =>
    event.endpointIds.flatMap((endpointId): DeliveryJobData[] => {
      const fifo = event.fifoEndpointIds.includes(endpointId);
      if (fifo && fifoAsked.has(endpointId)) return [];
      if (fifo) fifoAsked.add(endpointId);
      return [
        {
          communityId: event.communityId,
          endpointId,
          messageId: event.messageId,
          eventType: event.eventType,
          attempt: 1,
          outboxId: event.outboxId,
          payload: event.payload,
          ...(fifo ? { fifo: true as const } : {}),
        },
      ];
    }),
  );
}
