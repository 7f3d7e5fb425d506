import {
  customHeaderProblems,
  HEADER_VALUE_PATTERN,
  headerValueProblem,
  maskHeaderValue,
} from './endpoint-headers';

/** The value rules (docs/api.md#webhooks, "Custom headers"): what undici can send and a receiver reads as written. */
describe('custom header values', () => {
  const pattern = new RegExp(HEADER_VALUE_PATTERN);

  it.each([
    ['empty', ''],
    ['a token', 'Bearer rcv_4f9a2c71d3'],
    ['inner spaces and tabs', 'a b\tc'],
    [
      'every visible ASCII character',
      Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join(''),
    ],
    ['exactly 1,024 bytes', 'v'.repeat(1024)],
  ])('takes %s', (_what, value) => {
    expect(headerValueProblem(value)).toBeNull();
    expect(pattern.test(value)).toBe(true);
  });

  it.each([
    ['a control character', 'a\u0001b', 'control character'],
    ['NUL', 'a\0b', 'control character'],
    ['CR LF', 'a\r\nInjected: yes', 'control character'],
    ['a vertical tab', 'a\u000bb', 'control character'],
    ['DEL', 'a\u007fb', 'control character'],
    ['Latin-1 text', 'café', 'outside ASCII'],
    ['text past Latin-1', 'tok€n', 'outside ASCII'],
    ['a leading space', ' token', 'begin or end'],
    ['a trailing tab', 'token\t', 'begin or end'],
    ['1,025 bytes', 'v'.repeat(1025), 'longer than 1024 bytes'],
  ])('refuses %s, without quoting the value', (_what, value, said) => {
    const problem = headerValueProblem(value);
    expect(problem).toContain(said);
    if (value.trim().length > 3) expect(problem).not.toContain(value.trim());
    // the OpenAPI document says the length with maxLength, the rest with the pattern
    if (value.length <= 1024) expect(pattern.test(value)).toBe(false);
  });

  it('says so when the value is a mask that stands for nothing', () => {
    expect(headerValueProblem(maskHeaderValue('Bearer rcv_4f9a2c71d3'))).toContain('masked by a read');
  });

  it('names each header at fault, and refuses Expect in any case', () => {
    const problems = customHeaderProblems({ Expect: '100-continue', 'X-Ok': 'v', 'X-Bad': 'é', EXPECT: 'x' });
    expect(problems.flatMap((p) => p.names).sort()).toEqual([
      'EXPECT',
      'EXPECT',
      'Expect',
      'Expect',
      'X-Bad',
    ]);
    expect(problems.map((p) => p.message).join(' ')).not.toContain('X-Ok');
  });
});
