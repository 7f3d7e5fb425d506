import { compileFilter, FILTER_LIMITS, FilterProblem, type FilterableBody } from './event-filter';
import { parseInstant } from './filter-instants';

/** Filters of docs/api.md#content-filters: what each one matches, and where a bad one is refused. */
describe('compileFilter', () => {
  const body = (
    data: unknown,
    type = 'tweet.created',
    timestamp = '2026-03-10T12:00:00.000Z',
  ): FilterableBody => ({
    type,
    timestamp,
    data,
  });
  const tweet = body({
    tweet: {
      id: 't1',
      authorId: 'u1',
      content: 'Hello, world',
      likeCount: 5,
      createdAt: '2026-03-10T12:00:00.000Z',
    },
    tags: ['news', 'staff'],
    mentions: [
      { userId: 'u2', role: 'ADMIN' },
      { userId: 'u3', role: 'MEMBER' },
    ],
    parentId: null,
  });
  const matches = (filter: unknown, subject: FilterableBody = tweet) => compileFilter(filter)(subject);

  /** The problem compileFilter throws for `filter`. */
  function problem(filter: unknown): FilterProblem {
    try {
      compileFilter(filter);
    } catch (err) {
      if (err instanceof FilterProblem) return err;
      throw err;
    }
    throw new Error(`${JSON.stringify(filter)} was accepted`);
  }

  describe('fields', () => {
    it('matches a literal by equality, at the top level and in nested documents', () => {
      expect(matches({ type: 'tweet.created' })).toBe(true);
      expect(matches({ type: 'tweet.deleted' })).toBe(false);
      expect(matches({ data: { tweet: { authorId: 'u1' } } })).toBe(true);
      expect(matches({ data: { tweet: { authorId: 'u2' } } })).toBe(false);
      expect(matches({ data: { tweet: { likeCount: 5 } } })).toBe(true);
      expect(matches({ data: { tweet: { likeCount: '5' } } })).toBe(false);
      expect(matches({ data: { parentId: null } })).toBe(true);
    });

    it('requires every field of a document', () => {
      expect(matches({ type: 'tweet.created', data: { tweet: { authorId: 'u1', likeCount: 5 } } })).toBe(
        true,
      );
      expect(matches({ type: 'tweet.created', data: { tweet: { authorId: 'u1', likeCount: 6 } } })).toBe(
        false,
      );
    });

    it('never matches an absent field by a literal, null included', () => {
      expect(matches({ data: { missing: null } })).toBe(false);
      expect(matches({ data: { tweet: { content: { nested: 'x' } } } })).toBe(false);
    });

    it("reads only the event's own fields, never inherited ones", () => {
      expect(matches({ data: { tweet: { toString: { $exists: true } } } })).toBe(false);
    });

    it('matches a literal against a list if any item equals it', () => {
      expect(matches({ data: { tags: 'staff' } })).toBe(true);
      expect(matches({ data: { tags: 'sports' } })).toBe(false);
    });

    it('matches a nested document against a list if one item matches all of it', () => {
      expect(matches({ data: { mentions: { userId: 'u2', role: 'ADMIN' } } })).toBe(true);
      // u2 is ADMIN and u3 MEMBER: no one item is both
      expect(matches({ data: { mentions: { userId: 'u3', role: 'ADMIN' } } })).toBe(false);
    });
  });

  describe('operators', () => {
    const likes = (condition: unknown) => matches({ data: { tweet: { likeCount: condition } } });
    const content = (condition: unknown) => matches({ data: { tweet: { content: condition } } });

    it('$eq and $neq', () => {
      expect(likes({ $eq: 5 })).toBe(true);
      expect(likes({ $eq: 4 })).toBe(false);
      expect(likes({ $neq: 4 })).toBe(true);
      expect(likes({ $neq: 5 })).toBe(false);
      // $neq holds for an absent field (add $exists: true to require it) and for a list without the value
      expect(matches({ data: { absent: { $neq: 'x' } } })).toBe(true);
      expect(matches({ data: { tags: { $neq: 'staff' } } })).toBe(false);
      expect(matches({ data: { tags: { $neq: 'sports' } } })).toBe(true);
    });

    it('$in and $nin', () => {
      expect(likes({ $in: [1, 5, 9] })).toBe(true);
      expect(likes({ $in: [1, 9] })).toBe(false);
      expect(likes({ $nin: [1, 9] })).toBe(true);
      expect(likes({ $nin: [5] })).toBe(false);
      expect(matches({ data: { tags: { $in: ['sports', 'news'] } } })).toBe(true);
      expect(matches({ data: { tags: { $nin: ['sports', 'news'] } } })).toBe(false);
      expect(matches({ data: { parentId: { $in: [null] } } })).toBe(true);
    });

    it('$gt, $gte, $lt, $lte on numbers', () => {
      expect(likes({ $gt: 4 })).toBe(true);
      expect(likes({ $gt: 5 })).toBe(false);
      expect(likes({ $gte: 5 })).toBe(true);
      expect(likes({ $gte: 6 })).toBe(false);
      expect(likes({ $lt: 6 })).toBe(true);
      expect(likes({ $lt: 5 })).toBe(false);
      expect(likes({ $lte: 5 })).toBe(true);
      expect(likes({ $lte: 4 })).toBe(false);
      expect(likes({ $gt: 1, $lt: 10 })).toBe(true);
      expect(likes({ $gt: 1, $lt: 3 })).toBe(false);
      // a string is no number
      expect(matches({ data: { tweet: { authorId: { $gt: 0 } } } })).toBe(false);
    });

    it('$gt, $gte, $lt, $lte on ISO-8601 strings, compared as instants', () => {
      const created = (condition: unknown) => matches({ data: { tweet: { createdAt: condition } } });
      expect(created({ $gt: '2026-03-10T11:59:59Z' })).toBe(true);
      // the same instant in another offset
      expect(created({ $gte: '2026-03-10T13:00:00+01:00' })).toBe(true);
      expect(created({ $gt: '2026-03-10T13:00:00+01:00' })).toBe(false);
      expect(created({ $lt: '2026-03-11' })).toBe(true);
      expect(created({ $lte: '2026-03-10' })).toBe(false);
      expect(
        matches({ timestamp: { $gte: '2026-03-10T12:00:00.000Z', $lt: '2026-03-10T12:00:00.001Z' } }),
      ).toBe(true);
      // a field that is no instant never compares
      expect(content({ $gt: '2026-01-01' })).toBe(false);
      expect(likes({ $gt: '2026-01-01' })).toBe(false);
    });

    it('$exists', () => {
      expect(matches({ data: { tweet: { id: { $exists: true } } } })).toBe(true);
      expect(matches({ data: { tweet: { id: { $exists: false } } } })).toBe(false);
      expect(matches({ data: { tweet: { gone: { $exists: false } } } })).toBe(true);
      expect(matches({ data: { tweet: { gone: { $exists: true } } } })).toBe(false);
      // null is a value: the field exists
      expect(matches({ data: { parentId: { $exists: true } } })).toBe(true);
      // under an absent object every field is absent
      expect(matches({ data: { comment: { id: { $exists: false } } } })).toBe(true);
    });

    it('$startsWith: a plain, case-sensitive prefix', () => {
      expect(content({ $startsWith: 'Hello' })).toBe(true);
      expect(content({ $startsWith: 'hello' })).toBe(false);
      expect(content({ $startsWith: '.*' })).toBe(false);
      expect(matches({ data: { tags: { $startsWith: 'sta' } } })).toBe(true);
      expect(likes({ $startsWith: '5' })).toBe(false);
    });
  });

  describe('$and, $or, $not', () => {
    it('$and holds when every document does', () => {
      expect(matches({ $and: [{ type: 'tweet.created' }, { data: { tweet: { likeCount: 5 } } }] })).toBe(
        true,
      );
      expect(matches({ $and: [{ type: 'tweet.created' }, { data: { tweet: { likeCount: 6 } } }] })).toBe(
        false,
      );
    });

    it('$or holds when one document does', () => {
      expect(matches({ $or: [{ type: 'tweet.deleted' }, { data: { tweet: { likeCount: 5 } } }] })).toBe(true);
      expect(matches({ $or: [{ type: 'tweet.deleted' }, { data: { tweet: { likeCount: 6 } } }] })).toBe(
        false,
      );
    });

    it('$not holds when its document does not', () => {
      expect(matches({ $not: { type: 'tweet.deleted' } })).toBe(true);
      expect(matches({ $not: { type: 'tweet.created' } })).toBe(false);
    });

    it('work inside nested documents, relative to the nested object', () => {
      const filter = { data: { tweet: { $or: [{ authorId: 'u9' }, { likeCount: { $gte: 5 } }] } } };
      expect(matches(filter)).toBe(true);
      expect(matches(filter, body({ tweet: { authorId: 'u1', likeCount: 1 } }))).toBe(false);
      expect(matches({ data: { tweet: { $not: { authorId: 'u1' } } } })).toBe(false);
    });
  });

  describe('refused filters name the first bad node', () => {
    it.each([
      [[], 'filter'],
      ['tweet', 'filter'],
      [{}, 'filter'],
      [{ author: 'u1' }, 'filter.author'],
      [{ id: 'msg_1' }, 'filter.id'],
      [{ 'data.tweet.authorId': 'u1' }, 'filter["data.tweet.authorId"]'],
      [{ data: { '': 1 } }, 'filter.data[""]'],
      [{ $eq: 'tweet.created' }, 'filter.$eq'],
      [{ $nor: [{ type: 'x' }] }, 'filter.$nor'],
      [{ data: {} }, 'filter.data'],
      [{ data: { tags: ['a', 'b'] } }, 'filter.data.tags'],
      [{ data: { tweet: { likeCount: { $gt: 1, likes: 2 } } } }, 'filter.data.tweet.likeCount.likes'],
      [{ data: { tweet: { likeCount: { $gt: 1, $regex: '.*' } } } }, 'filter.data.tweet.likeCount.$regex'],
      [{ data: { tweet: { likeCount: { $eq: [1] } } } }, 'filter.data.tweet.likeCount.$eq'],
      [{ data: { tweet: { likeCount: { $neq: { a: 1 } } } } }, 'filter.data.tweet.likeCount.$neq'],
      [{ data: { tweet: { likeCount: { $in: 1 } } } }, 'filter.data.tweet.likeCount.$in'],
      [{ data: { tweet: { likeCount: { $nin: [] } } } }, 'filter.data.tweet.likeCount.$nin'],
      [{ data: { author: { role: { $in: ['A', 'B', 'C', { x: 1 }] } } } }, 'filter.data.author.role.$in[3]'],
      [{ data: { tweet: { likeCount: { $gt: true } } } }, 'filter.data.tweet.likeCount.$gt'],
      [{ data: { tweet: { createdAt: { $lt: '2026-03-10T12:00:00' } } } }, 'filter.data.tweet.createdAt.$lt'],
      [{ data: { tweet: { createdAt: { $lte: '2026-02-30' } } } }, 'filter.data.tweet.createdAt.$lte'],
      [{ data: { tweet: { createdAt: { $gte: 'yesterday' } } } }, 'filter.data.tweet.createdAt.$gte'],
      [{ data: { tweet: { id: { $exists: 'yes' } } } }, 'filter.data.tweet.id.$exists'],
      [{ data: { tweet: { content: { $startsWith: 1 } } } }, 'filter.data.tweet.content.$startsWith'],
      [{ $and: [] }, 'filter.$and'],
      [{ $or: { type: 'x' } }, 'filter.$or'],
      [{ $or: [{ type: 'x' }, 'y'] }, 'filter.$or[1]'],
      [{ $or: [{ type: 'x' }, { author: 'y' }] }, 'filter.$or[1].author'],
      [{ $not: [{ type: 'x' }] }, 'filter.$not'],
      [{ type: { $and: [{ a: 1 }], $eq: 'x' } }, 'filter.type.$and'],
    ])('%j is refused at %s', (filter, path) => {
      const refused = problem(filter);
      expect(refused.path).toBe(path);
      expect(refused.message).toContain(path);
    });

    it(`refuses a filter nested deeper than ${FILTER_LIMITS.depth} levels at the first node too deep`, () => {
      // levels: the filter 1, data 2, a 3 … g 8: a literal in g is fine, an object there is level 9
      const atLimit = { data: { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } } };
      expect(matches(atLimit, body({ a: { b: { c: { d: { e: { f: { g: 1 } } } } } } }))).toBe(true);
      expect(problem({ data: { a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } } }).path).toBe(
        'filter.data.a.b.c.d.e.f.g',
      );
      expect(problem({ data: { a: { b: { c: { d: { e: { f: { g: { $in: [1] } } } } } } } } }).path).toBe(
        'filter.data.a.b.c.d.e.f.g',
      );
      // a list counts as a level: $and's documents sit two below it
      expect(problem({ $and: [{ $and: [{ $and: [{ $and: [{ type: 'x' }] }] }] }] }).path).toBe(
        'filter.$and[0].$and[0].$and[0].$and[0]',
      );
      expect(problem({ data: { a: { b: { c: { d: { e: { f: { $in: [1] } } } } } } } }).message).toContain(
        `deeper than ${FILTER_LIMITS.depth} levels`,
      );
    });

    it(`refuses more than ${FILTER_LIMITS.nodes} nodes at the first one too many`, () => {
      const fields = (count: number) =>
        Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, i]));
      // data is one node, its fields the others
      expect(() => compileFilter({ data: fields(FILTER_LIMITS.nodes - 1) })).not.toThrow();
      const refused = problem({ data: fields(FILTER_LIMITS.nodes) });
      expect(refused.path).toBe(`filter.data.f${FILTER_LIMITS.nodes - 1}`);
      expect(refused.message).toContain(`more than ${FILTER_LIMITS.nodes} nodes`);
      // operators are nodes, the values of a list are not
      const list = Array.from({ length: FILTER_LIMITS.listItems }, (_, i) => i);
      expect(() => compileFilter({ data: { a: { $in: list, $gt: 1 } } })).not.toThrow();
    });

    it(`refuses more than ${FILTER_LIMITS.listItems} values in $in or $nin at the first one too many`, () => {
      const list = Array.from({ length: FILTER_LIMITS.listItems + 1 }, (_, i) => i);
      const refused = problem({ data: { a: { $nin: list } } });
      expect(refused.path).toBe(`filter.data.a.$nin[${FILTER_LIMITS.listItems}]`);
    });

    it(`refuses more than ${FILTER_LIMITS.bytes} bytes of JSON, naming the filter`, () => {
      const text = (length: number) => ({ data: { content: 'x'.repeat(length) } });
      const room = FILTER_LIMITS.bytes - JSON.stringify(text(0)).length;
      expect(() => compileFilter(text(room))).not.toThrow();
      const refused = problem(text(room + 1));
      expect(refused.path).toBe('filter');
      expect(refused.message).toContain(`${FILTER_LIMITS.bytes} bytes`);
      // counted in UTF-8 bytes, not characters
      expect(problem({ data: { content: 'é'.repeat(room / 2 + 1) } }).path).toBe('filter');
    });
  });
});

describe('parseInstant', () => {
  it.each([
    ['2026-03-10', Date.UTC(2026, 2, 10)],
    ['2026-03-10T12:00Z', Date.UTC(2026, 2, 10, 12)],
    ['2026-03-10T12:00:00.5+02:00', Date.UTC(2026, 2, 10, 10, 0, 0, 500)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
  ])('reads %s', (text, at) => expect(parseInstant(text)).toBe(at));

  it.each([
    '2026-03-10T12:00:00',
    '2025-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-03-10T24:00:00Z',
    '10/03/2026',
    '',
  ])('refuses %p', (text) => expect(parseInstant(text)).toBeNull());
});
