import { exceedsJsonDepth, findBadStrings, MAX_JSON_DEPTH } from './input-safety';

describe('exceedsJsonDepth', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH))).toBe(-1);
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(MAX_JSON_DEPTH);
    expect(exceedsJsonDepth(`{"a":${'{"b":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}}`)).toBe(
      5 * MAX_JSON_DEPTH,
    );
  });

  it('counts depth, not the number of brackets', () => {
    expect(exceedsJsonDepth(`[${'[],'.repeat(10_000)}[]]`)).toBe(-1);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(exceedsJsonDepth(JSON.stringify({ a: '['.repeat(100), b: '"[{'.repeat(100), c: '\\' }))).toBe(-1);
    expect(exceedsJsonDepth(JSON.stringify(['\\"', nested(MAX_JSON_DEPTH)]))).toBe(-1);
  });

  it('stops at the first bracket too deep, whatever follows', () => {
    expect(exceedsJsonDepth('['.repeat(1_000_000))).toBe(MAX_JSON_DEPTH);
  });
});

describe('findBadStrings', () => {
  it('names every NUL and lone surrogate by its path, keys included', () => {
    const found = findBadStrings({
      name: 'ok',
      members: [{ email: 'a@b.c' }, { email: 'x\u0000y' }],
      label: 'a\ud800',
      icon: '\udc00b',
      fine: '\ud83d\ude00 emoji is a valid pair',
      nested: { ['k\u0000']: 'v' },
      n: 1,
      t: true,
      z: null,
    });
    expect(found.map((d) => d.field)).toEqual(['members.1.email', 'label', 'icon', 'nested']);
    expect(found[0].message).toBe('members.1.email must not contain NUL characters (\\u0000)');
    expect(found[1].message).toBe('label must not contain unpaired UTF-16 surrogates');
    expect(found[3].message).toMatch(/nested must not have field names containing NUL/);
  });

  it('names a bad top-level string "body" and a clean value nothing', () => {
    expect(findBadStrings('\u0000')).toEqual([
      { field: 'body', message: 'body must not contain NUL characters (\\u0000)' },
    ]);
    expect(findBadStrings({ a: ['x', { b: 'y' }] })).toEqual([]);
    expect(findBadStrings(undefined)).toEqual([]);
  });

  it('stops after 20 findings', () => {
    expect(findBadStrings(Array.from({ length: 1000 }, () => '\u0000'))).toHaveLength(20);
  });
});
