import { HttpClient, type ClientOptions, type RequestOptions } from './http.js';
import { Paginated } from './paginate.js';
import type {
  DeliveryStatus,
  ListItem,
  MemberRole,
  ParentType,
  Path,
  QueryParams,
  RequestBody,
  ResponseData,
  TokenPair,
} from './types.js';

type Get<P extends Path> = ResponseData<P, 'get'>;
/** Query of a list route without the paging fields, which the iterator drives. */
type Filters<P extends Path> = Omit<QueryParams<P, 'get'>, 'page' | 'offset'>;

const e = encodeURIComponent;
const iso = (value: string | Date) => (value instanceof Date ? value.toISOString() : value);

/** An /api/sdk list, walked page by page (`page`, `limit`). */
function pagedList<P extends Path>(http: HttpClient, path: string, query: Record<string, unknown> = {}) {
  return new Paginated<ListItem<P>, Get<P> & { items: ListItem<P>[]; hasMore: boolean; total: number }>(
    (index) => http.request('GET', path, { query: { ...query, page: index + 1 } as RequestOptions['query'] }),
  );
}

/**
 * The Community Platform API. Every route of the interface, typed from the service's OpenAPI
 * document; lists are async iterables (`for await (const tweet of client.tweets.list())`).
 */
export class CommunityPlatformClient {
  readonly http: HttpClient;

  constructor(options: ClientOptions) {
    this.http = new HttpClient(options);
  }

  /** The tokens the client holds now (after login or an automatic renewal). */
  get tokens() {
    return this.http.tokens;
  }

  readonly auth = {
    /** Logs in; the client keeps the pair (and hands it to onTokens) for the calls that follow. */
    login: async (body: RequestBody<'/api/auth/login', 'post'>): Promise<TokenPair> => {
      const pair = await this.http.request<TokenPair>('POST', '/api/auth/login', { body, auth: 'none' });
      await this.http.setTokens(pair);
      return pair;
    },
    /** Rotates a still-valid access token (it is consumed); the client keeps the new pair. */
    refresh: async (): Promise<TokenPair> => {
      const pair = await this.http.request<TokenPair>('POST', '/api/auth/refresh', { auth: 'bearer' });
      await this.http.setTokens(pair);
      return pair;
    },
    /** Trades the refresh token (the given one, or the client's) for a new pair, which the client keeps. */
    refreshToken: async (refreshToken?: string): Promise<TokenPair> => {
      const pair = await this.http.request<TokenPair>('POST', '/api/auth/refresh-token', {
        body: { refreshToken: refreshToken ?? this.http.tokens.refreshToken },
        auth: 'none',
      });
      await this.http.setTokens(pair);
      return pair;
    },
    /** Revokes the token's whole refresh family. */
    logout: () =>
      this.http.request<ResponseData<'/api/auth/logout', 'post'>>('POST', '/api/auth/logout', {
        auth: 'bearer',
      }),
    /** Ends every session of the caller: each login's refresh family and every portal session. */
    logoutAll: () =>
      this.http.request<ResponseData<'/api/auth/logout-all', 'post'>>('POST', '/api/auth/logout-all', {
        auth: 'bearer',
      }),
  };

  readonly community = {
    get: () => this.http.request<Get<'/api/sdk/community'>>('GET', '/api/sdk/community'),
    getSettings: () =>
      this.http.request<Get<'/api/sdk/community/settings'>>('GET', '/api/sdk/community/settings'),
    updateSettings: (body: RequestBody<'/api/sdk/community/settings', 'patch'>) =>
      this.http.request<ResponseData<'/api/sdk/community/settings', 'patch'>>(
        'PATCH',
        '/api/sdk/community/settings',
        {
          body,
        },
      ),
    updateBranding: (body: RequestBody<'/api/sdk/community/branding', 'patch'>) =>
      this.http.request<ResponseData<'/api/sdk/community/branding', 'patch'>>(
        'PATCH',
        '/api/sdk/community/branding',
        {
          body,
        },
      ),
    verifyCustomDomain: (body: RequestBody<'/api/sdk/community/custom-domain/verify', 'post'> = {}) =>
      this.http.request<ResponseData<'/api/sdk/community/custom-domain/verify', 'post'>>(
        'POST',
        '/api/sdk/community/custom-domain/verify',
        { body },
      ),
  };

