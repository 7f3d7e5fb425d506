import type { Filter } from '../api/types';

/**
 * The endpoint form's filter editor (docs/api.md#content-filters): the common case as rows of
 * (field, operator, value) joined by all/any, turned into the filter's JSON and back. A filter the rows cannot
 * hold (nesting, `$not`, several operators on one field) is edited as JSON. The rules stay the API's: the page
 * builds the document and shows the server's 400 at the node its path names; it validates nothing itself.
 */

export const OPERATORS = [
  ['$eq', 'equals'],
  ['$neq', 'does not equal'],
  ['$in', 'is one of'],
  ['$nin', 'is none of'],
  ['$gt', '>'],
  ['$gte', '≥'],
  ['$lt', '<'],
  ['$lte', '≤'],
  ['$startsWith', 'starts with'],
  ['$exists', 'exists'],
] as const;
export type Operator = (typeof OPERATORS)[number][0];

export interface Condition {
  key: number;
  /** a body field, its levels joined by dots: `type`, `subject`, `data.tweet.authorId` */
  field: string;
  operator: Operator;
  /** as typed: a literal (JSON where it parses as a number, boolean, null or quoted string, else text); a list comma-separated */
  value: string;
}

export interface FilterForm {
  join: 'all' | 'any';
  conditions: Condition[];
}

let nextKey = 0;
export function condition(field = '', operator: Operator = '$eq', value = ''): Condition {
  return { key: nextKey++, field, operator, value };
}

type Literal = string | number | boolean | null;

function literalOf(text: string): Literal {
  const trimmed = text.trim();
  if (/^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null|".*")$/.test(trimmed)) {
    return JSON.parse(trimmed) as Literal;
  }
  return trimmed;
}

function textOf(value: Literal): string {
  // a string that would read back as another literal keeps its quotes
  return typeof value === 'string' && literalOf(value) === value ? value : JSON.stringify(value);
}

function operand(row: Condition): unknown {
  if (row.operator === '$exists') return row.value.trim() !== 'false';
  if (row.operator === '$in' || row.operator === '$nin') {
    return row.value
      .split(',')
      .filter((item) => item.trim() !== '')
      .map(literalOf);
  }
  return literalOf(row.value);
}

/** One condition as a document: the field's levels nested, the operator at the bottom. */
function documentOf(row: Condition): Record<string, unknown> {
  const levels = row.field.split('.').map((level) => level.trim());
  let node: unknown = { [row.operator]: operand(row) };
  for (const level of levels.reverse()) node = { [level]: node };
  return node as Record<string, unknown>;
}

/** The filter the rows say; null for no rows (every subscribed event). */
export function filterOf(form: FilterForm): Filter | null {
  const documents = form.conditions.map(documentOf);
  if (documents.length === 0) return null;
  if (documents.length === 1) return documents[0] as Filter;
  return { [form.join === 'all' ? '$and' : '$or']: documents } as Filter;
}

const OPERATOR_NAMES = new Set<string>(OPERATORS.map(([op]) => op));

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One document as a condition, when it is one field chain ending in one operator (or a literal). */
function conditionOf(document: unknown): Condition | null {
  const levels: string[] = [];
  let node = document;
  for (;;) {
    if (!isPlainObject(node)) {
      if (levels.length === 0 || Array.isArray(node) || typeof node === 'object') return null;
      return condition(levels.join('.'), '$eq', textOf(node as Literal));
    }
    const keys = Object.keys(node);
    if (keys.length !== 1) return null;
    const [key] = keys as [string];
    if (OPERATOR_NAMES.has(key)) {
      if (levels.length === 0) return null;
      const value = node[key];
      const field = levels.join('.');
      if (key === '$exists') return typeof value === 'boolean' ? condition(field, key, String(value)) : null;
      if (key === '$in' || key === '$nin') {
        if (!Array.isArray(value) || value.some((v) => typeof v === 'object' && v !== null)) return null;
        return condition(field, key, (value as Literal[]).map(textOf).join(', '));
      }
      if (typeof value === 'object' && value !== null) return null;
      return condition(field, key as Operator, textOf(value as Literal));
    }
    if (key.startsWith('$') || key.includes('.')) return null;
    levels.push(key);
    node = node[key];
  }
}

/** The rows for a filter, or null when it needs the JSON editor. */
export function formOf(filter: Filter | null | undefined): FilterForm | null {
  if (!filter) return { join: 'all', conditions: [] };
  const keys = Object.keys(filter);
  const list =
    keys.length === 1 && (keys[0] === '$and' || keys[0] === '$or')
      ? (filter as Record<string, unknown>)[keys[0]]
      : null;
  const documents = Array.isArray(list) ? list : [filter];
  const conditions = documents.map(conditionOf);
  if (conditions.some((c) => c === null)) return null;
  return { join: keys[0] === '$or' ? 'any' : 'all', conditions: conditions as Condition[] };
}

/**
 * Which row a server error's path (`filter.$and[1].data.x.$in[3]`) points into: the row's index, or null when
 * the path is the filter as a whole (`filter`) or not one the rows made.
 */
export function rowOfPath(path: string, rows: number): number | null {
  if (rows === 0 || (path !== 'filter' && !path.startsWith('filter.') && !path.startsWith('filter[')))
    return null;
  if (rows === 1) return path === 'filter' ? null : 0;
  const match = /^filter\.\$(?:and|or)\[(\d+)\]/.exec(path);
  return match ? Number(match[1]) : null;
}
