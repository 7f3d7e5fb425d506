import { Prisma } from '../../generated/prisma/client';

/** The classes `responseStatus` takes beside a code: an answer's hundreds, or no answer at all. */
export const RESPONSE_STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'network'] as const;
export type ResponseStatusClass = (typeof RESPONSE_STATUS_CLASSES)[number];

/** A status code (100–599) or one of RESPONSE_STATUS_CLASSES, as the query string spells it. */
export const RESPONSE_STATUS_PATTERN = /^(?:[1-5]\d\d|[2-5]xx|network)$/;
export const RESPONSE_STATUS_RULES =
  'an HTTP status code (100–599), a class (2xx, 3xx, 4xx, 5xx) or network (sent, and no HTTP answer: a timeout, a refused or failed connection)';

/**
 * Whether the attempt `alias` (the latest ended attempt of a message at an endpoint) matches `responseStatus`:
 * its code, a code of its class, or (network) an attempt that was sent and failed without an HTTP answer. An
 * attempt closed unsent (cancelled, superseded, expunged) has neither, and matches none.
 */
export function responseStatusMatches(alias: string, filter: string): Prisma.Sql {
  const column = Prisma.raw(`${alias}.response_status`);
  if (filter === 'network') {
    return Prisma.sql`(${Prisma.raw(alias)}.status = 'FAILED' AND ${column} IS NULL
                       AND ${Prisma.raw(alias)}.started_at IS NOT NULL)`;
  }
  if (filter.endsWith('xx')) {
    const from = Number(filter[0]) * 100;
    return Prisma.sql`${column} BETWEEN ${from}::int AND ${from + 99}::int`;
  }
  return Prisma.sql`${column} = ${Number(filter)}::int`;
}

/**
 * The latest attempt of (message, endpoint) that has ended (SUCCESS or FAILED), as a LATERAL subquery over
 * the row `of`: what `responseStatus` and `lastResponseStatus` speak of, so a message waiting for its retry
 * after a 503 is found by 503. One probe of the (message, endpoint, attempt) unique index.
 */
export function latestEndedAttempt(of: string): Prisma.Sql {
  return Prisma.sql`(SELECT e.status, e.response_status, e.started_at FROM webhook_deliveries e
                      WHERE e.message_id = ${Prisma.raw(of)}.message_id AND e.endpoint_id = ${Prisma.raw(of)}.endpoint_id
                        AND e.status <> 'PENDING'
                      ORDER BY e.attempt DESC LIMIT 1)`;
}