  readonly tweets = {
    /** Every tweet, newest first, fetched `limit` (default 20, max 100) at a time. */
    list: (query: Filters<'/api/sdk/tweets'> = {}) =>
      pagedList<'/api/sdk/tweets'>(this.http, '/api/sdk/tweets', query),
    page: (query: QueryParams<'/api/sdk/tweets', 'get'> = {}) =>
      this.http.request<Get<'/api/sdk/tweets'>>('GET', '/api/sdk/tweets', { query }),
    create: (body: RequestBody<'/api/sdk/tweets', 'post'>) =>
      this.http.request<ResponseData<'/api/sdk/tweets', 'post'>>('POST', '/api/sdk/tweets', { body }),
    update: (id: string, body: RequestBody<'/api/sdk/tweets/{id}', 'patch'>) =>
      this.http.request<ResponseData<'/api/sdk/tweets/{id}', 'patch'>>('PATCH', `/api/sdk/tweets/${e(id)}`, {
        body,
      }),
    delete: (id: string) =>
      this.http.request<ResponseData<'/api/sdk/tweets/{id}', 'delete'>>('DELETE', `/api/sdk/tweets/${e(id)}`),
  };

  readonly tasks = {
    list: (query: Filters<'/api/sdk/tasks'> = {}) =>
      pagedList<'/api/sdk/tasks'>(this.http, '/api/sdk/tasks', query),
    page: (query: QueryParams<'/api/sdk/tasks', 'get'> = {}) =>
      this.http.request<Get<'/api/sdk/tasks'>>('GET', '/api/sdk/tasks', { query }),
    get: (id: string) => this.http.request<Get<'/api/sdk/tasks/{id}'>>('GET', `/api/sdk/tasks/${e(id)}`),
    create: (body: RequestBody<'/api/sdk/tasks', 'post'>) =>
      this.http.request<ResponseData<'/api/sdk/tasks', 'post'>>('POST', '/api/sdk/tasks', { body }),
  };

  /** Comments of a tweet or a task (oldest first). */
  readonly comments = {
    list: (parent: ParentType, id: string, query: Filters<'/api/sdk/{parent}/{id}/comments'> = {}) =>
      pagedList<'/api/sdk/{parent}/{id}/comments'>(
        this.http,
        `/api/sdk/${e(parent)}/${e(id)}/comments`,
        query,
      ),
    page: (
      parent: ParentType,
      id: string,
      query: QueryParams<'/api/sdk/{parent}/{id}/comments', 'get'> = {},
    ) =>
      this.http.request<Get<'/api/sdk/{parent}/{id}/comments'>>(
        'GET',
        `/api/sdk/${e(parent)}/${e(id)}/comments`,
        {
          query,
        },
      ),
    create: (parent: ParentType, id: string, body: RequestBody<'/api/sdk/{parent}/{id}/comments', 'post'>) =>
      this.http.request<ResponseData<'/api/sdk/{parent}/{id}/comments', 'post'>>(
        'POST',
        `/api/sdk/${e(parent)}/${e(id)}/comments`,
        { body },
      ),
  };

  readonly likes = {
    /** Likes a tweet or task; liking twice answers the same like. */
    like: (parent: ParentType, id: string) =>
      this.http.request<ResponseData<'/api/sdk/{parent}/{id}/like', 'post'>>(
        'POST',
        `/api/sdk/${e(parent)}/${e(id)}/like`,
        {
          body: {},
        },
      ),
    unlike: (parent: ParentType, id: string) =>
      this.http.request<ResponseData<'/api/sdk/{parent}/{id}/like', 'delete'>>(
        'DELETE',
        `/api/sdk/${e(parent)}/${e(id)}/like`,
      ),
  };

  readonly members = {
    list: (query: Filters<'/api/sdk/members'> = {}) =>
      pagedList<'/api/sdk/members'>(this.http, '/api/sdk/members', query),
    page: (query: QueryParams<'/api/sdk/members', 'get'> = {}) =>
      this.http.request<Get<'/api/sdk/members'>>('GET', '/api/sdk/members', { query }),
    add: (body: RequestBody<'/api/sdk/members', 'post'>) =>
      this.http.request<ResponseData<'/api/sdk/members', 'post'>>('POST', '/api/sdk/members', { body }),
    bulkUpsert: (body: RequestBody<'/api/sdk/members/bulk', 'post'>) =>
      this.http.request<ResponseData<'/api/sdk/members/bulk', 'post'>>('POST', '/api/sdk/members/bulk', {
        body,
      }),
    setRole: (id: string, role: MemberRole) =>
      this.http.request<ResponseData<'/api/sdk/members/{id}/role', 'patch'>>(
        'PATCH',
        `/api/sdk/members/${e(id)}/role`,
        {
          body: { role },
        },
      ),
  };

