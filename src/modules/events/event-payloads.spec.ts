import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Tx } from '../../prisma/prisma.service';
import { EventType, SUBSCRIBABLE_EVENTS, TEST_EVENT } from './event-catalog';
import { EVENT_EXAMPLES } from './event-examples';
import { EVENT_PAYLOAD_SCHEMAS } from './event-payloads';
import { eventBodyExample, eventBodySchema } from './event-schemas';
import type { OutboxService } from './outbox.service';

const ALL: EventType[] = [...SUBSCRIBABLE_EVENTS, TEST_EVENT];

describe('event payload schemas', () => {
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);

  it('has a schema and an example for every catalog event, and nothing else', () => {
    expect(Object.keys(EVENT_PAYLOAD_SCHEMAS).sort()).toEqual([...ALL].sort());
    expect(Object.keys(EVENT_EXAMPLES).sort()).toEqual([...ALL].sort());
  });

  it.each<EventType>(ALL)('%s: the published example body validates against the published schema', (type) => {
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
  // @ts-expect-error not a catalog name
  void outbox.record(tx, 'c', 'tweet.liked', { tweet });
  // @ts-expect-error webhook.test is sent only by the test route, never recorded
  void outbox.record(tx, 'c', 'webhook.test', { endpointId: 'e', message: 'm' });
}
