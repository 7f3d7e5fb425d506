import { Injectable, Logger } from '@nestjs/common';
import { settledWithin } from '../../../common/async/settled-within';
import { AppConfig } from '../../../config/app-config';
import type { DeliveryJobData } from '../core/delivery-job';
import { DeliveryQueue } from '../core/delivery-queue.service';
import type { AttemptClaim } from './attempt-claim';
import { DeliveryProcessor } from './delivery.processor';

/** The key of a relayed attempt 1 among a batch's: its message and endpoint. */
export const relayedAttemptKey = (messageId: string, endpointId: string) => `${messageId}.${endpointId}`;

/** This worker runs at most WORKER_CONCURRENCY / this of the attempts it relays without their job. */
const LOCAL_SHARE = 5;

/**
 * The attempts a worker relays, run by that worker at once instead of through the queue, as far
 * as it has room: an attempt's path then skips the job's add to Redis and its pick-up by a worker
 * (the latency from commit to receipt). PostgreSQL still holds every attempt's state (the relay's
 * PENDING row): a worker that dies before the claim leaves the row due for the sweep to queue, one
 * that dies after it leaves a claim the sweep closes as an unknown outcome and retries, exactly as
 * for a queued job. Whatever does not fit goes to the queue: beyond WORKER_CONCURRENCY / 5 local
 * runs, an endpoint whose slots are all taken (its cap holds across workers: the slot is taken in
 * Redis), an attempt whose run failed on the database (the job's retries then take over).
 */
@Injectable()
export class LocalDeliveries {
  private readonly logger = new Logger(LocalDeliveries.name);
  private readonly limit: number;
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly processor: DeliveryProcessor,
    private readonly queue: DeliveryQueue,
    config: AppConfig,
  ) {
    this.limit = Math.floor(config.WORKER_CONCURRENCY / LOCAL_SHARE);
  }

  /** How many relayed attempts there is room to start here now: the relay writes up to that many claimed. */
  room(): number {
    return this.stopped ? 0 : Math.max(0, this.limit - this.running.size);
  }

  /**
   * The endpoints whose attempts the relay should not write claimed: their slots are all taken here
   * (or jobs wait for them), so a run would give its claim back at once, a statement for nothing.
   */
  endpointsWithoutFreeSlot(): string[] {
    return this.room() === 0 ? [] : this.processor.endpointsWithoutFreeSlot();
  }

  /**
   * Starts the attempts there is room for now; returns the others, for the queue. `claimed` has the
   * attempts the relay wrote already claimed for this worker (by relayedAttemptKey), no more than
   * `room()` was before its statement: they start first and all, since a queued job would find its
   * row claimed by nobody sending it.
   */
  offer(jobs: DeliveryJobData[], claimed: ReadonlyMap<string, AttemptClaim> = new Map()): DeliveryJobData[] {
    const unclaimed: DeliveryJobData[] = [];
    for (const job of jobs) {
      const claim = claimed.get(relayedAttemptKey(job.messageId, job.endpointId));
      if (claim) this.start(job, claim);
      else unclaimed.push(job);
    }
    const room = this.room();
    for (const job of unclaimed.slice(0, room)) this.start(job);
    return unclaimed.slice(room);
  }

  private start(job: DeliveryJobData, claim?: AttemptClaim): void {
    const run: Promise<void> = this.runOrQueue(job, claim).finally(() => this.running.delete(run));
    this.running.add(run);
  }

  private async runOrQueue(job: DeliveryJobData, claim?: AttemptClaim): Promise<void> {
    try {
      if (await this.processor.runIfSlotFree(job, claim)) return;
    } catch (err) {
      this.logger.warn({
        msg: 'delivery attempt run by its relay failed; queued',
        messageId: job.messageId,
        endpointId: job.endpointId,
        error: (err as Error).message,
      });
    }
    await this.queue.addAll([job]).catch((err: Error) =>
      this.logger.warn({
        msg: 'delivery job not queued; the sweep will queue it from its PENDING row',
        messageId: job.messageId,
        endpointId: job.endpointId,
        error: err.message,
      }),
    );
  }

  /** Takes no more, and waits up to `timeoutMs` for the running ones (past that, the sweep has them). */
  async stop(timeoutMs: number): Promise<void> {
    this.stopped = true;
    await settledWithin(Promise.allSettled([...this.running]), timeoutMs);
  }
}