  readonly customization = {
    getSidebar: () =>
      this.http.request<Get<'/api/sdk/customization/sidebar'>>('GET', '/api/sdk/customization/sidebar'),
    replaceSidebar: (body: RequestBody<'/api/sdk/customization/sidebar', 'put'>) =>
      this.http.request<ResponseData<'/api/sdk/customization/sidebar', 'put'>>(
        'PUT',
        '/api/sdk/customization/sidebar',
        {
          body,
        },
      ),
    /** The advertisements showing now. */
    activeAdvertisements: (query: Filters<'/api/sdk/customization/advertisements/active'> = {}) =>
      pagedList<'/api/sdk/customization/advertisements/active'>(
        this.http,
        '/api/sdk/customization/advertisements/active',
        query,
      ),
    advertisements: (query: Filters<'/api/sdk/customization/advertisements'> = {}) =>
      pagedList<'/api/sdk/customization/advertisements'>(
        this.http,
        '/api/sdk/customization/advertisements',
        query,
      ),
    createAdvertisement: (body: RequestBody<'/api/sdk/customization/advertisements', 'post'>) =>
      this.http.request<ResponseData<'/api/sdk/customization/advertisements', 'post'>>(
        'POST',
        '/api/sdk/customization/advertisements',
        { body },
      ),
    updateAdvertisement: (
      id: string,
      body: RequestBody<'/api/sdk/customization/advertisements/{id}', 'patch'>,
    ) =>
      this.http.request<ResponseData<'/api/sdk/customization/advertisements/{id}', 'patch'>>(
        'PATCH',
        `/api/sdk/customization/advertisements/${e(id)}`,
        { body },
      ),
    deleteAdvertisement: (id: string) =>
      this.http.request<ResponseData<'/api/sdk/customization/advertisements/{id}', 'delete'>>(
        'DELETE',
        `/api/sdk/customization/advertisements/${e(id)}`,
      ),
  };

  readonly embed = {
    createSession: (body: RequestBody<'/api/embed/sessions', 'post'> = {}) =>
      this.http.request<ResponseData<'/api/embed/sessions', 'post'>>('POST', '/api/embed/sessions', { body }),
  };

  /** The service routes. Creating communities and API keys takes a login token. */
  readonly admin = {
    me: () => this.http.request<Get<'/api/admin/sdk/me'>>('GET', '/api/admin/sdk/me'),
    createCommunity: (body: RequestBody<'/api/admin/sdk/communities', 'post'>) =>
      this.http.request<ResponseData<'/api/admin/sdk/communities', 'post'>>(
        'POST',
        '/api/admin/sdk/communities',
        {
          body,
          auth: 'bearer',
        },
      ),
    /** The key (`data.key`) is shown in this answer only. */
    createApiKey: (body: RequestBody<'/api/admin/sdk/api-keys', 'post'>) =>
      this.http.request<ResponseData<'/api/admin/sdk/api-keys', 'post'>>('POST', '/api/admin/sdk/api-keys', {
        body,
        auth: 'bearer',
      }),
    listApiKeys: (query: QueryParams<'/api/admin/sdk/api-keys', 'get'> = {}) =>
      this.http.request<Get<'/api/admin/sdk/api-keys'>>('GET', '/api/admin/sdk/api-keys', {
        query,
        auth: 'bearer',
      }),
    revokeApiKey: (id: string) =>
      this.http.request<ResponseData<'/api/admin/sdk/api-keys/{id}', 'delete'>>(
        'DELETE',
        `/api/admin/sdk/api-keys/${e(id)}`,
        { auth: 'bearer' },
      ),
  };

