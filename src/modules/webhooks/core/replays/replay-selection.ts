import { Prisma } from '../../../../generated/prisma/client';

/** Which attempt of a message a replay looks at: the message's latest on the endpoint, in this state. */
export const REPLAY_STATUSES = ['FAILED', 'SUCCESS', 'ANY'] as const;
export type ReplayStatus = (typeof REPLAY_STATUSES)[number];

/** A response-status class: any code of its hundred, or "network" (a failure with no HTTP answer). */
export const RESPONSE_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx', 'network'] as const;

/**
 * What a replay selects (docs/api.md#bulk-replay): for each message raised in [since, until) and each of
 * `endpointIds`, the message's latest attempt on that endpoint, when it is in `status` and answered one of
 * `responseStatus` (codes as text, "4xx", "network"; null: any) and the event is of `eventTypes` (null: any).
 */
export interface ReplaySelection {
  communityId: string;
  endpointIds: string[];
  since: Date;
  until: Date;
  eventTypes: string[] | null;
  status: ReplayStatus;
  responseStatus: string[] | null;
}

function responseFilter(values: string[] | null): Prisma.Sql {
  if (!values || values.length === 0) return Prisma.empty;
  const codes = values.filter((v) => /^\d{3}$/.test(v)).map(Number);
  const terms: Prisma.Sql[] = [];
  if (codes.length > 0) terms.push(Prisma.sql`d.response_status = ANY(${codes}::int[])`);
  for (const value of values) {
    const hundred = /^([1-5])xx$/.exec(value);
    if (hundred) {
      const low = Number(hundred[1]) * 100;
      terms.push(Prisma.sql`d.response_status BETWEEN ${low}::int AND ${low + 99}::int`);
    }
  }
  // no answer at all: the connection, the timeout or the address rules failed it
  if (values.includes('network')) terms.push(Prisma.sql`(d.response_status IS NULL AND d.status = 'FAILED')`);
  return Prisma.sql`AND (${Prisma.join(terms, ' OR ')})`;
}

function statusFilter(status: ReplayStatus): Prisma.Sql {
  // "ANY" is any finished attempt: a message still waiting on its own retry is left to it
  if (status === 'ANY') return Prisma.sql`AND d.status <> 'PENDING'`;
  return Prisma.sql`AND d.status = ${status}::"DeliveryStatus"`;
}

function typesFilter(eventTypes: string[] | null): Prisma.Sql {
  return eventTypes && eventTypes.length > 0
    ? Prisma.sql`AND o.event_type = ANY(${eventTypes}::text[])`
    : Prisma.empty;
}

/**
 * The selection counted per endpoint, in ONE statement (the dry run, and a replay's `total`): the same rows as
 * selectedAttempts, found another way. Each message's attempts on the selected endpoints are read once, in
 * the order of the (message, endpoint, attempt) unique key, and DISTINCT ON keeps each pair's latest; the
 * rules on the latest attempt are then a FILTER of the count. selectedAttempts' NOT EXISTS cost the count a
 * second read of every attempt (a hash anti-join over the whole table, every community's) and a hash of the
 * first: 1.1-1.9 s over 10^6 attempts against 0.9-1.0 s so, on two cores at load 2-3
 * (bench/README.md#bulk-replay-benchreplaymjs).
 * The FILTER rather than a WHERE: the planner, misled by the product of the rules' selectivities, sorted the
 * 10^6 latest attempts to group them by endpoint; a count of every pair keeps its hash aggregate. Endpoints
 * whose count is 0 come back with 0. The attempts' community is checked in that FILTER too, not in the join
 * (a message id is one event's, in one community): given `d.community_id = <community>`, the planner of
 * tables not yet analyzed (a bulk load, a fresh database) ANDed the community's whole index into each
 * message's probe, once per event: minutes for 3×10^4 attempts.
 */
export function countByEndpointStatement(selection: ReplaySelection): Prisma.Sql {
  return Prisma.sql`
    SELECT d.endpoint_id::text AS endpoint_id,
           count(*) FILTER (WHERE d.community_id = ${selection.communityId}::uuid AND NOT d.is_test AND d.expunged_at IS NULL
                                  ${statusFilter(selection.status)} ${responseFilter(selection.responseStatus)})::int AS n
      FROM (SELECT DISTINCT ON (d.message_id, d.endpoint_id)
                   d.endpoint_id, d.community_id, d.status, d.response_status, d.is_test, d.expunged_at
              FROM outbox_events o
              JOIN webhook_deliveries d ON d.message_id = o.message_id
             WHERE o.community_id = ${selection.communityId}::uuid
               AND o.created_at >= ${selection.since} AND o.created_at < ${selection.until}
               ${typesFilter(selection.eventTypes)}
               AND d.endpoint_id = ANY(${selection.endpointIds}::uuid[])
             ORDER BY d.message_id DESC, d.endpoint_id DESC, d.attempt DESC) d
     GROUP BY d.endpoint_id`;
}

/**
 * The selection as FROM + WHERE over the event `o` (outbox_events, its body still kept) and its latest
 * attempt `d` on a selected endpoint. Read from the outbox's (community, created_at) index and the
 * attempts' (message, endpoint, attempt) unique key. Probes and expunged messages are never replayed.
 */
export function selectedAttempts(selection: ReplaySelection): Prisma.Sql {
  return Prisma.sql`
    FROM outbox_events o
    JOIN webhook_deliveries d ON d.message_id = o.message_id AND d.community_id = o.community_id
   WHERE o.community_id = ${selection.communityId}::uuid
     AND o.created_at >= ${selection.since} AND o.created_at < ${selection.until}
     ${typesFilter(selection.eventTypes)}
     AND d.endpoint_id = ANY(${selection.endpointIds}::uuid[])
     AND NOT d.is_test AND d.expunged_at IS NULL
     ${statusFilter(selection.status)}
     ${responseFilter(selection.responseStatus)}
     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries n
                      WHERE n.message_id = d.message_id AND n.endpoint_id = d.endpoint_id
                        AND n.attempt > d.attempt)`;
}
