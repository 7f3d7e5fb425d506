import type { ValidationDetail } from '../errors/app-error';

/** The deepest JSON body the API parses: no DTO nests more than a few levels. */
export const MAX_JSON_DEPTH = 32;

/**
 * Index of the first byte at which `text` opens its (MAX_JSON_DEPTH + 1)-th nested array or
 * object, or -1. One pass over the text, counting brackets outside strings, BEFORE JSON.parse:
 * a 5,000-deep body never builds 5,000 nested objects, and what is refused costs at most one scan.
 * The scan does not judge syntax (JSON.parse does that next); it only has to agree with JSON.parse
 * on what is inside a string, which it does because a JSON string can only end at an unescaped '"'.
 */
export function exceedsJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return -1;
}

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What makes `s` unusable as text, or null when it is fine. */
function badText(s: string): string | null {
  // PostgreSQL text cannot hold U+0000 (22021); a lone surrogate is not Unicode at all and breaks
  // encodeURIComponent, UTF-8 encoding and every consumer of the value further on.
  if (s.includes('\u0000')) return 'NUL characters (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'unpaired UTF-16 surrogates';
  return null;
}

/** Stop after this many findings: the answer names enough fields, and the walk stays bounded. */
const MAX_FINDINGS = 20;

/**
 * Every string (values and keys) under `value` that is not valid text, named by its path in the
 * request the way the validation pipe names fields: `members.3.email`, `search`, `id`. The JSON depth
 * limit bounds the nesting, so the walk keeps an explicit stack rather than recursing.
 */
export function findBadStrings(value: unknown, root = ''): ValidationDetail[] {
  const found: ValidationDetail[] = [];
  const stack: [unknown, string][] = [[value, root]];
  const join = (parent: string, key: string) => (parent ? `${parent}.${key}` : key);
  while (stack.length > 0 && found.length < MAX_FINDINGS) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      const why = badText(current);
      const field = path || 'body';
      if (why) found.push({ field, message: `${field} must not contain ${why}` });
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], join(path, String(i))]);
    } else if (typeof current === 'object' && current !== null) {
      const entries = Object.entries(current as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        const why = badText(key);
        if (why) {
          // the key itself cannot be shown as-is; name the object that holds it
          const field = path || 'body';
          found.push({ field, message: `${field} must not have field names containing ${why}` });
          continue;
        }
        stack.push([child, join(path, key)]);
      }
    }
  }
  return found;
}
