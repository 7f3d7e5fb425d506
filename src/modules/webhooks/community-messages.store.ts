import { Injectable } from '@nestjs/common';
import { decodeTime } from 'ulid';
import { Prisma } from '../../generated/prisma/client';
import type { DeliveryStatus } from '../../generated/prisma/enums';
import { ISO } from '../../prisma/iso-text';
import { PrismaService } from '../../prisma/prisma.service';
import { pageLimit } from './delivery-log.store';
import { latestEndedAttempt, responseStatusMatches } from './message-filters';

/** The filters of the community's messages (docs/api.md#community-wide-messages), as the store takes them. */
export interface CommunityMessageQuery {
  limit: number;
  /** the last message id of the previous page (its cursor): this page starts after it */
  after?: string;
  subject?: string;
  eventType?: string;
  endpointId?: string;
  /** the state of the message's latest attempt at an endpoint */
  status?: DeliveryStatus;
  /** a code, a class or network, matched against the latest ended attempt at an endpoint (message-filters.ts) */
  responseStatus?: string;
  /** message ids from this one on: the first possible id of `since` (messageIdBound) */
  fromId?: string;
  /** message ids before this one: the first possible id of `until` */
  beforeId?: string;
}

/** A message at one endpoint, as the community's messages show it. */
export interface MessageAtEndpoint {
  endpointId: string;
  /** the state of the latest attempt */
  status: DeliveryStatus;
  /** how many attempts so far (the latest attempt's number) */
  attempts: number;
  /** the answer of the latest attempt that ended; null when none answered (pending, or no HTTP answer) */
  lastResponseStatus: number | null;
}

export interface CommunityMessage {
  messageId: string;
  eventType: string;
  subject: string | null;
  /** when the event was raised: the instant its id (msg_<ULID>) holds */
  createdAt: Date | string;
  /** a probe of the test route */
  test: boolean;
  endpoints: MessageAtEndpoint[];
}

/**
 * The first message id raised at `at` or later (in the order message ids sort): `msg_` and the ULID's time part.
 * Message ids are made by newMessageId (event-body.ts), whose ULID begins with its instant in milliseconds.
 */
export function messageIdBound(at: Date): string {
  return `msg_${encodeUlidTime(at.getTime())}`;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** ULID's 10-character time part (ulid's own encodeTime refuses instants before 1970 and after 10889). */
function encodeUlidTime(ms: number): string {
  let text = '';
  let rest = Math.max(0, Math.min(ms, 2 ** 48 - 1));
  for (let i = 0; i < 10; i++) {
    text = CROCKFORD[rest % 32] + text;
    rest = Math.floor(rest / 32);
  }
  return text;
}

/** The instant a message id holds; the first attempt's time for an id that is not msg_<ULID> (rows seeded by hand). */
function raisedAt(messageId: string, firstAttemptAt: string): Date | string {
  try {
    return new Date(decodeTime(messageId.slice(4)));
  } catch {
    return firstAttemptAt;
  }
}

interface PairRow {
  message_id: string;
  event_type: string;
  subject: string | null;
  is_test: boolean;
  endpoint_id: string;
  status: DeliveryStatus;
  attempts: number;
  last_response_status: number | null;
  first_attempt_at: string;
  has_more: boolean;
}

/**
 * The community's messages across its endpoints, newest first by message id (the instant the event was raised,
 * the same on every endpoint and attempt, so a page after a cursor neither repeats nor skips what existed while
 * new events arrive). A message is its attempt-1 rows (one per endpoint that has it: retention deletes a
 * message's attempts at an endpoint together), read from the partial indexes of attempt 1 by (community,
 * message) or (community, subject, message); each row's latest attempt and latest ended attempt are probes of
 * the (message, endpoint, attempt) unique index. The filters on an endpoint's state (endpointId, status,
 * responseStatus) choose both the messages and the endpoints each lists. Planned per execution: which index
 * serves depends on the filters.
 */
