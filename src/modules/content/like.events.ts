import { defineEvent, EXAMPLE } from '../events/define-event';
import { dateTime, uuid } from '../events/payload-schema';
import { parentType } from './comment.events';
import { EXAMPLE_TWEET_ID } from './tweet.events';

export const LIKE_EVENTS = [
  defineEvent({
    type: 'like.created',
    description: 'A tweet or a task was liked',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['like'],
      properties: {
        like: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'parentType', 'parentId', 'userId', 'liked', 'likeCount', 'createdAt'],
          properties: {
            id: uuid,
            parentType,
            parentId: uuid,
            userId: uuid,
            liked: { type: 'boolean', enum: [true] },
            likeCount: { type: 'integer', minimum: 0 },
            createdAt: dateTime,
          },
        },
      },
    },
    example: {
      like: {
        id: '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e',
        parentType: 'tweets',
        parentId: EXAMPLE_TWEET_ID,
        userId: EXAMPLE.userId,
        liked: true,
        likeCount: 1,
        createdAt: EXAMPLE.at,
      },
    },
    subject: ['like', 'id'],
  }),
] as const;
