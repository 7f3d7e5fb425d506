import { performance } from 'node:perf_hooks';
import type { Lease } from './slot-lease-renewal';

/**
 * A job that finds its endpoint full waits in its worker slot instead of parking only when this
 * worker's own releases of that endpoint are expected to reach it within this long, and parks if
 * none did by then: a busy, fast endpoint keeps its jobs out of Redis, a slow or hanging one
 * holds no more worker slots than before, for longer than this.
 */
export const LOCAL_WAIT_MS = 100;
/** Weight of the newest interval in an endpoint's moving average of its releases' spacing. */
const RELEASE_EMA_WEIGHT = 0.2;
/**
 * An endpoint's pace outlives what this worker knows of it by this long. A busy endpoint's state is
 * dropped whenever this worker holds none of its slots and none of its jobs waits here, which happens
 * between two bursts; without the pace, only `capacity` of the next burst's jobs could wait here until
 * two releases had measured it again, and the rest parked.
 */
const PACE_MEMORY_MS = 1_000;
/** The most endpoints whose pace is remembered after their state is dropped (the oldest go first). */
const MAX_REMEMBERED_PACES = 10_000;

/** A job of the endpoint waiting in its worker slot for a lease this worker will release. */
interface LocalWaiter {
  take: (lease: Lease | null) => void;
}

/** What this worker knows of one endpoint: its leases held here, its local waiters, its pace. */
export interface EndpointState {
  held: Set<Lease>;
  waiters: LocalWaiter[];
  /** the last acquire or release here: an endpoint with none for LOCAL_WAIT_MS is not waited for */
  lastProgressAt: number;
  lastReleaseAt: number;
  /** moving average of the time between two releases here, in ms; 0 before the second release */
  releaseSpacingMs: number;
}

/**
 * What one worker knows of the endpoints it sends to (EndpointSlots): per endpoint, the leases it
 * holds, the jobs waiting here for one of them, and the pace of its releases, from which it judges
 * whether a job should wait here for a hand-over or park in Redis (docs in EndpointSlots). An
 * endpoint's state is dropped once nothing of it is held or waits here; its pace is remembered a
 * little longer (PACE_MEMORY_MS).
 */
export class LocalEndpoints {
  private readonly endpoints = new Map<string, EndpointState>();
  /** The pace of endpoints whose state was dropped, and when (see PACE_MEMORY_MS). */
  private readonly paces = new Map<string, { releaseSpacingMs: number; droppedAt: number }>();

  /** `capacity`: WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, the leases of one endpoint at once. */
  constructor(private readonly capacity: number) {}

  entries(): IterableIterator<[string, EndpointState]> {
    return this.endpoints.entries();
  }

  /** The endpoint's state here, made (with a pace remembered from just before) when there is none. */
  get(endpointId: string): EndpointState {
    let state = this.endpoints.get(endpointId);
    if (!state) {
      // a pace remembered from just before (PACE_MEMORY_MS); the idle time since is not one of its intervals
      const pace = this.paces.get(endpointId);
      this.paces.delete(endpointId);
      const releaseSpacingMs =
        pace && performance.now() - pace.droppedAt <= PACE_MEMORY_MS ? pace.releaseSpacingMs : 0;
      state = { held: new Set(), waiters: [], lastProgressAt: 0, lastReleaseAt: 0, releaseSpacingMs };
      this.endpoints.set(endpointId, state);
    }
    return state;
  }

  /** Whether this worker holds every slot of the endpoint, or jobs of it wait here already. */
  full(state: EndpointState): boolean {
    return state.waiters.length > 0 || state.held.size >= this.capacity;
  }

  /** Drops what this worker knows of an endpoint it neither holds nor waits for, but its pace; false. */
  forget(endpointId: string, state: EndpointState): false {
    if (state.held.size > 0 || state.waiters.length > 0 || this.endpoints.get(endpointId) !== state)
      return false;
    this.endpoints.delete(endpointId);
    if (state.releaseSpacingMs > 0) {
      this.paces.delete(endpointId);
      this.paces.set(endpointId, { releaseSpacingMs: state.releaseSpacingMs, droppedAt: performance.now() });
      // a Map iterates in insertion order: the first key is the oldest
      if (this.paces.size > MAX_REMEMBERED_PACES) this.paces.delete(this.paces.keys().next().value!);
    }
    return false;
  }

  /**
   * Whether a job may wait here for a lease: this worker holds some of the endpoint's, one of them
   * was taken or given back within LOCAL_WAIT_MS, and the pace of the releases so far says one will
   * reach this job (behind those already waiting) within LOCAL_WAIT_MS. Before the second release
   * the pace is unknown: then at most `capacity` wait.
   */
  mayWaitHere(state: EndpointState): boolean {
    if (state.held.size === 0) return false;
    if (performance.now() - state.lastProgressAt > LOCAL_WAIT_MS) return false;
    if (state.releaseSpacingMs === 0) return state.waiters.length < this.capacity;
    return (state.waiters.length + 1) * state.releaseSpacingMs <= LOCAL_WAIT_MS;
  }

  /** Time until the soonest lease this worker holds of the endpoint expires, in ms (0 with none). */
  soonestExpiry(state: EndpointState): number {
    let soonest = Infinity;
    for (const lease of state.held) soonest = Math.min(soonest, lease.validUntil);
    return soonest === Infinity ? 0 : Math.max(0, soonest - performance.now());
  }

  /** Waits for a lease handed over by this worker's next release, or null after LOCAL_WAIT_MS. */
  waitHere(state: EndpointState, start: () => void): Promise<Lease | null> {
    return new Promise((resolve) => {
      const waiter: LocalWaiter = {
        take: (lease) => {
          clearTimeout(timer);
          resolve(lease);
        },
      };
      const timer = setTimeout(() => {
        const at = state.waiters.indexOf(waiter);
        if (at >= 0) state.waiters.splice(at, 1);
        resolve(null);
      }, LOCAL_WAIT_MS);
      state.waiters.push(waiter);
      // a job waits here only when a release is expected to reach it within LOCAL_WAIT_MS
      start();
    });
  }

  /** Counts a release into the endpoint's pace (a moving average of the spacing between releases). */
  recordRelease(state: EndpointState, now: number): void {
    if (state.lastReleaseAt > 0) {
      const spacing = now - state.lastReleaseAt;
      state.releaseSpacingMs =
        state.releaseSpacingMs === 0
          ? spacing
          : state.releaseSpacingMs + RELEASE_EMA_WEIGHT * (spacing - state.releaseSpacingMs);
    }
    state.lastReleaseAt = now;
    state.lastProgressAt = now;
  }
}