export function communityMessagesStatement(communityId: string, query: CommunityMessageQuery): Prisma.Sql {
  const limit = pageLimit(query.limit);
  const conditions: Prisma.Sql[] = [];
  if (query.subject) conditions.push(Prisma.sql`AND f.subject = ${query.subject}`);
  if (query.eventType) conditions.push(Prisma.sql`AND f.event_type = ${query.eventType}`);
  if (query.endpointId) conditions.push(Prisma.sql`AND f.endpoint_id = ${query.endpointId}::uuid`);
  if (query.after) conditions.push(Prisma.sql`AND f.message_id < ${query.after}`);
  if (query.fromId) conditions.push(Prisma.sql`AND f.message_id >= ${query.fromId}`);
  if (query.beforeId) conditions.push(Prisma.sql`AND f.message_id < ${query.beforeId}`);
  const stateConditions: Prisma.Sql[] = [];
  if (query.status) stateConditions.push(Prisma.sql`AND latest.status = ${query.status}::"DeliveryStatus"`);
  if (query.responseStatus) {
    stateConditions.push(Prisma.sql`AND ${responseStatusMatches('ended', query.responseStatus)}`);
  }
  const latestAndEnded = Prisma.sql`
    CROSS JOIN LATERAL (SELECT l.status, l.attempt FROM webhook_deliveries l
                         WHERE l.message_id = f.message_id AND l.endpoint_id = f.endpoint_id
                         ORDER BY l.attempt DESC LIMIT 1) AS latest
    LEFT JOIN LATERAL ${latestEndedAttempt('f')} AS ended ON true`;
  const all = [...conditions, ...stateConditions];
  const where = all.length > 0 ? Prisma.join(all, ' ') : Prisma.empty;
  return Prisma.sql`
    WITH page AS MATERIALIZED (
      SELECT DISTINCT f.message_id
        FROM webhook_deliveries f
        ${stateConditions.length > 0 ? latestAndEnded : Prisma.empty}
       WHERE f.community_id = ${communityId}::uuid AND f.attempt = 1 ${where}
       ORDER BY f.message_id DESC
       LIMIT ${limit + 1})
    SELECT f.message_id, f.event_type, f.subject, f.is_test, f.endpoint_id::text AS endpoint_id,
           latest.status::text AS status, latest.attempt AS attempts, ended.response_status AS last_response_status,
           ${Prisma.raw(ISO('f.created_at'))} AS first_attempt_at,
           (SELECT count(*) FROM page) > ${limit} AS has_more
      FROM (SELECT message_id FROM page ORDER BY message_id DESC LIMIT ${limit}) AS p
      JOIN webhook_deliveries f
        ON f.message_id = p.message_id AND f.attempt = 1 AND f.community_id = ${communityId}::uuid
      ${latestAndEnded}
     WHERE true ${where}
     ORDER BY f.message_id DESC, f.endpoint_id`;
}

/** The community's messages across its endpoints (a read of `webhook_deliveries`, like the API's other log reads). */
@Injectable()
export class CommunityMessagesStore {
  constructor(private readonly prisma: PrismaService) {}

  /** A page of the community's messages, newest first, and whether another follows. */
  async page(
    communityId: string,
    query: CommunityMessageQuery,
  ): Promise<{ items: CommunityMessage[]; hasMore: boolean }> {
    // on the pg pool, not through Prisma, as the per-endpoint messages are read
    const statement = communityMessagesStatement(communityId, query);
    const { rows } = await this.prisma.lagTolerantQuery<PairRow>(undefined, statement.text, statement.values);
    // the rows come grouped by message, newest message first
    const items: CommunityMessage[] = [];
    for (const row of rows) {
      let message = items[items.length - 1];
      if (message?.messageId !== row.message_id) {
        message = {
          messageId: row.message_id,
          eventType: row.event_type,
          subject: row.subject,
          createdAt: raisedAt(row.message_id, row.first_attempt_at),
          test: row.is_test,
          endpoints: [],
        };
        items.push(message);
      }
      message.endpoints.push({
        endpointId: row.endpoint_id,
        status: row.status,
        attempts: row.attempts,
        lastResponseStatus: row.last_response_status,
      });
    }
    return { items, hasMore: rows[0]?.has_more ?? false };
  }
}
