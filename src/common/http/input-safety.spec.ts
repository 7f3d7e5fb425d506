import {
  findBadStrings,
  jsonShapeViolation,
  MAX_JSON_DEPTH,
  MAX_KEYS_PER_BODY,
  MAX_KEYS_PER_OBJECT,
  queryShapeViolation,
  routeBodyKeyLimit,
} from './input-safety';

describe('jsonShapeViolation: depth', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const tooDeep = `JSON body nested deeper than ${MAX_JSON_DEPTH} levels`;

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
    expect(jsonShapeViolation(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(jsonShapeViolation(nested(MAX_JSON_DEPTH + 1))).toBe(tooDeep);
    expect(jsonShapeViolation(`{"a":${'{"b":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}}`)).toBe(
      tooDeep,
    );
  });

  it('counts depth, not the number of brackets', () => {
    expect(jsonShapeViolation(`[${'[],'.repeat(10_000)}[]]`)).toBeNull();
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(
      jsonShapeViolation(JSON.stringify({ a: '['.repeat(100), b: '"[{'.repeat(100), c: '\\' })),
    ).toBeNull();
    expect(jsonShapeViolation(JSON.stringify(['\\"', nested(MAX_JSON_DEPTH)]))).toBeNull();
  });

  it('stops at the first bracket too deep, whatever follows', () => {
    expect(jsonShapeViolation('['.repeat(1_000_000))).toBe(tooDeep);
  });
});

describe('jsonShapeViolation: fields', () => {
  const object = (keys: number, prefix = 'k') =>
    Object.fromEntries(Array.from({ length: keys }, (_, i) => [`${prefix}${i}`, i]));

  it(`accepts ${MAX_KEYS_PER_OBJECT} fields in one object and refuses one more, naming the limit`, () => {
    expect(jsonShapeViolation(JSON.stringify(object(MAX_KEYS_PER_OBJECT)))).toBeNull();
    expect(jsonShapeViolation(JSON.stringify(object(MAX_KEYS_PER_OBJECT + 1)))).toBe(
      `A JSON object has more than ${MAX_KEYS_PER_OBJECT} fields`,
    );
    expect(jsonShapeViolation(JSON.stringify({ a: [{ b: object(MAX_KEYS_PER_OBJECT + 1) }] }))).toBe(
      `A JSON object has more than ${MAX_KEYS_PER_OBJECT} fields`,
    );
  });

  it(`counts every object of the body against ${MAX_KEYS_PER_BODY} fields in all`, () => {
    const spread = (objects: number) =>
      JSON.stringify({ items: Array.from({ length: objects }, () => object(10)) });
    // `items` and 10 fields per object: the most objects that stay within the limit, then one more
    const fitting = Math.floor((MAX_KEYS_PER_BODY - 1) / 10);
    expect(jsonShapeViolation(spread(fitting))).toBeNull();
    expect(jsonShapeViolation(spread(fitting + 1))).toBe(
      `The JSON body has more than ${MAX_KEYS_PER_BODY} fields in all`,
    );
  });

  it('takes a route-specific limit for the whole body', () => {
    const body = JSON.stringify({ items: Array.from({ length: 300 }, () => object(10)) });
    const limits = { maxDepth: MAX_JSON_DEPTH, maxKeysPerObject: MAX_KEYS_PER_OBJECT, maxKeysPerBody: 3_001 };
    expect(jsonShapeViolation(body, limits)).toBeNull();
    expect(jsonShapeViolation(body, { ...limits, maxKeysPerBody: 3_000 })).not.toBeNull();
    expect(routeBodyKeyLimit({ bodyKeyLimit: 3_001 })).toBe(3_001);
    expect(routeBodyKeyLimit(undefined)).toBe(MAX_KEYS_PER_BODY);
  });

  it('counts the colons that end keys, not those inside strings or arrays', () => {
    const manyColons = JSON.stringify({
      a: ':'.repeat(10_000),
      b: Array.from({ length: 5_000 }, () => 'x:y'),
    });
    expect(jsonShapeViolation(manyColons)).toBeNull();
    expect(jsonShapeViolation(JSON.stringify({ 'a:b\\"': 1, ['"'.repeat(3)]: 2 }))).toBeNull();
  });

  it('refuses a 1 MiB body of 110,000 fields, and reads 1 MiB of colons inside a string as one value', () => {
    // the event-loop budget itself is measured end to end in test/http/input-limits.e2e-spec.ts
    expect(jsonShapeViolation(JSON.stringify(object(110_000)))).toBe(
      `A JSON object has more than ${MAX_KEYS_PER_OBJECT} fields`,
    );
    expect(jsonShapeViolation(`[${JSON.stringify(':'.repeat(1024 * 1024))}]`)).toBeNull();
  });
});

describe('queryShapeViolation', () => {
  it(`accepts ${MAX_KEYS_PER_OBJECT} parameters and refuses one more`, () => {
    const query = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, '1']));
    expect(queryShapeViolation(query(MAX_KEYS_PER_OBJECT))).toBeNull();
    expect(queryShapeViolation(query(MAX_KEYS_PER_OBJECT + 1))).toBe(
      `The query string has more than ${MAX_KEYS_PER_OBJECT} parameters`,
    );
    expect(queryShapeViolation(undefined)).toBeNull();
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
