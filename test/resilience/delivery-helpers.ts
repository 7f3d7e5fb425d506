import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { OutboxService } from '../../src/modules/events/outbox.service';
import type { TestApp } from '../utils/app';
import type { Receiver } from '../utils/webhook-receiver';
import { syntheticData } from '../utils/synthetic-event';

/**
 * The test's own bursts wait for a connection and finish as long as they need: the scale test raises
 * ten at once through a pool of 4, and Prisma's defaults (2 s to start, 5 s to finish) measured the
 * machine's speed that day, not the service's behaviour.
 */
const BURST_TRANSACTION = { maxWait: 60_000, timeout: 60_000 };

/** Raises `count` events in transactions of 50, as a burst of API writes would. */
export async function raiseBurst(
  api: TestApp,
  communityId: string,
  count: number,
  type: SubscribableEvent = 'tweet.created',
) {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await api.prisma.$transaction(
      (tx) =>
        Promise.all(
          Array.from({ length: Math.min(50, count - i) }, (_, n) =>
            api.app.get(OutboxService).record(tx, communityId, type, syntheticData({ n: i + n })),
          ),
        ),
      BURST_TRANSACTION,
    );
    ids.push(...batch.map((e) => e.id));
  }
  return ids;
}

/** How many requests the receiver got per webhook-id at `path`. */
export function requestsPerMessage(receiver: Receiver, path: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of receiver.at(path)) {
    const id = String(r.headers['webhook-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
