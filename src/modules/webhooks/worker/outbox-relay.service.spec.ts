import { loadConfig } from '../../../config/app-config';
import type { EndpointFilters } from './endpoint-filters';
import { deliveryJobs, OutboxRelay, RELAY_BATCH_SIZE } from './outbox-relay.service';
import type { RelayedEvent, WorkerOutboxStore } from './outbox.store';
import type { OutboxWakeups } from './outbox-wakeups';

/** The relay's idle wait ends at a commit notification (OutboxWakeups), not at the next poll. */
describe('OutboxRelay idle wait', () => {
  type Waiting = { running: boolean; pause(ms: number): Promise<boolean>; eventsCommitted(): void };

  function idleRelay(): Waiting {
    const config = loadConfig({ ...process.env, OUTBOX_POLL_INTERVAL: '1h' }).config;
    // the wait touches neither the database nor Redis: only the wake-up path is under test
    const relay = new OutboxRelay(null!, null!, {} as OutboxWakeups, config, null!);
    const waiting = relay as unknown as Waiting;
    waiting.running = true;
    return waiting;
  }

  it('returns true at once when events are committed during the wait', async () => {
    const relay = idleRelay();
    const waited = relay.pause(3_600_000);
    relay.eventsCommitted();
    await expect(waited).resolves.toBe(true);
  });

  it('does not lose a commit notified while no wait was running (a batch was in flight)', async () => {
    const relay = idleRelay();
    relay.eventsCommitted();
    await expect(relay.pause(3_600_000)).resolves.toBe(true);
  });

  it('returns false when the wait ran out without a commit', async () => {
    const relay = idleRelay();
    await expect(relay.pause(1)).resolves.toBe(false);
  });
});

/** The jobs of a relayed batch: one per (event, endpoint), and one per FIFO endpoint. */
describe('deliveryJobs', () => {
  const event = (n: number, endpointIds: string[], fifoEndpointIds: string[]): RelayedEvent => ({
    outboxId: String(n),
    communityId: 'c',
    messageId: `msg_${n}`,
    eventType: 'tweet.created',
    payload: {} as RelayedEvent['payload'],
    traceparent: null,
    endpointIds,
    fifoEndpointIds,
    claims: [],
  });

  it('asks a FIFO endpoint once per batch, with its first attempt, and every other endpoint per event', () => {
    const jobs = deliveryJobs([
      event(1, ['a', 'f'], ['f']),
      event(2, ['a', 'f'], ['f']),
      event(3, ['f'], ['f']),
    ]);
    expect(jobs.map((j) => [j.messageId, j.endpointId, j.fifo ?? false])).toEqual([
      ['msg_1', 'a', false],
      ['msg_1', 'f', true],
      ['msg_2', 'a', false],
    ]);
  });
});

/** With filter decisions carried, a statement also locks the next batch, so it reports the next undecided events. */
describe('OutboxRelay batch size with content filters', () => {
  async function rowsAsked(carriedEvents: number): Promise<number> {
    const config = loadConfig({ ...process.env }).config;
    let rows = 0;
    const outbox = {
      relayOutboxBatch: (limits: { rows: number }) => {
        rows = limits.rows;
        return Promise.resolve({ relayed: [], undecided: [] });
      },
    } as unknown as WorkerOutboxStore;
    const filters = {
      carriedEvents: () => carriedEvents,
      decisions: () => [],
      settle: () => Promise.resolve(),
    } as unknown as EndpointFilters;
    await new OutboxRelay(outbox, null!, {} as OutboxWakeups, config, filters).relayBatch();
    return rows;
  }

  it('locks one batch without decisions, and at most one more with them', async () => {
    expect(await rowsAsked(0)).toBe(RELAY_BATCH_SIZE);
    expect(await rowsAsked(30)).toBe(RELAY_BATCH_SIZE + 30);
    expect(await rowsAsked(5_000)).toBe(2 * RELAY_BATCH_SIZE);
  });
});
