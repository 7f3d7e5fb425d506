import type { AuthMode, HttpClient, RequestOptions } from './http.js';
import type { Filters, ListItem, Path, ResponseData } from './types.js';

/** A page of an /api/sdk list (`page`/`limit`) or of the delivery log (`limit`/`offset`). */
export interface Page<T> {
  items: T[];
  hasMore: boolean;
  total: number;
}

/**
 * A list walked lazily, one request per page: `for await (const item of list)` yields every item,
 * `for await (const page of list.pages())` every page. Nothing is requested until iteration starts,
 * and each iteration starts again from the first page.
 */
export class Paginated<T, P extends Page<T> = Page<T>> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (index: number) => Promise<P>) {}

  async *pages(): AsyncGenerator<P, void, undefined> {
    for (let index = 0; ; index += 1) {
      const page = await this.fetchPage(index);
      yield page;
      if (!page.hasMore || page.items.length === 0) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** Every item in one array: for lists known to be small. */
  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}

/** An /api/sdk list, walked page by page (`page`, `limit`): what the generated `list` methods answer. */
export function pagedList<P extends Path>(
  http: HttpClient,
  path: string,
  query: Filters<P> | Record<string, unknown> = {},
  auth?: AuthMode,
) {
  return new Paginated<
    ListItem<P>,
    ResponseData<P, 'get'> & { items: ListItem<P>[]; hasMore: boolean; total: number }
  >((index) =>
    http.request('GET', path, { query: { ...query, page: index + 1 } as RequestOptions['query'], auth }),
  );
}
