import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Tx } from '../../prisma/prisma.service';
import { defineEvent } from './define-event';
import { EVENT_TYPES, EVENTS, SUBSCRIBABLE_EVENTS, TEST_EVENT } from './event-catalog';
import { eventBodyExample, eventBodySchema } from './event-schemas';
import type { OutboxService } from './outbox.service';
import type { FromSchema } from './payload-schema';

describe('event catalog', () => {
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);

  it('names each event once; webhook.test is listed last and is not subscribable', () => {
    expect(new Set(EVENT_TYPES).size).toBe(EVENTS.length);
    expect(EVENT_TYPES).toEqual([...SUBSCRIBABLE_EVENTS, TEST_EVENT]);
    expect(SUBSCRIBABLE_EVENTS).not.toContain(TEST_EVENT);
  });

  it.each(EVENT_TYPES)('%s: the published example body validates against the published schema', (type) => {
    const validate = ajv.compile(eventBodySchema(type));
    expect(validate(eventBodyExample(type)) ? [] : validate.errors).toEqual([]);
    expect(validate({ ...eventBodyExample(type), type: 'not.this.one' })).toBe(false);
  });
});

/**
 * Compile-time proof: OutboxService.record takes only a catalog name with its own payload. Never
 * run (tsc checks it: an unused @ts-expect-error is itself an error).
 */
export function wrongPairsDoNotCompile(outbox: OutboxService, tx: Tx): void {
  const tweet = {
    id: 't',
    communityId: 'c',
    authorId: 'a',
    content: 'x',
    likeCount: 0,
    commentCount: 0,
    createdAt: new Date(),
    updatedAt: new Date(),
  };
  void outbox.record(tx, 'c', 'tweet.created', { tweet });
  // @ts-expect-error a tweet is not a comment.created payload
  void outbox.record(tx, 'c', 'comment.created', { tweet });
  // @ts-expect-error a field missing from the tweet
  void outbox.record(tx, 'c', 'tweet.updated', { tweet: { id: 't', content: 'x' } });
  // @ts-expect-error an instant is raised as a Date (JSON.stringify writes the ISO string)
  void outbox.record(tx, 'c', 'tweet.deleted', { tweet: { ...tweet, createdAt: 1 } });
  // @ts-expect-error not a catalog name
  void outbox.record(tx, 'c', 'tweet.liked', { tweet });
  // @ts-expect-error webhook.test is sent only by the test route, never recorded
  void outbox.record(tx, 'c', 'webhook.test', { endpointId: 'e', message: 'm' });
  // @ts-expect-error a value outside the enum
  void outbox.record(tx, 'c', 'member.updated', { member: {} as never, previousRole: 'KING' });
}

/** Compile-time proof: the type read off a schema is the payload it describes, and an example must fit it. */
export function schemaTypesAreExact(): void {
  type Sample = FromSchema<{
    type: 'object';
    required: ['id', 'at', 'kind', 'tags'];
    properties: {
      id: { type: 'string'; format: 'uuid' };
      at: { type: 'string'; format: 'date-time' };
      kind: { type: 'string'; enum: ['a', 'b'] };
      tags: { type: 'array'; items: { type: 'integer' } };
      note: { type: 'string'; nullable: true };
    };
  }>;
  const sample: Sample = { id: 'x', at: 'y', kind: 'a', tags: [1], note: null };
  // @ts-expect-error `note` is optional (not required), the others are not
  const missing: Sample = { id: 'x', at: 'y', kind: 'a' };
  void [sample, missing];

  defineEvent({
    type: 'sample.checked',
    description: 'an example that does not fit its schema does not compile',
    schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
    // @ts-expect-error a string where the schema says integer
    example: { n: 'one' },
  });
}
