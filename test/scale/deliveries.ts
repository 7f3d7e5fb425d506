import { OUTCOME_UNKNOWN } from '../../src/modules/webhooks/worker/delivery-sweep.store';
import type { PrismaService } from '../../src/prisma/prisma.service';
import type { Receiver, ReceivedWebhook } from '../utils/webhook-receiver';
import { waitFor } from '../utils/worker';

/** One (endpoint, event) pair: what one delivery is, whatever its number of attempts. */
const pairKey = (endpointId: string, messageId: string) => `${endpointId} ${messageId}`;

export interface Burst {
  /** every (endpoint, event) pair the burst must deliver */
  pairs: Set<string>;
  messageIds: string[];
}

/** The pairs of events raised in communities whose subscribed endpoints are `endpointsOf`. */
export function burstOf(
  events: { messageId: string; communityId: string }[],
  endpointsOf: Map<string, string[]>,
) {
  const pairs = new Set<string>();
  for (const { messageId, communityId } of events)
    for (const endpointId of endpointsOf.get(communityId) ?? []) pairs.add(pairKey(endpointId, messageId));
  return { pairs, messageIds: events.map((e) => e.messageId) };
}

/**
 * Counts what the receiver got per (endpoint, webhook-id), the endpoint named by the request's path:
 * a receiver's own view of the deliveries, to hold against the service's log.
 */
export class ReceiverLedger {
  constructor(
    private readonly receiver: Receiver,
    private readonly endpointAt: Map<string, string>,
  ) {}

  /** The burst's requests as they arrived, oldest first. */
  requestsOf(burst: Burst): { request: ReceivedWebhook; pair: string }[] {
    const ids = new Set(burst.messageIds);
    const out: { request: ReceivedWebhook; pair: string }[] = [];
    for (const request of this.receiver.received) {
      const id = String(request.headers['webhook-id']);
      const endpointId = this.endpointAt.get(request.path);
      if (endpointId && ids.has(id)) out.push({ request, pair: pairKey(endpointId, id) });
    }
    return out;
  }

  /** Requests per pair of the burst. */
  countsOf(burst: Burst): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { pair } of this.requestsOf(burst)) counts.set(pair, (counts.get(pair) ?? 0) + 1);
    return counts;
  }

  /** Pairs of the burst that arrived at least once. */
  arrived(burst: Burst): number {
    return this.countsOf(burst).size;
  }
}

export interface LoggedAttempt {
  endpointId: string;
  messageId: string;
  attempt: number;
  status: string;
  error: string | null;
}

/** The delivery log of the burst's events: every attempt row, per pair, by attempt number. */
export async function deliveryLog(
  prisma: PrismaService,
  burst: Burst,
): Promise<Map<string, LoggedAttempt[]>> {
  const rows = await prisma.webhookDelivery.findMany({
    where: { messageId: { in: burst.messageIds } },
    select: { endpointId: true, messageId: true, attempt: true, status: true, error: true },
  });
  const log = new Map<string, LoggedAttempt[]>();
  for (const row of rows) {
    const key = pairKey(row.endpointId, row.messageId);
    log.set(key, [...(log.get(key) ?? []), row]);
  }
  for (const attempts of log.values()) attempts.sort((a, b) => a.attempt - b.attempt);
  return log;
}

/**
 * Waits until every pair of the burst has arrived at the receiver and its log holds a SUCCESS and no
 * attempt still PENDING (a request that arrives is recorded just after).
 */
export async function waitForBurst(
  what: string,
  prisma: PrismaService,
  ledger: ReceiverLedger,
  burst: Burst,
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    `${what}: every delivery to arrive`,
    () => ledger.arrived(burst) >= burst.pairs.size,
    timeoutMs,
    100,
  );
  await waitFor(
    `${what}: every delivery to be logged as SUCCESS with nothing PENDING`,
    async () => {
      const [succeeded, pending] = await Promise.all([
        prisma.webhookDelivery.count({ where: { messageId: { in: burst.messageIds }, status: 'SUCCESS' } }),
        prisma.webhookDelivery.count({ where: { messageId: { in: burst.messageIds }, status: 'PENDING' } }),
      ]);
      return succeeded >= burst.pairs.size && pending === 0;
    },
    timeoutMs,
    100,
  );
}

export interface LogCheck {
  /** what does not hold, one line per pair (empty: all good) */
  problems: string[];
  /** pairs that took more than one attempt */
  retried: number;
  /** attempts closed as "outcome unknown" (their worker died while sending) */
  unknownOutcomes: number;
}

/**
 * Holds the receiver's counts against the log, pair by pair: attempts numbered 1..n, exactly one
 * SUCCESS and it is the last, every earlier attempt FAILED (with `earlierError` when given), nothing
 * outside the burst's pairs. `exact`: every logged attempt arrived exactly once (nothing failed, so
 * nothing is unknown). Otherwise each request the receiver got has its own record (requests ≤
 * attempts: an "outcome unknown" attempt may or may not have arrived), and the SUCCESS at least once.
 */
export function checkAgainstLog(
  burst: Burst,
  requests: Map<string, number>,
  log: Map<string, LoggedAttempt[]>,
  options: { exact: boolean; earlierError?: string },
): LogCheck {
  const problems: string[] = [];
  let retried = 0;
  let unknownOutcomes = 0;
  for (const pair of burst.pairs) {
    const attempts = log.get(pair) ?? [];
    const arrived = requests.get(pair) ?? 0;
    if (attempts.length > 1) retried++;
    unknownOutcomes += attempts.filter((a) => a.error === OUTCOME_UNKNOWN).length;
    const numbers = attempts.map((a) => a.attempt).join(',');
    const successes = attempts.filter((a) => a.status === 'SUCCESS').length;
    if (numbers !== attempts.map((_, i) => i + 1).join(',') || attempts.length === 0)
      problems.push(`${pair}: attempts logged ${numbers || 'none'}`);
    else if (successes !== 1 || attempts[attempts.length - 1].status !== 'SUCCESS')
      problems.push(`${pair}: ${successes} SUCCESS, last ${attempts[attempts.length - 1].status}`);
    else if (
      attempts
        .slice(0, -1)
        .some((a) => a.status !== 'FAILED' || (options.earlierError && a.error !== options.earlierError))
    )
      problems.push(`${pair}: an earlier attempt is ${JSON.stringify(attempts.slice(0, -1))}`);
    else if (options.exact ? arrived !== attempts.length : arrived > attempts.length || arrived < 1)
      problems.push(`${pair}: ${arrived} requests arrived for ${attempts.length} logged attempts`);
    else if (options.exact && attempts.some((a) => a.error === OUTCOME_UNKNOWN))
      problems.push(`${pair}: an attempt's outcome is unknown although nothing failed`);
  }
  for (const pair of requests.keys())
    if (!burst.pairs.has(pair)) problems.push(`${pair}: not subscribed, yet arrived`);
  for (const pair of log.keys())
    if (!burst.pairs.has(pair)) problems.push(`${pair}: not subscribed, yet logged`);
  return { problems: problems.slice(0, 20), retried, unknownOutcomes };
}
