import { condition, filterOf, formOf, rowOfPath } from './filter-model';

/** The filter editor's rows and the JSON the API takes (docs/api.md#content-filters), both ways. */
describe('the filter editor', () => {
  it('nests a dotted field and types each literal', () => {
    const form = { join: 'all' as const, conditions: [condition('data.tweet.likeCount', '$gte', '100')] };
    expect(filterOf(form)).toEqual({ data: { tweet: { likeCount: { $gte: 100 } } } });
    const text = { join: 'all' as const, conditions: [condition('type', '$eq', 'tweet.created')] };
    expect(filterOf(text)).toEqual({ type: { $eq: 'tweet.created' } });
    const quoted = { join: 'all' as const, conditions: [condition('subject', '$eq', '"42"')] };
    expect(filterOf(quoted)).toEqual({ subject: { $eq: '42' } });
  });

  it('joins rows with $and or $or, lists split on commas, $exists as a boolean', () => {
    const rows = [
      condition('data.member.role', '$in', 'ADMIN, MODERATOR'),
      condition('subject', '$exists', 'false'),
    ];
    expect(filterOf({ join: 'all', conditions: rows })).toEqual({
      $and: [
        { data: { member: { role: { $in: ['ADMIN', 'MODERATOR'] } } } },
        { subject: { $exists: false } },
      ],
    });
    expect(filterOf({ join: 'any', conditions: rows })).toHaveProperty('$or');
    expect(filterOf({ join: 'all', conditions: [] })).toBeNull();
  });

  it('reads back what it wrote, and leaves to JSON what the rows cannot hold', () => {
    const filter = { $or: [{ type: 'tweet.created' }, { data: { tweet: { likeCount: { $gte: 100 } } } }] };
    const form = formOf(filter as never)!;
    expect(form.join).toBe('any');
    expect(form.conditions.map(({ field, operator, value }) => [field, operator, value])).toEqual([
      ['type', '$eq', 'tweet.created'],
      ['data.tweet.likeCount', '$gte', '100'],
    ]);
    expect(filterOf(form)).toEqual({ $or: [{ type: { $eq: 'tweet.created' } }, filter.$or[1]] });
    expect(formOf({ $not: { type: 'tweet.created' } } as never)).toBeNull();
    expect(formOf({ data: { a: { $gt: 1, $lt: 5 } } } as never)).toBeNull();
    expect(formOf(null)).toEqual({ join: 'all', conditions: [] });
  });

  it("finds the row a server error's path points into", () => {
    expect(rowOfPath('filter.$and[1].data.member.role.$in[3]', 2)).toBe(1);
    expect(rowOfPath('filter.$or[0].author', 3)).toBe(0);
    expect(rowOfPath('filter.author', 1)).toBe(0);
    expect(rowOfPath('filter', 2)).toBeNull();
    expect(rowOfPath('url', 2)).toBeNull();
  });
});
