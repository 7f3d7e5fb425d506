import { parseInstant } from './filter-instants';

/**
 * An endpoint's content filter (docs/api.md#content-filters): which of its subscribed events it is
 * sent, decided on the body it would receive. Written once by the API (compileFilter refuses a bad
 * one, naming the first bad node), stored as written, compiled again by each worker into a matcher
 * of closures: no code is generated and no user text becomes a regular expression.
 */

/** A value compared for equality: JSON's scalars. */
export type FilterLiteral = string | number | boolean | null;

/** The operators a field's condition may use, all of which must hold. */
export interface FilterOperators {
  $eq?: FilterLiteral;
  $neq?: FilterLiteral;
  $in?: FilterLiteral[];
  $nin?: FilterLiteral[];
  $gt?: number | string;
  $gte?: number | string;
  $lt?: number | string;
  $lte?: number | string;
  $exists?: boolean;
  $startsWith?: string;
}

/** A field's condition: a literal (equality), an object of operators, or a document for a nested object. */
export type FilterCondition = FilterLiteral | FilterOperators | FilterDocument;

/** Field names (each condition must hold) and the logical keys $and, $or (some holds) and $not. */
export interface FilterDocument {
  $and?: FilterDocument[];
  $or?: FilterDocument[];
  $not?: FilterDocument;
  [field: string]: FilterCondition | FilterDocument[] | undefined;
}

/** What a filter is matched against: the delivered body, of which it may read these top-level fields. */
export interface FilterableBody {
  type: string;
  timestamp: string;
  /** the resource the event is about (null for an event raised before subjects were recorded) */
  subject?: string | null;
  data: unknown;
}
export const FILTERABLE_FIELDS = ['type', 'timestamp', 'subject', 'data'] as const;

export const FILTER_LIMITS = {
  /** levels of objects and arrays, the filter itself being the first */
  depth: 8,
  /** keys in all: field names, $and/$or/$not and operators (the items of $in and $nin are not counted) */
  nodes: 100,
  /** of its JSON text, UTF-8 */
  bytes: 4096,
  /** items of one $in or $nin */
  listItems: 100,
} as const;

export type EventMatcher = (body: FilterableBody) => boolean;

/** Why a filter is refused: the path of the first bad node (`filter.data.tweet.$in[3]`) and what is wrong. */
export class FilterProblem extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const COMPARISON = new Set([
  '$eq',
  '$neq',
  '$in',
  '$nin',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$exists',
  '$startsWith',
]);
const RANGE = new Set(['$gt', '$gte', '$lt', '$lte']);

type Test = (value: unknown) => boolean;

/**
 * The matcher of a filter document, or a FilterProblem for the first node (in the document's key
 * order) that breaks a rule. `root` is the path errors start with.
 */
export function compileFilter(filter: unknown, root = 'filter'): EventMatcher {
  if (Buffer.byteLength(JSON.stringify(filter) ?? '', 'utf8') > FILTER_LIMITS.bytes)
    throw new FilterProblem(root, `${root} is longer than ${FILTER_LIMITS.bytes} bytes as JSON`);
  return new Compiler(root).document(filter, root, 1, true);
}

class Compiler {
  private nodes = 0;

  constructor(private readonly root: string) {}

  /** A document: every key's test must hold. At the top level, fields are those of FILTERABLE_FIELDS. */
  document(value: unknown, path: string, depth: number, top: boolean): Test {
    this.enter(path, depth);
    if (!isPlainObject(value))
      throw new FilterProblem(path, `${path} must be an object of field names, $and, $or or $not`);
    const keys = Object.keys(value);
    if (keys.length === 0)
      throw new FilterProblem(
        path,
        path === this.root
          ? `${path} must hold at least one condition (null sends every subscribed event)`
          : `${path} must not be empty`,
      );
    const tests = keys.map((key) => this.documentKey(key, value[key], join(path, key), depth, top));
    return tests.length === 1 ? tests[0] : (subject) => tests.every((test) => test(subject));
  }