  /** Webhook endpoints of a community (login token with WEBHOOKS_MANAGE). */
  readonly webhooks = {
    list: (communityId: string) =>
      this.http.request<Get<'/api/communities/{communityId}/webhooks'>>(
        'GET',
        `/api/communities/${e(communityId)}/webhooks`,
        { auth: 'bearer' },
      ),
    /** The signing secret (`secret`) is in this answer only: store it now. */
    create: (communityId: string, body: RequestBody<'/api/communities/{communityId}/webhooks', 'post'>) =>
      this.http.request<ResponseData<'/api/communities/{communityId}/webhooks', 'post'>>(
        'POST',
        `/api/communities/${e(communityId)}/webhooks`,
        { body, auth: 'bearer' },
      ),
    update: (
      communityId: string,
      webhookId: string,
      body: RequestBody<'/api/communities/{communityId}/webhooks/{webhookId}', 'patch'>,
    ) =>
      this.http.request<ResponseData<'/api/communities/{communityId}/webhooks/{webhookId}', 'patch'>>(
        'PATCH',
        `/api/communities/${e(communityId)}/webhooks/${e(webhookId)}`,
        { body, auth: 'bearer' },
      ),
    delete: (communityId: string, webhookId: string) =>
      this.http.request<ResponseData<'/api/communities/{communityId}/webhooks/{webhookId}', 'delete'>>(
        'DELETE',
        `/api/communities/${e(communityId)}/webhooks/${e(webhookId)}`,
        { auth: 'bearer' },
      ),
    /**
     * Every delivery attempt, newest first, `limit` (default 50, max 100) at a time; `status` filters.
     * `deliveries.resend(communityId, webhookId, deliveryId)` sends one event again.
     */
    deliveries: Object.assign(
      (communityId: string, webhookId: string, query: { status?: DeliveryStatus; limit?: number } = {}) => {
        type DeliveryPage = ResponseData<
          '/api/communities/{communityId}/webhooks/{webhookId}/deliveries',
          'get'
        >;
        let offset = 0;
        return new Paginated<DeliveryPage['items'][number], DeliveryPage>(async (index) => {
          if (index === 0) offset = 0;
          const page = await this.webhooks.deliveriesPage(communityId, webhookId, { ...query, offset });
          offset += page.items.length;
          return page;
        });
      },
      {
        /**
         * Sends that delivery's event again: same `messageId` (the `webhook-id` header), the next attempt
         * number; answers the new PENDING attempt. CONFLICT (409) when the endpoint is paused or disabled,
         * for a test delivery, or when the event body is past its retention.
         */
        resend: (communityId: string, webhookId: string, deliveryId: string) =>
          this.http.request<
            ResponseData<
              '/api/communities/{communityId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend',
              'post'
            >
          >(
            'POST',
            `/api/communities/${e(communityId)}/webhooks/${e(webhookId)}/deliveries/${e(deliveryId)}/resend`,
            { body: {}, auth: 'bearer' },
          ),
      },
    ),
    deliveriesPage: (
      communityId: string,
      webhookId: string,
      query: QueryParams<'/api/communities/{communityId}/webhooks/{webhookId}/deliveries', 'get'> = {},
    ) =>
      this.http.request<Get<'/api/communities/{communityId}/webhooks/{webhookId}/deliveries'>>(
        'GET',
        `/api/communities/${e(communityId)}/webhooks/${e(webhookId)}/deliveries`,
        { query, auth: 'bearer' },
      ),
    /** A new secret, shown once; the previous ones stay valid for the overlap window. */
    rotateSecret: (communityId: string, webhookId: string) =>
      this.http.request<
        ResponseData<'/api/communities/{communityId}/webhooks/{webhookId}/rotate-secret', 'post'>
      >('POST', `/api/communities/${e(communityId)}/webhooks/${e(webhookId)}/rotate-secret`, {
        auth: 'bearer',
      }),
    /** Sends `webhook.test` now; a target that fails raises WEBHOOK_TEST_FAILED (500) whose body holds the attempt. */
    test: (communityId: string, webhookId: string) =>
      this.http.request<ResponseData<'/api/communities/{communityId}/webhooks/{webhookId}/test', 'post'>>(
        'POST',
        `/api/communities/${e(communityId)}/webhooks/${e(webhookId)}/test`,
        { auth: 'bearer' },
      ),
    /**
     * Sends again, once, every event whose latest attempt FAILED and was created in [since, until)
     * (`until` defaults to now; the window is at most 14 days); answers how many were queued.
     */
    recover: (
      communityId: string,
      webhookId: string,
      window: { since: string | Date; until?: string | Date },
    ) =>
      this.http.request<ResponseData<'/api/communities/{communityId}/webhooks/{webhookId}/recover', 'post'>>(
        'POST',
        `/api/communities/${e(communityId)}/webhooks/${e(webhookId)}/recover`,
        {
          body: {
            since: iso(window.since),
            ...(window.until === undefined ? {} : { until: iso(window.until) }),
          },
          auth: 'bearer',
        },
      ),
    /** The subscribable event catalog. */
    eventTypes: () =>
      this.http.request<Get<'/api/webhooks/event-types'>>('GET', '/api/webhooks/event-types', {
        auth: 'bearer',
      }),
    /** A single-use link into the webhook portal for the community's admin (the token is in the URL's fragment). */
    portalLink: (communityId: string) =>
      this.http.request<ResponseData<'/api/communities/{communityId}/webhooks/portal-links', 'post'>>(
        'POST',
        `/api/communities/${e(communityId)}/webhooks/portal-links`,
        { auth: 'bearer' },
      ),
    /** The caller's communities where they may manage webhooks (the portal's picker). */
    manageableCommunities: () =>
      this.http.request<Get<'/api/webhooks/manageable-communities'>>(
        'GET',
        '/api/webhooks/manageable-communities',
        {
          auth: 'bearer',
        },
      ),
    /** Exchanges a portal link's token (once) for a session on that community's webhook routes. */
    openPortalSession: (token: string) =>
      this.http.request<ResponseData<'/api/webhooks/portal-sessions', 'post'>>(
        'POST',
        '/api/webhooks/portal-sessions',
        {
          body: { token },
          auth: 'none',
        },
      ),
  };
}
