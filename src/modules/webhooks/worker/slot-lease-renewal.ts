import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { SlotsRedis } from './endpoint-slot-scripts';
import type { WorkerMetrics } from './worker-metrics';

/** An endpoint-slot lease this worker holds (EndpointSlots). */
export interface Lease {
  id: string;
  /** a lower bound of its expiry on this process's clock: its last acquire or renewal's request + the lease */
  validUntil: number;
  /** when Redis last looked for jobs parked on the endpoint for it: its acquire, or HAND_OVER_LUA */
  checkedAt: number;
  /** a renewal found it gone: its request may have run beside another past the cap (reported once) */
  lapsed: boolean;
  /** its release or hand-over to Redis is under way: a renewal no longer concerns it */
  releasing: boolean;
}

/** The leases this worker holds, by the Redis key of their endpoint's lease set. */
export type HeldLeases = () => Iterable<[leasesKey: string, endpointId: string, leases: Iterable<Lease>]>;

/**
 * The heartbeat of the endpoint slots: while this worker holds a lease, every `renewIntervalMs`
 * each one runs for `leaseMs` from then. One script per endpoint (its leases share one key, and one
 * Redis Cluster slot), every script of a round sent in the same turn of the event loop, so the auto-
 * pipelined connection makes the round one round trip whatever the number of leases. A killed
 * worker stops renewing and its slots free themselves within `leaseMs`.
 */
export class SlotLeaseRenewal {
  private readonly logger = new Logger('EndpointSlots');
  private timer?: NodeJS.Timeout;
  /** A round still waits for Redis (down or slow): the next tick skips rather than piling rounds up. */
  private renewing = false;

  constructor(
    private readonly redis: SlotsRedis,
    private readonly leaseMs: number,
    private readonly renewIntervalMs: number,
    private readonly held: HeldLeases,
    private readonly metrics: Pick<WorkerMetrics, 'slotLeaseLapsed'>,
  ) {}

  /** A lease was taken: renew from now on (the timer stops by itself once none is held). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.renew(), this.renewIntervalMs);
    // the worker's other handles keep it alive; a stopped one must not wait for this
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One round: renews every lease held here that is neither lapsed nor being released. */
  async renew(): Promise<void> {
    if (this.renewing) return;
    const rounds: { key: string; endpointId: string; leases: Lease[] }[] = [];
    for (const [key, endpointId, leases] of this.held()) {
      const live = [...leases].filter((lease) => !lease.lapsed && !lease.releasing);
      if (live.length > 0) rounds.push({ key, endpointId, leases: live });
    }
    if (rounds.length === 0) return this.stop();
    this.renewing = true;
    const requested = performance.now();
    try {
      const renewals = rounds.map(async ({ key, endpointId, leases }) => {
        const lost = new Set(await this.redis.cpSlotRenew(key, this.leaseMs, ...leases.map((l) => l.id)));
        for (const lease of leases)
          if (lost.has(lease.id)) this.lapse(endpointId, lease);
          else if (!lease.releasing) lease.validUntil = requested + this.leaseMs;
      });
      for (const renewal of await Promise.allSettled(renewals))
        if (renewal.status === 'rejected')
          // an unrenewed lease lapses after leaseMs; the next round that reaches Redis reports it
          this.logger.warn({ err: renewal.reason as Error }, 'could not renew endpoint slot leases');
    } finally {
      this.renewing = false;
    }
  }

  /** A renewal found the lease gone while its request ran: say so once; it is never handed over again. */
  private lapse(endpointId: string, lease: Lease): void {
    // a release or hand-over sent after this round's snapshot removed it: not a lapse
    if (lease.lapsed || lease.releasing) return;
    lease.lapsed = true;
    lease.validUntil = 0;
    this.metrics.slotLeaseLapsed();
    this.logger.warn({
      msg: 'an endpoint slot lease lapsed while its request ran (not renewed within WEBHOOK_SLOT_LEASE): the endpoint may have had more than WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT requests in flight',
      endpointId,
    });
  }
}
