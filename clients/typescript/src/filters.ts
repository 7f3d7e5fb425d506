// A typed builder of content filters (`filter` of a webhook endpoint): the fields and values of an
// event's `data` as the service's document describes that event, so a misspelt field or a value of
// the wrong type fails to compile. The service checks every filter again and answers 400 naming the
// first bad node.
import type { WebhookEventOf, WebhookEventType, WebhookFilter } from './types.js';

/** The operators on a field holding `V`: the ranges on numbers and instants, the prefix on strings. */
export interface FieldOperators<V> {
  $eq?: V;
  $neq?: V;
  $in?: V[];
  $nin?: V[];
  $gt?: Bound<V>;
  $gte?: Bound<V>;
  $lt?: Bound<V>;
  $lte?: Bound<V>;
  $exists?: boolean;
  $startsWith?: [NonNullable<V>] extends [string] ? string : never;
}
type Bound<V> = [NonNullable<V>] extends [number]
  ? number
  : [NonNullable<V>] extends [string]
    ? string
    : never;

/**
 * A field's condition: a literal or operators on a scalar; a filter of the object on an object (or
 * `$exists`); on a list, what one of its items must match.
 */
export type FieldCondition<V> = [NonNullable<V>] extends [readonly (infer I)[]]
  ? ItemCondition<I>
  : ItemCondition<V>;
type ItemCondition<V> = [NonNullable<V>] extends [object]
  ? DataFilter<NonNullable<V>> | Pick<FieldOperators<V>, '$exists'>
  : V | FieldOperators<V>;

/** A filter of an object whose fields are those of `D`, with $and, $or and $not. */
export type DataFilter<D> = { [K in keyof D]?: FieldCondition<D[K]> } & {
  $and?: DataFilter<D>[];
  $or?: DataFilter<D>[];
  $not?: DataFilter<D>;
};

/**
 * A filter that lets through the events of type `type` whose `data` matches `data` (every event of
 * that type when it is left out), for an endpoint's `filter`:
 *
 *   eventFilter('member.updated', { member: { role: 'ADMIN' }, previousRole: { $neq: 'ADMIN' } })
 */
export function eventFilter<T extends WebhookEventType>(
  type: T,
  data?: DataFilter<WebhookEventOf<T>['data']>,
): WebhookFilter {
  return (data === undefined ? { type } : { type, data }) as WebhookFilter;
}
