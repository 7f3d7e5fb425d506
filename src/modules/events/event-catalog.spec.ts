import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Tx } from '../../prisma/prisma.service';
import { defineEvent, EXAMPLE } from './define-event';
import {
  EVENT_EXAMPLES,
  EVENT_SUBJECT_PATHS,
  EVENT_TYPES,
  EVENTS,
  eventSubject,
  SUBSCRIBABLE_EVENTS,
  TEST_EVENT,
} from './event-catalog';
import { eventBodyExample, eventBodySchema } from './event-schemas';
import type { OutboxService } from './outbox.service';
import { type FromSchema, uuid } from './payload-schema';

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

  // docs/product-decisions.md#event-subjects: a new event cannot leave its subject out (a compile error, see
  // subjectsAreDeclared below), and each one's path finds an id in its own example
  it.each(EVENT_TYPES.filter((type) => type !== 'customization.updated'))(
    '%s: its subject is an id read from its data at the path its definition declares',
    (type) => {
      const path = EVENT_SUBJECT_PATHS[type];
      expect(path.length).toBeGreaterThan(0);
      const found = path.reduce<unknown>(
        (node, key) => (node as Record<string, unknown>)[key],
        EVENT_EXAMPLES[type],
      );
      expect(found).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(eventSubject(type, EVENT_EXAMPLES[type], EXAMPLE.communityId)).toBe(found);
      expect(eventBodyExample(type).subject).toBe(found);
    },
  );

  it('customization.updated: an advertisement change is about the advertisement, the sidebar about the community', () => {
    const advertisement = { id: '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e' };
    const deleted = { kind: 'advertisement', action: 'deleted', advertisement };
    expect(eventSubject('customization.updated', deleted, EXAMPLE.communityId)).toBe(advertisement.id);
    const sidebar = EVENT_EXAMPLES['customization.updated'];
    expect(sidebar.kind).toBe('sidebar');
    expect(eventSubject('customization.updated', sidebar, EXAMPLE.communityId)).toBe(EXAMPLE.communityId);
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
    schema: {
      type: 'object',
      required: ['n', 'id'],
      properties: { n: { type: 'integer' }, id: { type: 'string', format: 'uuid' } },
    },
    // @ts-expect-error a string where the schema says integer
    example: { n: 'one' },
    subject: ['id'],
  });
}

/** Compile-time proof: an event names its subject, at a path its schema requires that ends at a uuid. */
export function subjectsAreDeclared(): void {
  const schema = {
    type: 'object',
    required: ['thing'],
    properties: {
      thing: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' }, ownerId: uuid },
      },
    },
  } as const;
  const example = { thing: { id: EXAMPLE.userId, name: 'x' } };
  defineEvent({ type: 'thing.made', description: 'declared', schema, example, subject: ['thing', 'id'] });
  // @ts-expect-error no subject
  defineEvent({ type: 'thing.made', description: 'left out', schema, example });
  // @ts-expect-error a path to a string that is not an id
  defineEvent({ type: 'thing.made', description: 'a name', schema, example, subject: ['thing', 'name'] });
  defineEvent({
    type: 'thing.made',
    description: 'optional',
    schema,
    example,
    // @ts-expect-error a path through a property the schema does not require
    subject: ['thing', 'ownerId'],
  });
  // @ts-expect-error a path the schema does not have
  defineEvent({ type: 'thing.made', description: 'absent', schema, example, subject: ['thing', 'uuid'] });
}
