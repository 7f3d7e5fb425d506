import { firstSent, lastSent, sentText } from './message-times';

/**
 * The log's First attempt and Last attempt columns show when attempts went out, not when they were written
 * (docs/api.md#webhook-portal): a retry is written when the attempt before it fails and sent only when due.
 */
describe("the log's attempt times", () => {
  const attempt = (n: number, createdAt: string, sentAt: string | null) => ({
    attempt: n,
    createdAt,
    sentAt,
  });
  // attempt 1 written 10:00, sent 10:00:05 and failed at 10:00:06, which wrote attempt 2, sent at 11:00:06
  const first = attempt(1, '2026-11-20T10:00:00.000Z', '2026-11-20T10:00:05.000Z');
  const second = attempt(2, '2026-11-20T10:00:06.000Z', '2026-11-20T11:00:06.000Z');

  it('shows when the latest attempt was sent, not when it was written', () => {
    const message = { lastSentAt: second.sentAt, lastAttemptAt: second.createdAt, attempts: [second, first] };
    expect(lastSent(message)).toBe('2026-11-20T11:00:06.000Z');
    expect(lastSent(message)).not.toBe(message.lastAttemptAt);
    expect(firstSent(message)).toBe('2026-11-20T10:00:05.000Z');
  });

  it('shows the attempt before a retry that still waits, since that retry has not been made', () => {
    const waiting = attempt(2, '2026-11-20T10:00:06.000Z', null);
    expect(lastSent({ lastSentAt: null, attempts: [waiting, first] })).toBe(first.sentAt);
  });

  it('says a message none of whose attempts went out is waiting', () => {
    const queued = attempt(1, '2026-11-20T10:00:00.000Z', null);
    expect(lastSent({ lastSentAt: null, attempts: [queued] })).toBeNull();
    expect(firstSent({ attempts: [queued] })).toBeNull();
    expect(sentText(null, (iso) => iso)).toBe('waiting');
    expect(sentText(first.sentAt, (iso) => `at ${iso}`)).toBe(`at ${first.sentAt}`);
  });
});
