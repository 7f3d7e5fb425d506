import { RouteConfig } from '@nestjs/platform-fastify';
import type { ValidationDetail } from '../errors/app-error';

/** The deepest JSON body the API parses: no DTO nests more than a few levels. */
export const MAX_JSON_DEPTH = 32;
/** Fields of one JSON object, and of one query string: no DTO declares more than a few dozen. */
export const MAX_KEYS_PER_OBJECT = 200;
/**
 * Fields in a whole body, every object counted. A route whose valid bodies need more (the bulk
 * members route: 1,000 entries of three fields) raises it for itself with `@BodyKeyLimit`.
 */
export const MAX_KEYS_PER_BODY = 1_000;

const BODY_KEY_LIMIT = 'bodyKeyLimit';

/**
 * Raises MAX_KEYS_PER_BODY for one route whose valid bodies need more fields (set on the Fastify
 * route's config, which the body parser reads before the body is parsed).
 */
export const BodyKeyLimit = (maxKeys: number) => RouteConfig({ [BODY_KEY_LIMIT]: maxKeys });

/** The field limit of a route's bodies: its @BodyKeyLimit, or MAX_KEYS_PER_BODY. */
export function routeBodyKeyLimit(routeConfig: unknown): number {
  const limit = (routeConfig as Record<string, unknown> | undefined)?.[BODY_KEY_LIMIT];
  return typeof limit === 'number' ? limit : MAX_KEYS_PER_BODY;
}

export interface JsonShapeLimits {
  maxDepth: number;
  maxKeysPerObject: number;
  maxKeysPerBody: number;
}

export const DEFAULT_JSON_SHAPE_LIMITS: JsonShapeLimits = {
  maxDepth: MAX_JSON_DEPTH,
  maxKeysPerObject: MAX_KEYS_PER_OBJECT,
  maxKeysPerBody: MAX_KEYS_PER_BODY,
};

/**
 * The first limit `text` breaks, said the way a 400 says it (naming the limit, never the fields), or
 * null. One pass over the text BEFORE JSON.parse, counting brackets and the `:` that end object keys
 * outside strings: a body of 110,000 fields is refused after one scan instead of being parsed
 * (JSON.parse alone holds the event loop long on it, and class-transformer and class-validator then work per
 * field, one of them quadratically), and a 5,000-deep body never builds 5,000 nested objects.
 * The scan does not judge syntax (JSON.parse does that next); it only has to agree with JSON.parse
 * on what is inside a string, which it does because a JSON string can only end at an unescaped '"'.
 */
export function jsonShapeViolation(
  text: string,
  limits: JsonShapeLimits = DEFAULT_JSON_SHAPE_LIMITS,
): string | null {
  const { maxDepth, maxKeysPerObject, maxKeysPerBody } = limits;
  // per open container: its key count, or -1 for an array (whose `:` can only be inside strings)
  const keys = new Int32Array(maxDepth + 1);
  let depth = 0;
  let total = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x3a /* : */) {
      if (depth > 0 && keys[depth - 1] >= 0) {
        if (++keys[depth - 1] > maxKeysPerObject)
          return `A JSON object has more than ${maxKeysPerObject} fields`;
        if (++total > maxKeysPerBody) return `The JSON body has more than ${maxKeysPerBody} fields in all`;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (depth >= maxDepth) return `JSON body nested deeper than ${maxDepth} levels`;
      keys[depth++] = c === 0x7b ? 0 : -1;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      if (depth > 0) depth--;
    }
  }
  return null;
}

/** The limit a parsed query string breaks (it is flat: one object), or null. */
export function queryShapeViolation(query: unknown, maxKeys = MAX_KEYS_PER_OBJECT): string | null {
  if (!query || typeof query !== 'object') return null;
  let count = 0;
  for (const key in query) if (Object.hasOwn(query, key) && ++count > maxKeys) break;
  return count > maxKeys ? `The query string has more than ${maxKeys} parameters` : null;
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
