import { Injectable, Logger } from '@nestjs/common';
import { compileFilter, type EventMatcher } from '../core/filter/event-filter';
import { WebhookEndpointsStore } from '../core/webhook-endpoints.store';
import type { FilterDecision, RelayedBatch, UndecidedEvent } from './outbox.store';

/** Compiled filters kept: one per endpoint, its newest version seen. */
const MAX_ENDPOINTS = 10_000;
/** Events whose decisions wait for a relay statement to take them. */
const MAX_CARRIED_EVENTS = 2_000;

interface Compiled {
  version: number;
  matches: EventMatcher;
}

/**
 * The relay's content filters (docs/api.md#content-filters). The relay statement writes no attempt
 * for an event while a filtered subscriber has no decision for it; this class decides, and hands
 * its decisions to the next statements until one relays the event.
 *
 * Each endpoint's filter is compiled once per version and kept. No invalidation message is needed to
 * stay correct: a decision names the filter version it was taken on, and the statement applies it
 * only while the endpoint's row holds that version, in the same statement that writes the attempts.
 * A filter changed after a decision is therefore never ignored: the event comes back undecided with
 * the new version, which is read and compiled then (the same check CachedLiveSecrets makes with the
 * secrets' version).
 */
@Injectable()
export class EndpointFilters {
  private readonly logger = new Logger(EndpointFilters.name);
  private readonly compiled = new Map<string, Compiled>();
  /** by outbox id: decisions for events no statement of this worker has relayed yet */
  private readonly carried = new Map<string, FilterDecision[]>();

  constructor(private readonly endpoints: WebhookEndpointsStore) {}

  /** How many events the carried decisions are for. */
  carriedEvents(): number {
    return this.carried.size;
  }

  /** The decisions to pass to the next relay statement. */
  decisions(): FilterDecision[] {
    return [...this.carried.values()].flat();
  }

  /**
   * After a relay statement: forgets the decisions of the events it relayed and of any before them
   * (relayed by now, here or by another worker), and decides the events it left undecided.
   */
  async settle(batch: RelayedBatch): Promise<void> {
    const last = batch.relayed.at(-1);
    if (last && this.carried.size > 0) {
      const relayedUpTo = BigInt(last.outboxId);
      for (const outboxId of this.carried.keys())
        if (BigInt(outboxId) <= relayedUpTo) this.carried.delete(outboxId);
    }
    if (batch.undecided.length === 0) return;
    await this.compileMissing(batch.undecided);
    for (const event of batch.undecided) {
      const decided = event.endpoints.flatMap(({ id, version }): FilterDecision[] => {
        const filter = this.compiled.get(id);
        // read at another version meanwhile: the next statement reports the current one
        if (filter?.version !== version) return [];
        return [
          { outboxId: event.outboxId, endpointId: id, version, matches: filter.matches(event.payload) },
        ];
      });
      const kept = (this.carried.get(event.outboxId) ?? []).filter(
        (earlier) => !decided.some((d) => d.endpointId === earlier.endpointId),
      );
      this.carried.set(event.outboxId, [...kept, ...decided]);
    }
    this.trimCarried();
  }

  /** Reads and compiles the filters of the endpoints whose version here is not the one reported. */
  private async compileMissing(events: UndecidedEvent[]): Promise<void> {
    const missing = new Set<string>();
    for (const event of events)
      for (const { id, version } of event.endpoints)
        if (this.compiled.get(id)?.version !== version) missing.add(id);
    if (missing.size === 0) return;
    for (const stored of await this.endpoints.filters([...missing])) {
      this.compiled.delete(stored.id);
      if (this.compiled.size >= MAX_ENDPOINTS)
        this.compiled.delete(this.compiled.keys().next().value as string);
      this.compiled.set(stored.id, {
        version: stored.version,
        matches: this.compile(stored.id, stored.filter),
      });
    }
  }

  /**
   * The API stored only filters it compiled, so this fails only if a later release refused what an
   * earlier one accepted: the endpoint then gets every subscribed event (it asked for them by
   * subscribing), and the log says why, rather than losing them.
   */
  private compile(endpointId: string, filter: unknown): EventMatcher {
    if (filter === null) return () => true;
    try {
      return compileFilter(filter);
    } catch (err) {
      this.logger.error({
        msg: 'stored filter does not compile; the endpoint gets every subscribed event',
        endpointId,
        error: (err as Error).message,
      });
      return () => true;
    }
  }

  /** Past MAX_CARRIED_EVENTS, drops the newest events' decisions: the oldest are the next to relay. */
  private trimCarried(): void {
    if (this.carried.size <= MAX_CARRIED_EVENTS) return;
    const newestFirst = [...this.carried.keys()].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));
    for (const outboxId of newestFirst.slice(0, this.carried.size - MAX_CARRIED_EVENTS))
      this.carried.delete(outboxId);
  }
}
