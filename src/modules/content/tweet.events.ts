import { defineEvent, EXAMPLE } from '../events/define-event';
import { dateTime, everyFieldRequired, uuid } from '../events/payload-schema';

const tweetEvent = {
  type: 'object',
  additionalProperties: false,
  required: ['tweet'],
  properties: {
    tweet: everyFieldRequired({
      id: uuid,
      communityId: uuid,
      authorId: uuid,
      content: { type: 'string' },
      likeCount: { type: 'integer', minimum: 0 },
      commentCount: { type: 'integer', minimum: 0 },
      createdAt: dateTime,
      updatedAt: dateTime,
    }),
  },
} as const;

/** The tweet the content examples (comments and likes too) are about. */
export const EXAMPLE_TWEET_ID = '9c8b7a6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';

const tweet = {
  id: EXAMPLE_TWEET_ID,
  communityId: EXAMPLE.communityId,
  authorId: EXAMPLE.userId,
  content: 'Hello, community!',
  likeCount: 0,
  commentCount: 0,
  createdAt: EXAMPLE.at,
  updatedAt: EXAMPLE.at,
};

export const TWEET_EVENTS = [
  defineEvent({
    type: 'tweet.created',
    description: 'A tweet was posted',
    schema: tweetEvent,
    example: { tweet },
    subject: ['tweet', 'id'],
  }),
  defineEvent({
    type: 'tweet.updated',
    description: 'A tweet was edited',
    schema: tweetEvent,
    example: { tweet: { ...tweet, content: 'Hello, community! (edited)' } },
    subject: ['tweet', 'id'],
  }),
  defineEvent({
    type: 'tweet.deleted',
    description: 'A tweet was deleted',
    schema: tweetEvent,
    example: { tweet },
    subject: ['tweet', 'id'],
  }),
] as const;
