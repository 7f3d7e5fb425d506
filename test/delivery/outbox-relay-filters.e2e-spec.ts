import { WebhookEndpointsStore } from '../../src/modules/webhooks/core/webhook-endpoints.store';
import { EndpointFilters } from '../../src/modules/webhooks/worker/endpoint-filters';
import type { FilterDecision, RelayLimits } from '../../src/modules/webhooks/worker/outbox.store';
import { createCommunity, unique } from '../utils/factories';
import { useRelayDatabase } from '../utils/relay-database';

/**
 * Content filters in the relay statement (docs/api.md#content-filters): an event with a filtered
 * subscriber is written only once the worker's decision for the filter's current version is passed
 * in, nothing after it passes it, and a non-matching event leaves no attempt and no missed row. On a
 * database of this file's own: the statement takes any unrelayed row.
 */
describe('outbox relay statement with content filters', () => {
  const database = useRelayDatabase('relay_filters');
  const WIDE: RelayLimits = { rows: 200, attempts: 5_000, claims: 0 };
  const { endpoint } = database;

  /** Commits one event per `data`, in order; returns their message ids. */
  async function events(communityId: string, datas: object[], type = 'tweet.created') {
    const ids: string[] = [];
    for (const data of datas) {
      const messageId = unique('msg');
      await database.api.prisma.outboxEvent.create({
        data: {
          communityId,
          messageId,
          eventType: type,
          payload: { id: messageId, type, timestamp: new Date().toISOString(), communityId, data },
        },
      });
      ids.push(messageId);
    }
    return ids;
  }

  const outboxIdOf = async (messageId: string) =>
    String((await database.api.prisma.outboxEvent.findFirstOrThrow({ where: { messageId } })).id);
  const attempts = (messageIds: string[]) =>
    database.api.prisma.webhookDelivery.findMany({
      where: { messageId: { in: messageIds } },
      select: { messageId: true, endpointId: true },
    });
  const relayedOf = async (messageIds: string[]) =>
    (
      await database.api.prisma.outboxEvent.findMany({
        where: { messageId: { in: messageIds }, relayedAt: { not: null } },
        select: { messageId: true },
      })
    ).map((r) => r.messageId);

  it('leaves an event with an undecided filter, and every event after it, unrelayed and unwritten', async () => {
    const community = await createCommunity(database.api.app);
    const plain = await endpoint(community.id, ['tweet.created', 'member.joined']);
    const filtered = await endpoint(community.id, ['tweet.created'], { filter: { data: { n: 1 } } });
    const [before] = await events(community.id, [{}], 'member.joined');
    const [one, two] = await events(community.id, [{ n: 1 }, { n: 2 }]);
    const [after] = await events(community.id, [{}], 'member.joined');

    const first = await database.store.relayOutboxBatch(WIDE);
    expect(first.relayed.map((e) => e.messageId)).toEqual([before]);
    expect(first.undecided.map((e) => [e.outboxId, e.payload.data, e.endpoints])).toEqual([
      [await outboxIdOf(one), { n: 1 }, [{ id: filtered.id, version: 0 }]],
      [await outboxIdOf(two), { n: 2 }, [{ id: filtered.id, version: 0 }]],
    ]);
    // the plain endpoint's attempts wait too: nothing passes an undecided event
    expect(await attempts([one, two, after])).toEqual([]);
    expect(await relayedOf([one, two, after])).toEqual([]);

    const decisions: FilterDecision[] = [
      { outboxId: await outboxIdOf(one), endpointId: filtered.id, version: 0, matches: true },
      { outboxId: await outboxIdOf(two), endpointId: filtered.id, version: 0, matches: false },
    ];
    const second = await database.store.relayOutboxBatch({ ...WIDE, decisions });
    expect(second.undecided).toEqual([]);
    expect(second.relayed.map((e) => [e.messageId, e.endpointIds])).toEqual([
      [one, [plain.id, filtered.id]],
      [two, [plain.id]],
      [after, [plain.id]],
    ]);
    const written = await attempts([one, two]);
    expect(written.filter((a) => a.endpointId === filtered.id).map((a) => a.messageId)).toEqual([one]);
    expect(written).toHaveLength(3);
  });

  it('ignores a decision taken on another version of the filter', async () => {
    const community = await createCommunity(database.api.app);
    const filtered = await endpoint(community.id, ['tweet.created'], { filter: { data: { n: 1 } } });
    const [event] = await events(community.id, [{ n: 1 }]);
    await database.api.prisma.webhookEndpoint.update({
      where: { id: filtered.id },
      data: { filter: { data: { n: 2 } }, filterVersion: 1 },
    });

    const outboxId = await outboxIdOf(event);
    const stale = await database.store.relayOutboxBatch({
      ...WIDE,
      decisions: [{ outboxId, endpointId: filtered.id, version: 0, matches: true }],
    });
    expect(stale.relayed).toEqual([]);
    expect(stale.undecided.map((e) => e.endpoints)).toEqual([[{ id: filtered.id, version: 1 }]]);
    expect(await attempts([event])).toEqual([]);
  });

  it('records a missed event for a paused filtered endpoint only when the filter lets it through', async () => {
    const community = await createCommunity(database.api.app);
    const paused = await endpoint(community.id, ['tweet.created'], {
      filter: { data: { n: 1 } },
      isActive: false,
    });
    const [kept, dropped] = await events(community.id, [{ n: 1 }, { n: 2 }]);
    const first = await database.store.relayOutboxBatch(WIDE);
    // a paused endpoint's filter is decided too: it says what recover's "missed" may send
    expect(first.undecided).toHaveLength(2);

    const decisions = [
      { outboxId: await outboxIdOf(kept), endpointId: paused.id, version: 0, matches: true },
      { outboxId: await outboxIdOf(dropped), endpointId: paused.id, version: 0, matches: false },
    ];
    expect((await database.store.relayOutboxBatch({ ...WIDE, decisions })).relayed).toHaveLength(2);
    const missed = await database.api.prisma.webhookMissedEvent.findMany({
      where: { endpointId: paused.id },
    });
    expect(missed.map((m) => String(m.outboxId))).toEqual([await outboxIdOf(kept)]);
    expect(await attempts([kept, dropped])).toEqual([]);
  });

  it('with EndpointFilters: decides once per filter version, and a change of the filter is applied to events not yet relayed', async () => {
    const community = await createCommunity(database.api.app);
    const filtered = await endpoint(community.id, ['tweet.created'], {
      filter: { data: { tweet: { likeCount: { $gte: 10 } } } },
    });
    const filters = new EndpointFilters(new WebhookEndpointsStore(database.api.prisma));
    const read = jest.spyOn(WebhookEndpointsStore.prototype, 'filters');
    /** One relay pass as OutboxRelay.relayBatch makes it. */
    const pass = async () => {
      const batch = await database.store.relayOutboxBatch({ ...WIDE, decisions: filters.decisions() });
      await filters.settle(batch);
      return batch;
    };
    try {
      const [low, high] = await events(community.id, [
        { tweet: { likeCount: 3 } },
        { tweet: { likeCount: 12 } },
      ]);
      expect((await pass()).undecided).toHaveLength(2);
      expect((await pass()).relayed.map((e) => [e.messageId, e.endpointIds])).toEqual([
        [low, []],
        [high, [filtered.id]],
      ]);
      expect(read).toHaveBeenCalledTimes(1);
      expect(filters.decisions()).toEqual([]);

      // decided on version 0, then the filter changes before the next statement
      const [later] = await events(community.id, [{ tweet: { likeCount: 50 } }]);
      await pass();
      expect(filters.decisions()).toMatchObject([{ endpointId: filtered.id, version: 0, matches: true }]);
      await database.api.prisma.webhookEndpoint.update({
        where: { id: filtered.id },
        data: { filter: { data: { tweet: { likeCount: { $lt: 10 } } } }, filterVersion: { increment: 1 } },
      });
      expect((await pass()).undecided.map((e) => e.endpoints)).toEqual([[{ id: filtered.id, version: 1 }]]);
      expect((await pass()).relayed.map((e) => [e.messageId, e.endpointIds])).toEqual([[later, []]]);
      expect(read).toHaveBeenCalledTimes(2);
      expect((await attempts([low, high, later])).map((a) => a.messageId)).toEqual([high]);
    } finally {
      read.mockRestore();
    }
  });
});
