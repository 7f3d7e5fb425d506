// Request and response types of each route, read from the generated OpenAPI types (src/schema.ts,
// made from openapi.json by `npm run types`), so a change of the service's document changes them.
import type { components, paths } from './schema.js';

export type { components, paths };
export type Schemas = components['schemas'];

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Path = keyof paths;

type Operation<P extends Path, M extends HttpMethod> = NonNullable<paths[P][M]>;
type JsonContent<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type Responses<O> = O extends { responses: infer R } ? R : never;
/** `data` of a documented answer's `{success: true, data}` envelope; never when it has none. */
type EnvelopeData<R> = [JsonContent<R>] extends [never]
  ? never
  : JsonContent<R> extends { data: infer D }
    ? D
    : never;
/**
 * The documented success: 200, else 201, else 202. Several routes also list Nest's default 201 (a
 * bare object, or no body) beside the real 200 or 202: a 201 without an envelope gives way to the 202,
 * and the 200 wins over it, which keeps the bare object out of the type.
 */
type SuccessData<R> = 200 extends keyof R
  ? EnvelopeData<R[200]>
  : 201 extends keyof R
    ? [EnvelopeData<R[201]>] extends [never]
      ? 202 extends keyof R
        ? EnvelopeData<R[202]>
        : never
      : EnvelopeData<R[201]>
    : 202 extends keyof R
      ? EnvelopeData<R[202]>
      : never;

/** `data` of the success envelope `{success: true, data}` of a route. */
export type ResponseData<P extends Path, M extends HttpMethod> = SuccessData<Responses<Operation<P, M>>>;

/** The JSON body of a route. */
export type RequestBody<P extends Path, M extends HttpMethod> =
  Operation<P, M> extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : never;

/** The query parameters of a route, all optional (the service applies the documented defaults). */
export type QueryParams<P extends Path, M extends HttpMethod> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? Partial<NonNullable<Q>> : never;

/** The query of a list route without the paging fields, which its iterator drives. */
export type Filters<P extends Path> = Omit<QueryParams<P, 'get'>, 'page' | 'offset'>;

/** The items of a paginated list route. */
export type ListItem<P extends Path> = ResponseData<P, 'get'> extends { items: (infer T)[] } ? T : never;

// The resources, under the names a caller looks for.
export type TokenPair = Schemas['TokenPairDto'];
export type Community = ResponseData<'/api/sdk/community', 'get'>;
export type Tweet = Schemas['TweetDto'];
export type Task = Schemas['TaskDto'];
export type Comment = Schemas['CommentDto'];
export type Member = Schemas['MemberDto'];
export type Advertisement = Schemas['AdvertisementDto'];
export type Webhook = Schemas['WebhookDto'];
export type CreatedWebhook = Schemas['CreatedWebhookDto'];
export type Delivery = Schemas['DeliveryDto'];
export type DeliveryStatus = Delivery['status'];
/**
 * An endpoint's content filter (`filter` on create, PATCH and every read; `null` there: every subscribed
 * event), matched against the delivered body's `type`, `timestamp`, `subject` and `data`. `eventFilter` builds one
 * typed against an event's payload.
 */
export type WebhookFilter = Schemas['WebhookFilter'];
/** The operators of one field's condition in a filter. */
export type WebhookFilterOperators = Schemas['WebhookFilterOperators'];
/** What recover sends again: `'failed'` attempts, events `'missed'` while the endpoint was paused or disabled. */
export type RecoverInclude = NonNullable<Schemas['RecoverDeliveriesDto']['include']>[number];
export type ErrorBody = Schemas['ErrorBodyDto'];
export type ErrorCode = NonNullable<ErrorBody['code']>;
export type ParentType = 'tweets' | 'tasks';
export type MemberRole = RequestBody<'/api/sdk/members/{id}/role', 'patch'>['role'];
/** The subscribable event catalog, as the document lists it for webhook create. */
export type SubscribableEventType = Schemas['CreateWebhookDto']['events'][number];

/**
 * Every event type a delivery can carry, read from the document's `WebhookEvent.<type>` schemas (the
 * catalog's payload schemas, plus the test route's `webhook.test`).
 */
export type WebhookEventType =
  Extract<keyof Schemas, `WebhookEvent.${string}`> extends `WebhookEvent.${infer T}` ? T : never;
/** The body of a delivery of event type `T`, with `data` as the document describes it for that type. */
export type WebhookEventOf<T extends WebhookEventType> = Schemas[`WebhookEvent.${T}`];
/** One member per event type, so `switch (event.type)` narrows `data` to that event's payload. */
export type AnyWebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];