  private documentKey(key: string, value: unknown, path: string, depth: number, top: boolean): Test {
    this.count(path);
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value) || value.length === 0)
        throw new FilterProblem(path, `${path} must be a non-empty list of filter documents`);
      this.enter(path, depth + 1);
      const parts = value.map((item, i) => this.document(item, `${path}[${i}]`, depth + 2, top));
      return key === '$and'
        ? (subject) => parts.every((part) => part(subject))
        : (subject) => parts.some((part) => part(subject));
    }
    if (key === '$not') {
      const inner = this.document(value, path, depth + 1, top);
      return (subject) => !inner(subject);
    }
    if (COMPARISON.has(key))
      throw new FilterProblem(
        path,
        `${path}: ${key} applies to a field; name the field first, as in {"type": {"${key}": …}}`,
      );
    if (key.startsWith('$'))
      throw new FilterProblem(
        path,
        `${path}: ${key} is not an operator (${[...COMPARISON].join(', ')}) nor $and, $or or $not`,
      );
    if (key === '') throw new FilterProblem(path, `${path}: a field name must not be empty`);
    if (key.includes('.'))
      throw new FilterProblem(
        path,
        `${path}: a field name must not contain "."; nest objects instead, as in {"data": {"tweet": {"authorId": …}}}`,
      );
    if (top && !(FILTERABLE_FIELDS as readonly string[]).includes(key))
      throw new FilterProblem(
        path,
        `${path}: a filter matches the delivered body's ${FILTERABLE_FIELDS.join(', ')}; ${key} is none of them`,
      );
    const condition = this.condition(value, path, depth + 1);
    return (subject) => condition(field(subject, key));
  }

  /** A field's condition, tested against the field's value (undefined when it is absent). */
  private condition(value: unknown, path: string, depth: number): Test {
    if (isLiteral(value)) return equals(value);
    if (Array.isArray(value))
      throw new FilterProblem(
        path,
        `${path} must be a literal, an object of operators or a nested document; to match one of several values use $in`,
      );
    if (!isPlainObject(value))
      throw new FilterProblem(path, `${path} must be a literal, an object of operators or a nested document`);
    const keys = Object.keys(value);
    if (!keys.some((key) => COMPARISON.has(key))) {
      // a nested document: it holds for the object in the field, or for any object of a list there
      const nested = this.document(value, path, depth, false);
      return (fieldValue) => (Array.isArray(fieldValue) ? fieldValue.some(nested) : nested(fieldValue));
    }
    this.enter(path, depth);
    const tests = keys.map((key) => this.operator(key, value[key], join(path, key), depth));
    return tests.length === 1 ? tests[0] : (fieldValue) => tests.every((test) => test(fieldValue));
  }

  private operator(key: string, operand: unknown, path: string, depth: number): Test {
    this.count(path);
    if (!COMPARISON.has(key))
      throw new FilterProblem(
        path,
        key.startsWith('$')
          ? `${path}: ${key} is not an operator of a field's condition (${[...COMPARISON].join(', ')})`
          : `${path}: an object of operators cannot also name fields; nest the field in a document of its own`,
      );
    if (key === '$eq' || key === '$neq') {
      if (!isLiteral(operand))
        throw new FilterProblem(path, `${path} must be a string, a number, a boolean or null`);
      const test = equals(operand);
      return key === '$eq' ? test : (fieldValue) => !test(fieldValue);
    }
    if (key === '$in' || key === '$nin') {
      const list = this.literalList(operand, path, depth + 1);
      const test: Test = (fieldValue) => anyItem(fieldValue, (item) => list.has(item as FilterLiteral));
      return key === '$in' ? test : (fieldValue) => !test(fieldValue);
    }
    if (RANGE.has(key)) return range(key, operand, path);
    if (key === '$exists') {
      if (typeof operand !== 'boolean') throw new FilterProblem(path, `${path} must be true or false`);
      return (fieldValue) => (fieldValue !== undefined) === operand;
    }
    // $startsWith: a plain prefix, compared as it is (no pattern, no case folding)
    if (typeof operand !== 'string') throw new FilterProblem(path, `${path} must be a string`);
    return (fieldValue) =>
      anyItem(fieldValue, (item) => typeof item === 'string' && item.startsWith(operand));
  }

  private literalList(operand: unknown, path: string, depth: number): Set<FilterLiteral> {
    if (!Array.isArray(operand) || operand.length === 0)
      throw new FilterProblem(path, `${path} must be a list of 1 to ${FILTER_LIMITS.listItems} literals`);
    this.enter(path, depth);
    operand.forEach((item, i) => {
      if (i >= FILTER_LIMITS.listItems)
        throw new FilterProblem(
          `${path}[${i}]`,
          `${path}[${i}] is one value too many: ${path} lists at most ${FILTER_LIMITS.listItems}`,
        );
      if (!isLiteral(item))
        throw new FilterProblem(
          `${path}[${i}]`,
          `${path}[${i}] must be a string, a number, a boolean or null`,
        );
    });
    return new Set(operand as FilterLiteral[]);
  }

  /** Entering an object or a list at `depth`: refused past the depth limit. */
  private enter(path: string, depth: number): void {
    if (depth > FILTER_LIMITS.depth)
      throw new FilterProblem(path, `${path} is nested deeper than ${FILTER_LIMITS.depth} levels`);
  }

  /** One more key: refused past the node limit. */
  private count(path: string): void {
    if (++this.nodes > FILTER_LIMITS.nodes)
      throw new FilterProblem(
        path,
        `${this.root} has more than ${FILTER_LIMITS.nodes} nodes (keys); ${path} is one too many`,
      );
  }
}

