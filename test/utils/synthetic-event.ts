import type { SubscribableEvent } from '../../src/modules/events/event-catalog';
import { OutboxService } from '../../src/modules/events/outbox.service';
import type { TestApp } from './app';
import { unique } from './factories';

/**
 * Delivery tests raise events whose content does not matter (only that they arrive, in order,
 * once): this opts their `data` out of the catalog's payload types (OutboxService.record).
 */
export function syntheticData(data: Record<string, unknown> = {}): never {
  return data as never;
}

/**
 * Commits one event through the outbox in a transaction of its own, as a write's would; its data is a
 * tweet of its own unless `data` is given. Returns the outbox row (`id` is the message id).
 */
export function raiseEvent(
  api: TestApp,
  communityId: string,
  type: SubscribableEvent = 'tweet.created',
  data: Record<string, unknown> = { tweet: { id: unique('t') } },
) {
  return api.prisma.$transaction((tx) =>
    api.app.get(OutboxService).record(tx, communityId, type, syntheticData(data)),
  );
}

/** `count` events, each in a transaction of its own, one after another: their commit order is the order returned. */
export async function raiseInOrder(
  api: TestApp,
  communityId: string,
  count: number,
  type: SubscribableEvent = 'tweet.created',
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await raiseEvent(api, communityId, type)).id);
  return ids;
}
