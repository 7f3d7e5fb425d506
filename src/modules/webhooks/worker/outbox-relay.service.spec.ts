import { loadConfig } from '../../../config/app-config';
import { deliveryJobs, OutboxRelay } from './outbox-relay.service';
import type { RelayedEvent } from './outbox.store';
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
