import type { JobsOptions } from 'bullmq';
import type { EventBody } from '../../events/event-body';

/** One BullMQ queue carries every webhook delivery attempt (first sends and retries). */
export const DELIVERY_QUEUE = 'webhook-deliveries';

/** The (event, endpoint) pair an attempt belongs to, and its number: the key of its row. */
export interface AttemptKey {
  communityId: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  attempt: number;
}

/** What one delivery attempt needs; the event body travels with it, so a send reads no outbox row. */
export interface DeliveryJobData extends AttemptKey {
  outboxId: string;
  payload: EventBody;
  /** the attempt was held back by its endpoint's rate limit and comes back at the time it was given */
  heldBack?: true;
  /**
   * the endpoint was FIFO when the job was made: the job asks for its endpoint's queue head
   * (whichever attempt that is) instead of claiming this attempt, and holds no endpoint slot
   */
  fifo?: true;
}

/**
 * Deterministic job id: relaying the same outbox row twice, or scheduling the same retry twice,
 * adds one job (BullMQ ignores an add whose id already exists). BullMQ forbids ':' in custom ids.
 */
export function deliveryJobId(messageId: string, endpointId: string, attempt: number): string {
  return `${messageId}.${endpointId}.${attempt}`;
}

const HOUR_S = 3600;

/**
 * Finished jobs are kept a while (bounded by count and age) so that a duplicate add within that
 * window is recognised by its id; the delivery log in PostgreSQL is the lasting record.
 * `attempts` covers infrastructure errors only (database down mid-job): a target's failure is
 * never thrown, it is recorded and retried on the endpoint's schedule (docs/product-decisions.md#5-webhooks)
 * as a new job.
 */
export const DELIVERY_JOB_OPTIONS: JobsOptions = {
  removeOnComplete: { age: 24 * HOUR_S, count: 50_000 },
  removeOnFail: { age: 7 * 24 * HOUR_S, count: 50_000 },
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
};
