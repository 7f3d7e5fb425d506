import { ISO } from '../../prisma/iso-text';
import type { PrismaService } from '../../prisma/prisma.service';
import { JsonText } from '../http/json-text';
import { type Page, toPage } from './page-query.dto';

/**
 * The fields a response carries, named once: the Prisma `select` for single rows and the raw SQL
 * select list (snake_case column AS "camelCase" key, or the expression given in `sql`) for pages;
 * timestamps (`…At`) are read as ISO text (see ISO).
 */
export function responseColumns<K extends string>(
  fields: readonly K[],
  sql: Partial<Record<K, string>> = {},
) {
  const snake = (field: K) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const column = (field: K) => sql[field] ?? (field.endsWith('At') ? ISO(snake(field)) : snake(field));
  return {
    select: Object.fromEntries(fields.map((field) => [field, true])) as Record<K, true>,
    sql: fields.map((field) => `${column(field)} AS "${field}"`).join(', '),
  };
}

/**
 * A newest-first list of a counted table: a table whose rows per community the database counts
 * exactly in `community_counters`, by the statement-level triggers a migration adds on insert and
 * delete (`bump_community_counter('<scope>')`, see prisma/migrations/20261121104608_init), and
 * with an index on (community_id, <newest-first columns>). Every part is SQL text of the module
 * (never input): the values are parameters.
 */
export interface NewestFirstList {
  /** the prepared statement's name, one per list (each connection plans it once) */
  statement: string;
  /** the `community_counters` scope the table's triggers keep */
  counterScope: string;
  /** the counted table, aliased and joined to others when `columns` reads them */
  from: string;
  /** the counted table's community column, as `from` names it */
  communityColumn: string;
  /** ORDER BY list: newest first with ties broken by id, the order of the index */
  newestFirst: string;
  /** select list aliasing snake_case columns to the camelCase keys of the response (no parameters) */
  columns: string;
}

/**
 * The common case: a table counted under its own name (the scope of its triggers), newest by
 * `created_at`, read alone.
 */
export function newestFirstList(table: string, columns: string): NewestFirstList {
  return {
    statement: `newest-first:${table}`,
    counterScope: table,
    from: table,
    communityColumn: 'community_id',
    newestFirst: 'created_at DESC, id DESC',
    columns,
  };
}

/**
 * One page of a community's rows, newest first with ties broken by id, read from the
 * (community_id, created_at DESC, id DESC) index (or the list's own), and its exact total, in ONE
 * statement, the page written as JSON text by PostgreSQL.
 *
 * `total` is the counter row the migration's statement-level triggers keep exact in the same
 * transaction as every insert and delete: a primary-key lookup, never a count(*) over the
 * community's rows. One statement instead of two halves the round trips; it goes through the pool as
 * a named prepared statement, without the ORM's per-query work, being among the hottest reads of the
 * service (an unnamed one when DATABASE_URL is PgBouncer, see PrismaService.preparedQuery).
 *
 * The items come back as one JSON array of the page's rows (`row_to_json`, keyed by the columns'
 * aliases; joined by `string_agg`, which, unlike `json_agg`, puts no spaces between them), in the order
 * the subquery reads them (an aggregate over a sorted subquery takes its rows in that order),
 * and are sent as they are (JsonText): the API no longer parses twenty rows of fields into objects,
 * copies each without the total, and writes them out again as JSON, which was the largest part of its
 * own CPU on the tweets page (bench/README.md#reads-side-by-side-benchread-side-by-sidemjs). A column's JSON is PostgreSQL's:
 * text, uuid, enums and ISO timestamps (ISO) as strings, int4 as numbers, so a list names no int8 or
 * numeric column (pg answers those as strings, PostgreSQL's JSON as numbers).
 */
export async function newestFirstPage<T extends { id: string }>(
  db: PrismaService,
  list: NewestFirstList,
  communityId: string,
  page: { page: number; limit: number },
): Promise<JsonText<Page<T>>> {
  // a named statement: each connection parses and plans it once (unnamed behind PgBouncer)
  const { rows } = await db.lagTolerantQuery<{ total: string | null; items: string }>(
    list.statement,
    `
      SELECT (SELECT value FROM community_counters
               WHERE community_id = $1::uuid AND scope = '${list.counterScope}') AS total,
             (SELECT coalesce('[' || string_agg(row_to_json(item)::text, ',') || ']', '[]')
                FROM (SELECT ${list.columns} FROM ${list.from}
                       WHERE ${list.communityColumn} = $1::uuid
                       ORDER BY ${list.newestFirst}
                       LIMIT $2 OFFSET $3) AS item) AS items`,
    [communityId, page.limit, (page.page - 1) * page.limit],
  );
  // toPage's fields and their order, with PostgreSQL's text in the place of the items
  const { items: _written, ...figures } = toPage([], page, Number(rows[0].total ?? 0));
  return new JsonText(`{"items":${rows[0].items},${JSON.stringify(figures).slice(1)}`);
}
