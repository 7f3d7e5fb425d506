import { Injectable } from '@nestjs/common';
import { Errors } from '../../../../common/errors/app-error';
import { MessageContentStore } from './message-content.store';

/** The answer of an expunge of one message. */
export interface ExpungedMessage {
  messageId: string;
  expungedAt: Date;
  attemptsCancelled: number;
}

/** How many messages one transaction of a community-wide expunge erases. */
export const EXPUNGE_BATCH = 500;

/**
 * Erasing a message's content on request (docs/api.md#expunge-a-messages-content): the API's route for
 * one message, and the CLI's `webhooks:expunge` for every message of a community raised before a date.
 */
@Injectable()
export class MessageExpungeService {
  constructor(private readonly store: MessageContentStore) {}

  /** 404 when the community has no such message (an event, or attempts in its log). */
  async expunge(communityId: string, messageId: string): Promise<ExpungedMessage> {
    const done = await this.store.expunge(communityId, [messageId]);
    const expungedAt = done.expungedAt.get(messageId);
    if (!expungedAt) throw Errors.notFound('Message');
    return { messageId, expungedAt, attemptsCancelled: done.attemptsCancelled };
  }

  /**
   * Every message of the community raised before `before`, in batches of EXPUNGE_BATCH, oldest first,
   * each batch its own transaction; stops between batches when `stop` is aborted. Returns the totals.
   */
  async expungeRaisedBefore(
    communityId: string,
    before: Date,
    options: { stop?: AbortSignal; progress?: (messages: number, cancelled: number) => void } = {},
  ): Promise<{ messages: number; attemptsCancelled: number; stopped: boolean }> {
    let after = '';
    let messages = 0;
    let attemptsCancelled = 0;
    for (;;) {
      if (options.stop?.aborted) return { messages, attemptsCancelled, stopped: true };
      const ids = await this.store.raisedBefore(communityId, before, after, EXPUNGE_BATCH);
      if (ids.length === 0) return { messages, attemptsCancelled, stopped: false };
      const done = await this.store.expunge(communityId, ids);
      messages += done.expungedAt.size;
      attemptsCancelled += done.attemptsCancelled;
      options.progress?.(messages, attemptsCancelled);
      after = ids[ids.length - 1];
    }
  }
}
