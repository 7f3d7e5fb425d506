import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { AppConfig } from '../../../config/app-config';
import { closeRedisClient } from '../../../redis/redis-client';
import type { DeliveryJobData } from '../core/delivery-job';
import { DeliveryQueue } from '../core/delivery-queue.service';
import { slotsRedis, type SlotsRedis } from './endpoint-slot-scripts';
import { type EndpointState, LocalEndpoints } from './endpoint-local-state';
import { type Lease, SlotLeaseRenewal } from './slot-lease-renewal';
import { WorkerMetrics } from './worker-metrics';

/** A parked job wakes by itself after at least this long if no release woke it first. */
export const MIN_PARK_MS = 250;
/**
 * Parked jobs wake by themselves at random over a spread of this much per job parked on the endpoint
 * (at least a renewal interval, at most WEBHOOK_TIMEOUT), so that about 1,000 / this of them look
 * again in each second after a dead worker's lease expired, however many wait: enough to take its
 * slot within a second, few enough that a hanging endpoint's parked jobs do not keep Redis busy.
 */
const PARK_SPREAD_PER_WAITER_MS = 20;
/** A release tries this many waiters at most before giving up on waking one (stale ids). */
const MAX_WAKE_TRIES = 5;
/**
 * What a job may start before its slot is there, so that it does not add to the slot's hold: its
 * claim. `start` runs when the slot is likely soon (this worker does not hold all of the
 * endpoint's leases, or the job waits here for a hand-over, which it expects within
 * LOCAL_WAIT_MS), or when the slot came; `undo` runs before a started job parks.
 */
export interface EarlyWork {
  start: () => void;
  undo: () => Promise<void>;
}

const NO_EARLY_WORK: EarlyWork = { start: () => undefined, undo: async () => undefined };

/** Runs the attempt; calls `sent()` once the request is answered (or failed), to free the slot early. */
export type SlotWork = (sent: () => void) => Promise<void>;

/**
 * Fairness between endpoints (docs/product-decisions.md#5-webhooks): at most WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT requests of
 * one endpoint run at once across every worker. The cap is a lease semaphore per endpoint in Redis
 * (a sorted set of lease ids scored by expiry). Leases are short (WEBHOOK_SLOT_LEASE) and this
 * worker renews all it holds every WEBHOOK_SLOT_RENEW_INTERVAL, one script per endpoint in one
 * round trip, so a killed worker's slots free themselves within a lease. A job that finds its
 * endpoint full does not wait in its worker slot: it goes back to BullMQ's delayed set and onto the
 * endpoint's waiter list, and the next release promotes it; if nothing wakes it, it wakes itself
 * soon after the soonest lease would expire. A hanging receiver thus holds at most N worker slots,
 * and every other endpoint's jobs keep flowing through the rest.
 *
 * The exception is an endpoint this worker is busy with and that answers quickly: its jobs beyond
 * the cap wait in their worker slots, in order, while this worker's own releases are expected to
 * reach them within LOCAL_WAIT_MS (judged from the pace of its recent releases), and a release
 * hands its lease straight to the first of them (HAND_OVER_LUA renews it). Parking and waking cost
 * a job several Redis round trips and a second pass through BullMQ; a hand-over costs none, or
 * one renewal. A waiter that no release reached within LOCAL_WAIT_MS parks as above, so an
 * endpoint that slows down or hangs soon holds no more than its N slots again.
 *
 * A lease not renewed for a whole lease (Redis unreachable, the process stalled) may have been
 * taken by another worker while its request still ran: the two requests then run side by side, one
 * past the cap. The renewal that finds the lease gone reports it (a warning and
 * `webhook_endpoint_slot_leases_lapsed_total`), and the lease is never handed over again. FIFO
 * endpoints do not rely on these leases for their one-at-a-time rule (PostgreSQL's claim holds it).
 */
@Injectable()
export class EndpointSlots implements OnApplicationShutdown {
  private readonly logger = new Logger(EndpointSlots.name);
  private readonly redis: SlotsRedis;
  private readonly capacity: number;
  private readonly leaseMs: number;
  private readonly renewIntervalMs: number;
  /** The longest spread of a parked job's own wake-up (see PARK_SPREAD_PER_WAITER_MS). */
  private readonly maxParkSpreadMs: number;
  private readonly keyPrefix: string;
  private readonly renewal: SlotLeaseRenewal;
  /** What this worker knows of each endpoint: its leases held here, its local waiters, its pace. */
  private readonly local: LocalEndpoints;

