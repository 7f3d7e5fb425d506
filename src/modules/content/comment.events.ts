import { defineEvent, EXAMPLE } from '../events/define-event';
import { dateTime, uuid } from '../events/payload-schema';
import { EXAMPLE_TWEET_ID } from './tweet.events';

/** What a comment or a like is attached to. */
export const parentType = { type: 'string', enum: ['tweets', 'tasks'] } as const;

export const COMMENT_EVENTS = [
  defineEvent({
    type: 'comment.created',
    description: 'A comment was added to a tweet or a task',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['comment'],
      properties: {
        comment: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'communityId', 'parentType', 'parentId', 'authorId', 'content', 'createdAt'],
          properties: {
            id: uuid,
            communityId: uuid,
            parentType,
            parentId: uuid,
            authorId: uuid,
            content: { type: 'string' },
            createdAt: dateTime,
          },
        },
      },
    },
    example: {
      comment: {
        id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
        communityId: EXAMPLE.communityId,
        parentType: 'tweets',
        parentId: EXAMPLE_TWEET_ID,
        authorId: EXAMPLE.userId,
        content: 'Welcome!',
        createdAt: EXAMPLE.at,
      },
    },
    subject: ['comment', 'id'],
  }),
] as const;
