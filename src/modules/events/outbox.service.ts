import { Injectable } from '@nestjs/common';
import type { Prisma } from '../../generated/prisma/client';
import { currentRequestScope } from '../../logging/request-id';
import type { Tx } from '../../prisma/prisma.service';
import { buildEventBody, EventBody, newMessageId } from './event-body';
import { ChangeStatement, OutboxEventsStore } from './outbox-events.store';
import { EVENT_SUBJECT_PATHS, type EventData, type SubscribableEvent } from './event-catalog';

/** Turns Dates into ISO strings and drops undefined, as the event will look on the wire. */
function toJson(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}

/** The request that raises an event: its id, and its trace context when it is traced (else null). */
function raisedBy(): { requestId: string | null; traceparent: string | null } {
  const scope = currentRequestScope();
  return { requestId: scope?.id ?? null, traceparent: scope?.span?.traceparent ?? null };
}

/**
 * Writes catalog events into the outbox inside the caller's transaction, so a change that rolls
 * back leaves no event and a committed change always has its event (the worker relays it). Each
 * event keeps the id of the API request that raised it, and its trace context when tracing is on,
 * which its delivery attempts copy.
 */
@Injectable()
export class OutboxService {
  constructor(private readonly events: OutboxEventsStore) {}

  /**
   * A change of one row and its event in one statement (OutboxEventsStore.appendWithChange): the event's
   * data is `{[dataKey]: the changed row}`, so the row the change returns must be what the event
   * carries (the compiler checks it against the event's payload type). Undefined when no row changed.
   */
  async recordWithChange<
    K extends SubscribableEvent,
    D extends keyof EventData<K> & string,
    Row extends EventData<K>[D],
  >(change: ChangeStatement<Row>, communityId: string, type: K, dataKey: D): Promise<Row | undefined> {
    return this.events.appendWithChange(change, {
      communityId,
      messageId: newMessageId(),
      eventType: type,
      timestamp: new Date().toISOString(),
      ...raisedBy(),
      dataKey,
      // PostgreSQL reads it from the data it builds, at the definition's path (as eventSubject does)
      subjectPath: EVENT_SUBJECT_PATHS[type],
    });
  }

  async record<K extends SubscribableEvent>(
    tx: Tx,
    communityId: string,
    type: K,
    data: NoInfer<EventData<K>>,
  ): Promise<EventBody> {
    const payload = toJson(buildEventBody(type, communityId, data));
    const body = payload as unknown as EventBody; // as stored and as the receiver will get it
    await this.events.append(tx, {
      communityId,
      messageId: body.id,
      eventType: type,
      subject: body.subject,
      payload,
      ...raisedBy(),
    });
    return body;
  }

  /** Set-based variant for bulk changes: all events in one statement, in the order given. */
  async recordMany<K extends SubscribableEvent>(
    tx: Tx,
    communityId: string,
    type: K,
    items: NoInfer<EventData<K>>[],
  ): Promise<void> {
    if (items.length === 0) return;
    const bodies = items.map((data) => buildEventBody(type, communityId, data));
    const messageIds = bodies.map((b) => b.id);
    const subjects = bodies.map((b) => b.subject);
    const payloads = bodies.map((b) => JSON.stringify(b));
    await this.events.appendMany(tx, {
      communityId,
      eventType: type,
      messageIds,
      subjects,
      payloads,
      ...raisedBy(),
    });
  }
}