  constructor(
    config: AppConfig,
    private readonly queue: DeliveryQueue,
    metrics: WorkerMetrics,
  ) {
    this.capacity = config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT;
    this.leaseMs = config.webhookSlotLeaseMs;
    this.renewIntervalMs = config.webhookSlotRenewIntervalMs;
    this.maxParkSpreadMs = Math.max(this.renewIntervalMs, config.webhookTimeoutMs);
    this.keyPrefix = `${config.REDIS_KEY_PREFIX}:endpoint-slots`;
    this.redis = slotsRedis(config);
    this.local = new LocalEndpoints(this.capacity);
    this.renewal = new SlotLeaseRenewal(
      this.redis,
      this.leaseMs,
      this.renewIntervalMs,
      () => this.heldLeases(),
      metrics,
    );
  }

  /** One renewal round of every lease held here (SlotLeaseRenewal runs one per renewal interval). */
  renewLeases(): Promise<void> {
    return this.renewal.renew();
  }

  private *heldLeases(): Generator<[string, string, Iterable<Lease>]> {
    for (const [endpointId, state] of this.local.entries())
      if (state.held.size > 0) yield [this.keys(endpointId)[0], endpointId, state.held];
  }

  /**
   * Runs `work` holding one of the endpoint's slots, until `work` calls `sent()` or ends. When none
   * is free the job waits for this worker's next release of it (see the class) or is parked (moved
   * to delayed with `token`) and DelayedError is thrown, which BullMQ takes as "not done, not
   * failed": the job keeps its attempt count and runs again when woken.
   *
   * `early.start()` runs once the job is likely to get a slot soon (see EarlyWork), at the latest
   * when it got one; a job that parks after it runs `early.undo()` first.
   */
  async run(
    job: Job<DeliveryJobData>,
    token: string | undefined,
    work: SlotWork,
    early: EarlyWork = NO_EARLY_WORK,
  ): Promise<void> {
    const { endpointId } = job.data;
    const jobId = job.id ?? '';
    const state = this.local.get(endpointId);
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      early.start();
    };
    let lease: Lease | null = null;
    let soonestExpiryMs = 0;
    let parked = 0;
    // jobs wait here already, or this worker holds every slot (Redis would only say "full"): when a
    // release here is expected soon the job waits for it without a round trip to Redis
    if (this.local.full(state) && this.local.mayWaitHere(state))
      lease = await this.local.waitHere(state, start);
    else {
      // a slot is likely: this worker does not hold them all, so the early work overlaps the acquire
      if (state.held.size < this.capacity) start();
      const acquired = await this.acquire(endpointId, jobId);
      if (acquired.lease) {
        lease = acquired.lease;
        state.held.add(lease);
        state.lastProgressAt = performance.now();
      } else {
        ({ soonestExpiryMs, parked } = acquired);
        if (this.local.mayWaitHere(state)) lease = await this.local.waitHere(state, start);
      }
    }
    if (!lease) {
      if (started) await early.undo();
      // a waiter no release reached: its fallback wake is not before this worker's soonest lease expires
      await this.park(job, token, soonestExpiryMs || this.local.soonestExpiry(state), parked);
      throw new DelayedError();
    }
    start();
    await this.holding(endpointId, state, lease, work);
  }

  /**
   * Runs `work` holding one of the endpoint's slots when one is free in Redis right now, and returns
   * true; returns false at once when none is (nor waits, nor parks: the caller queues the job).
   * For attempts this worker relayed itself (LocalDeliveries). `early` as for run().
   */
  async runIfFree(endpointId: string, work: SlotWork, early: EarlyWork): Promise<boolean> {
    const state = this.local.get(endpointId);
    // jobs of this endpoint already wait here: the newcomer must not pass them
    if (this.local.full(state)) return this.local.forget(endpointId, state);
    early.start();
    const { lease } = await this.acquire(endpointId, '');
    if (!lease) {
      await early.undo();
      return this.local.forget(endpointId, state);
    }
    state.held.add(lease);
    state.lastProgressAt = performance.now();
    await this.holding(endpointId, state, lease, work);
    return true;
  }

  /** The endpoints runIfFree turns away now without asking Redis: this worker holds all their slots, or jobs wait. */
  fullEndpoints(): string[] {
    return [...this.local.entries()]
      .filter(([, state]) => this.local.full(state))
      .map(([endpointId]) => endpointId);
  }

  /**
   * Takes a lease in Redis (renewed from now on until it is released), or says when full how soon
   * the soonest lease expires and how many jobs are parked on the endpoint.
   */
  private async acquire(
    endpointId: string,
    jobId: string,
  ): Promise<{ lease: Lease } | { lease?: undefined; soonestExpiryMs: number; parked: number }> {
    const requested = performance.now();
    const leaseId = randomUUID();
    const [leases, waiters] = this.keys(endpointId);
    const [acquired, soonestExpiryMs, parked] = await this.redis.cpSlotAcquire(
      leases,
      waiters,
      this.capacity,
      this.leaseMs,
      leaseId,
      jobId,
    );
    if (!acquired) return { soonestExpiryMs, parked };
    this.renewal.start();
    const lease = { id: leaseId, validUntil: requested + this.leaseMs, checkedAt: requested };
    return { lease: { ...lease, lapsed: false, releasing: false } };
  }

  /** Runs `work` with the lease, released once `work` calls `sent()` or ends. */
  private async holding(
    endpointId: string,
    state: EndpointState,
    lease: Lease,
    work: SlotWork,
  ): Promise<void> {
    let released: Promise<void> | undefined;
    const sent = () => {
      released ??= this.release(endpointId, state, lease);
    };
    try {
      await work(sent);
    } finally {
      sent();
      await released;
    }
  }

  /**
   * `parked`: how many jobs were parked on the endpoint when it was found full (0 when unknown).
   * A release wakes it (see PARK_LUA); its own timer covers a holder that died (its lease expires)
   * or a lost wake: soon after the soonest lease's expiry, spread (PARK_SPREAD_PER_WAITER_MS) so
   * that a slow endpoint's parked jobs do not all wake at once. With few parked, each looks again
   * within a renewal interval of a dead holder's expiry.
   */
  private async park(
    job: Job<DeliveryJobData>,
    token: string | undefined,
    soonestExpiryMs: number,
    parked: number,
  ) {
    const [leases, waiters] = this.keys(job.data.endpointId);
    const spreadMs = Math.min(
      this.maxParkSpreadMs,
      Math.max(this.renewIntervalMs, parked * PARK_SPREAD_PER_WAITER_MS),
    );
    const fallbackMs = Math.max(soonestExpiryMs, MIN_PARK_MS) + Math.random() * spreadMs;
    await job.moveToDelayed(Date.now() + Math.round(fallbackMs), token);
    const slotFreed = await this.redis.cpSlotPark(
      leases,
      waiters,
      this.capacity,
      job.id ?? '',
      // the list outlives the longest fallback of a job on it
      2 * (this.leaseMs + this.maxParkSpreadMs),
    );
    if (slotFreed) await this.wake(job.id ?? '');
  }

  /** Hands the lease to the first job waiting here, or frees it in Redis and wakes a parked job. */
  private async release(endpointId: string, state: EndpointState, lease: Lease): Promise<void> {
    const now = performance.now();
    this.local.recordRelease(state, now);
    const [leases, waiters] = this.keys(endpointId);
    try {
      const waiter = state.waiters.shift();
      if (waiter && this.mayHandOverHere(lease, now)) return waiter.take(lease);
      lease.releasing = true;
      if (waiter) {
        const requested = performance.now();
        const [renewed, parked] = await this.redis.cpSlotHandOver(leases, waiters, lease.id, this.leaseMs);
        if (renewed) {
          Object.assign(lease, {
            validUntil: requested + this.leaseMs,
            checkedAt: requested,
            releasing: false,
          });
          return waiter.take(lease);
        }
        state.held.delete(lease);
        // jobs wait in Redis: the lease went back there, and this waiter tries again or parks
        waiter.take(null);
        if (parked) await this.wakeOneOf(parked, leases, waiters);
        return;
      }
      state.held.delete(lease);
      this.local.forget(endpointId, state);
      await this.wakeOneOf(await this.redis.cpSlotRelease(leases, waiters, lease.id), leases, waiters);
    } catch (err) {
      // the lease then expires by itself; parked jobs wake on their own timer
      this.logger.warn({ err, endpointId }, 'could not release an endpoint slot');
    }
  }

  /**
   * A lease passes to a job waiting here without Redis while Redis looked for parked jobs within
   * the last lease (HAND_OVER_LUA gives it to them instead), its renewals keep up, and none was lost.
   */
  private mayHandOverHere(lease: Lease, now: number): boolean {
    return (
      !lease.lapsed && now - lease.checkedAt < this.leaseMs && lease.validUntil - now > this.renewIntervalMs
    );
  }

  /** Wakes `first`, or the next waiter in Redis when that id is stale (the job woke by itself). */
  private async wakeOneOf(first: string | null, leases: string, waiters: string): Promise<void> {
    let next = first;
    for (let tries = 1; next && !(await this.wake(next)) && tries < MAX_WAKE_TRIES; tries++)
      next = await this.redis.cpSlotRelease(leases, waiters, '');
  }

  /** Moves a parked job from delayed to waiting; false when it is not parked (any more). */
  private async wake(jobId: string): Promise<boolean> {
    // promote needs the id only: no read of the job first
    return new Job(this.queue.queue, 'wake', {}, {}, jobId).promote().then(
      () => true,
      () => false,
    );
  }

  /**
   * Both keys of an endpoint share a hash tag (the endpoint's id), so each script touches one slot
   * of a Redis Cluster, and different endpoints spread over the cluster's masters.
   */
  private keys(endpointId: string): [string, string] {
    const base = `${this.keyPrefix}:{${endpointId}}`;
    return [`${base}:leases`, `${base}:waiters`];
  }

  async onApplicationShutdown(): Promise<void> {
    this.renewal.stop();
    await closeRedisClient(this.redis);
  }
}
