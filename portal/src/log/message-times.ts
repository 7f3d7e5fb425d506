/**
 * The times the log's columns show. An attempt has three (docs/api.md#webhooks, "Delivery log"): when it was
 * written (`createdAt`: for a retry, when the attempt before it failed), when its request went out (`sentAt`)
 * and when a waiting one is due (`nextAttemptAt`). The columns say when attempts were SENT: a retry is written
 * the moment its predecessor fails but goes out only when due, an hour or a day later.
 */

/** When the message's latest attempt that went out was sent; null when none has gone out yet. */
export function lastSent(message: {
  lastSentAt: string | null;
  attempts: { sentAt: string | null }[];
}): string | null {
  // the latest attempt may be a retry still waiting: the last attempt made is then the one before it
  return message.lastSentAt ?? message.attempts.find((a) => a.sentAt !== null)?.sentAt ?? null;
}

/** When the message's first attempt was sent; null while it waits. */
export function firstSent(message: { attempts: { sentAt: string | null }[] }): string | null {
  // attempts come newest first: the first attempt is the last of the list
  return message.attempts.at(-1)?.sentAt ?? null;
}

/** An attempt's send time for a column, or that it has not gone out yet. */
export function sentText(sentAt: string | null, localTime: (iso: string) => string): string {
  return sentAt ? localTime(sentAt) : 'waiting';
}
