import { HttpClient, type ClientOptions } from './http.js';
import { Paginated } from './paginate.js';
import { routeGroups, type RouteGroups } from './routes.generated.js';
import type { DeliveryStatus, MemberRole, RecoverInclude, ResponseData, TokenPair } from './types.js';

// Every route is a method of src/routes.generated.ts, generated from the service's OpenAPI document
// (`npm run clients:generate` at the repository root). What follows is only what the document cannot
// say: keeping the token pair the auth routes answer, the delivery log walked by offset, and the
// shorter arguments of a few routes.

const iso = (value: string | Date) => (value instanceof Date ? value.toISOString() : value);

type DeliveryPage = ResponseData<'/api/communities/{communityId}/webhooks/{webhookId}/deliveries', 'get'>;

// What a generated method takes after the arguments a wrapper below replaces: its call options
// (`{ idempotencyKey }`) when its route takes an Idempotency-Key, passed on as given. Read from the
// generated signature, so the wrappers follow the document.
type After2<F> = F extends (a: never, b: never, ...rest: infer R) => unknown ? R : never;
type After3<F> = F extends (a: never, b: never, c: never, ...rest: infer R) => unknown ? R : never;

/** The hand-written groups, on top of the generated ones. */
function handWritten(http: HttpClient, routes: RouteGroups) {
  const keep = async (answer: Promise<TokenPair>) => {
    const pair = await answer;
    await http.setTokens(pair);
    return pair;
  };
  return {
    auth: {
      ...routes.auth,
      /** Logs in; the client keeps the pair (and hands it to onTokens) for the calls that follow. */
      login: (body: Parameters<RouteGroups['auth']['login']>[0]) => keep(routes.auth.login(body)),
      /** Rotates a still-valid access token (it is consumed); the client keeps the new pair. */
      refresh: () => keep(routes.auth.refresh()),
      /** Trades the refresh token (the given one, or the client's) for a new pair, which the client keeps. */
      refreshToken: (refreshToken?: string) =>
        keep(
          routes.auth.refreshToken({ refreshToken: (refreshToken ?? http.tokens.refreshToken) as string }),
        ),
    },
    members: {
      ...routes.members,
      setRole: (id: string, role: MemberRole, ...call: After2<RouteGroups['members']['setRole']>) =>
        routes.members.setRole(id, { role }, ...call),
    },
    webhooks: {
      ...routes.webhooks,
      /**
       * Every delivery attempt, newest first, `limit` (default 50, max 100) at a time; `status` filters.
       * `deliveries.resend(communityId, webhookId, deliveryId)` sends one event again.
       */
      deliveries: Object.assign(
        (communityId: string, webhookId: string, query: { status?: DeliveryStatus; limit?: number } = {}) => {
          let offset = 0;
          return new Paginated<DeliveryPage['items'][number], DeliveryPage>(async (index) => {
            if (index === 0) offset = 0;
            const page = await routes.webhooks.deliveriesPage(communityId, webhookId, { ...query, offset });
            offset += page.items.length;
            return page;
          });
        },
        routes.webhooks.deliveries,
      ),
      /**
       * Sends again, once, every event whose latest attempt FAILED and was created in [since, until)
       * (`until` defaults to now; the window is at most 14 days), and with `include: ['missed']` every
       * event of the window the endpoint missed while paused or disabled (in commit order); `include`
       * defaults to `['failed']`. Answers how many were queued, how many remain for the next call, and
       * how many missed events are past the service's retention.
       */
      recover: (
        communityId: string,
        webhookId: string,
        window: { since: string | Date; until?: string | Date; include?: RecoverInclude[] },
        ...call: After3<RouteGroups['webhooks']['recover']>
      ) =>
        routes.webhooks.recover(
          communityId,
          webhookId,
          {
            since: iso(window.since),
            ...(window.until === undefined ? {} : { until: iso(window.until) }),
            ...(window.include === undefined ? {} : { include: window.include }),
          },
          ...call,
        ),
      /** Exchanges a portal link's token (once) for a session on that community's webhook routes. */
      openPortalSession: (token: string) => routes.webhooks.openPortalSession({ token }),
    },
  };
}

type HandWritten = ReturnType<typeof handWritten>;
/** The generated groups, with the hand-written ones in place of theirs. */
type ClientRoutes = Omit<RouteGroups, keyof HandWritten>;

/**
 * The Community Platform API. Every route of the interface, typed from the service's OpenAPI
 * document; lists are async iterables (`for await (const tweet of client.tweets.list())`).
 */
// The groups come from the generated file, so a new route or group needs no line here: the interface
// of the same name gives the class their types, and the constructor assigns them.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface CommunityPlatformClient extends ClientRoutes, HandWritten {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class CommunityPlatformClient {
  readonly http: HttpClient;

  constructor(options: ClientOptions) {
    this.http = new HttpClient(options);
    const routes = routeGroups(this.http);
    Object.assign(this, routes, handWritten(this.http, routes));
  }

  /** The tokens the client holds now (after login or an automatic renewal). */
  get tokens() {
    return this.http.tokens;
  }
}