/** $gt, $gte, $lt, $lte: against a number, or an ISO-8601 instant compared as one. */
function range(key: string, operand: unknown, path: string): Test {
  const holds: (a: number, b: number) => boolean =
    key === '$gt'
      ? (a, b) => a > b
      : key === '$gte'
        ? (a, b) => a >= b
        : key === '$lt'
          ? (a, b) => a < b
          : (a, b) => a <= b;
  if (typeof operand === 'number') {
    return (fieldValue) => anyItem(fieldValue, (item) => typeof item === 'number' && holds(item, operand));
  }
  const instant = typeof operand === 'string' ? parseInstant(operand) : null;
  if (instant === null)
    throw new FilterProblem(
      path,
      `${path} must be a number or an ISO-8601 date or date-time with its offset (2026-01-31, 2026-01-31T09:30:00Z)`,
    );
  return (fieldValue) =>
    anyItem(fieldValue, (item) => {
      if (typeof item !== 'string') return false;
      const at = parseInstant(item);
      return at !== null && holds(at, instant);
    });
}

/** Equality with a literal: the field holds it, or is a list that does (as MongoDB matches arrays). */
function equals(literal: FilterLiteral): Test {
  return (fieldValue) =>
    fieldValue === literal || (Array.isArray(fieldValue) && fieldValue.includes(literal));
}

/** The test holds for the value, or for any item when the value is a list. */
function anyItem(fieldValue: unknown, test: (item: unknown) => boolean): boolean {
  return Array.isArray(fieldValue) ? fieldValue.some(test) : test(fieldValue);
}

/** The subject's own field (never one inherited from Object.prototype); undefined when absent. */
function field(subject: unknown, key: string): unknown {
  return isPlainObject(subject) && Object.prototype.hasOwnProperty.call(subject, key)
    ? subject[key]
    : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isLiteral(value: unknown): value is FilterLiteral {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** `filter.data`, `filter["odd key"]`: how a path names a key. */
function join(path: string, key: string): string {
  return /^[$A-Za-z_][$\w-]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
