import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import { AppConfig } from '../../config/app-config';
import { PrismaService } from '../../prisma/prisma.service';
import { type EndpointOrdering, WebhookEndpointsStore } from './core/webhook-endpoints.store';
import { FIGURE_PERIOD_HOURS } from './attempt-figures';
import { retryScheduleMs, retryScheduleView } from './core/delivery-settings';
import { AttemptStatsStore } from './core/attempt-stats.store';
import { WEBHOOK_DNS_LOOKUP } from './core/delivery/webhook-sender.service';
import { assertSafeTargetUrl, ResolveAll, UnsafeTargetError } from './core/delivery/url-safety';
import { WebhookSecretsService } from './core/secrets/webhook-secrets.service';
import {
  CustomHeaders,
  customHeaderProblems,
  maskHeaderValue,
  SealedHeaders,
} from './core/secrets/endpoint-headers';
import { compileFilter, type FilterDocument, FilterProblem } from './core/filter/event-filter';
import type { CreateWebhookDto, UpdateWebhookDto } from './dto/webhook-requests.dto';
import { EndpointTransportFields } from './endpoint-transport-fields';
import { type DestinationView, EndpointDestinationFields } from './endpoint-destination-fields';
import type { StoredDestination } from './core/broker-transport/broker-destination';
import { hasFeature } from '../../common/access/plans';
import type { Plan } from '../../generated/prisma/enums';
import type { EndpointTransport } from './core/http-transport/http-transport.service';
import type { StoredAuth } from './core/http-transport/endpoint-auth';
import type { StoredTls } from './core/http-transport/endpoint-tls';
import type {
  CreatedWebhookDto,
  RotatedSecretDto,
  WebhookDto,
  WebhookListItemDto,
} from './dto/webhook-responses.dto';

/** Webhook endpoints of a community: every query is scoped by the community. */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly store: WebhookEndpointsStore,
    private readonly stats: AttemptStatsStore,
    private readonly config: AppConfig,
    private readonly secrets: WebhookSecretsService,
    @Inject(WEBHOOK_DNS_LOOKUP) private readonly lookup: ResolveAll,
    private readonly transport: EndpointTransportFields,
    private readonly destinations: EndpointDestinationFields,
  ) {}

  async list(communityId: string): Promise<{ items: WebhookListItemDto[] }> {
    const [endpoints, outcomes] = await Promise.all([
      this.store.list(communityId),
      // the figures route's 24h buckets: one source for the card and the chart
      this.stats.recentOutcomes(communityId, FIGURE_PERIOD_HOURS['24h']),
    ]);
    return {
      items: endpoints.map((endpoint) => {
        const day = outcomes.get(endpoint.id);
        return {
          ...this.view(endpoint),
          attempts24h: day?.attempts ?? 0,
          succeeded24h: day?.succeeded ?? 0,
        };
      }),
    };
  }

  async get(communityId: string, id: string): Promise<WebhookDto> {
    const endpoint = await this.store.find(communityId, id);
    if (!endpoint) throw Errors.notFound('Webhook endpoint');
    return this.view(endpoint);
  }

  /**
   * The endpoint's custom headers (sealed) and its client certificate and OAuth client as stored, for
   * the test route's send; 404 for another community's.
   */
  async sealedToSend(
    communityId: string,
    id: string,
  ): Promise<{ customHeaders: SealedHeaders | null; transport: EndpointTransport }> {
    const endpoint = await this.store.find(communityId, id);
    if (!endpoint) throw Errors.notFound('Webhook endpoint');
    return {
      customHeaders: endpoint.customHeaders as SealedHeaders | null,
      transport: {
        version: endpoint.transportVersion,
        tls: endpoint.tls as unknown as StoredTls | null,
        auth: endpoint.auth as unknown as StoredAuth | null,
        destination: endpoint.destination as unknown as StoredDestination | null,
      },
    };
  }

  /**
   * `plan`: the community's plan and overrides; a broker endpoint needs the `webhook_brokers` feature
   * (403 FEATURE_NOT_AVAILABLE), an http one only the routes' `webhooks`.
   */
  async create(
    communityId: string,
    dto: CreateWebhookDto,
    plan: { plan: Plan; featureOverrides: unknown },
  ): Promise<CreatedWebhookDto> {
    if ((dto.type ?? 'http') !== 'http' && !hasFeature(plan.plan, plan.featureOverrides, 'webhook_brokers'))
      throw Errors.featureNotAvailable('webhook_brokers');
    const broker = await this.destinations.forCreate(dto);
    const url = broker ? broker.url : await this.validUrl(dto.url);
    const headers = validHeaders(dto.headers ?? {});
    const customHeaders = this.secrets.sealHeaders(headers);
    const filter = validFilter(dto.filter);
    await this.transport.checkTokenUrl(dto);
    const transport = broker
      ? { destination: broker.destination }
      : this.transport.seal(dto, { url, headers }, null);
    return this.prisma.$transaction(async (tx) => {
      // The cap bounds one event's fan-out; the count is taken under a lock on the community row.
      const cap = this.config.WEBHOOK_MAX_ENDPOINTS_PER_COMMUNITY;
      if ((await this.store.lockCommunityAndCount(tx, communityId)) >= cap) {
        throw Errors.conflict(
          `This community already has the maximum of ${cap} webhook endpoints; delete one before creating another`,
        );
      }
      const endpoint = await this.store.create(tx, communityId, {
        url,
        events: dto.events,
        description: dto.description ?? '',
        customHeaders,
        rateLimit: dto.rateLimit ?? null,
        ordering: dto.ordering,
        retryScheduleMs: storedSchedule(dto.retrySchedule) ?? [],
        timeoutMs: dto.timeoutMs ?? null,
        filter: filter ?? null,
        type: dto.type ?? 'http',
        ...transport,
      });
      const secret = await this.secrets.create(tx, communityId, endpoint.id);
      return { ...this.view(endpoint), secret };
    });
  }

  /**
   * Partial update. isActive=true on an inactive endpoint is a re-enable: it clears disabledAt and the
   * failure streak (docs/product-decisions.md#5-webhooks), so an auto-disabled endpoint starts afresh; on an
   * endpoint that is already active it changes nothing.
   */
  async update(communityId: string, id: string, dto: UpdateWebhookDto): Promise<WebhookDto> {
    // the type never changes, so a read before the transaction tells which url rules apply
    const before = await this.store.find(communityId, id);
    if (!before) throw Errors.notFound('Webhook endpoint');
    const broker = await this.destinations.forUpdate(dto, before);
    const url =
      before.type !== 'http' ? broker?.url : dto.url === undefined ? undefined : await this.validUrl(dto.url);
    const filter = validFilter(dto.filter);
    await this.transport.checkTokenUrl(dto);
    const updated = await this.prisma.$transaction(async (tx) => {
      const current = await this.store.find(communityId, id, tx);
      if (!current) throw Errors.notFound('Webhook endpoint');
      const reEnable = dto.isActive === true && !current.isActive;
      // checked once the masked values are resolved: a mask is not ASCII, the stored value it stands for must be
      const headers =
        dto.headers === undefined
          ? undefined
          : validHeaders(
              keepMasked(
                dto.headers,
                this.secrets.openHeaders(current.customHeaders as SealedHeaders | null),
              ),
            );
      const storedHeaders = () => this.secrets.openHeaders(current.customHeaders as SealedHeaders | null);
      const transport =
        current.type !== 'http'
          ? { destination: broker?.destination }
          : this.transport.seal(
              dto,
              { url: url ?? current.url, headers: headers ?? storedHeaders() },
              current,
            );
      return this.store.update(tx, communityId, id, {
        url,
        events: dto.events,
        description: dto.description,
        isActive: dto.isActive,
        rateLimit: dto.rateLimit,
        ordering: dto.ordering,
        retryScheduleMs: storedSchedule(dto.retrySchedule),
        timeoutMs: dto.timeoutMs,
        customHeaders: headers === undefined ? undefined : this.secrets.sealHeaders(headers),
        filter,
        ...transport,
        ...(reEnable ? { disabledAt: null, consecutiveFailures: 0, failingSince: null } : {}),
      });
    });
    return this.view(updated);
  }

  /**
   * The endpoint as reads show it: its sealed headers become names with masked values, its stored
   * schedule (ms) the delays it stands for.
   */
  private view<
    T extends {
      customHeaders: unknown;
      ordering: string;
      retryScheduleMs: number[];
      filter: unknown;
      tls: unknown;
      auth: unknown;
      transportVersion: number;
      type: string;
      url: string;
      destination: unknown;
    },
  >(
    endpoint: T,
  ): Omit<
    T,
    | 'customHeaders'
    | 'ordering'
    | 'retryScheduleMs'
    | 'filter'
    | 'tls'
    | 'auth'
    | 'transportVersion'
    | 'type'
    | 'url'
    | 'destination'
  > & {
    headers: CustomHeaders;
    ordering: EndpointOrdering;
    retrySchedule: string[] | null;
    filter: FilterDocument | null;
  } & ReturnType<EndpointTransportFields['view']> &
    DestinationView {
    const {
      customHeaders,
      ordering,
      retryScheduleMs,
      filter,
      tls,
      auth,
      transportVersion: _version,
      type,
      url,
      destination,
      ...rest
    } = endpoint;
    return {
      ...rest,
      // the type, the broker's names and the url with its credentials masked
      ...this.destinations.view({ type, url, destination }),
      // the client certificate's summary and the OAuth client with its secret masked
      ...this.transport.view({ tls, auth }),
      // the column's CHECK constraint allows these values only
      ordering: ordering as EndpointOrdering,
      // written only after compileFilter accepted it
      filter: (filter ?? null) as FilterDocument | null,
      headers: this.secrets.maskedHeaders(customHeaders as SealedHeaders | null),
      retrySchedule: retryScheduleView(retryScheduleMs),
    };
  }

  /** Removes the endpoint; its secrets and delivery log go with it (foreign keys cascade). */
  async remove(communityId: string, id: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.store.remove(communityId, id))) throw Errors.notFound('Webhook endpoint');
    return { id, deleted: true };
  }

  async rotateSecret(communityId: string, id: string): Promise<RotatedSecretDto> {
    const rotatedAt = new Date();
    const secret = await this.secrets.rotate(communityId, id);
    return {
      endpointId: id,
      secret,
      rotatedAt,
      previousSecretsExpireAt: new Date(rotatedAt.getTime() + this.config.webhookSecretOverlapMs),
    };
  }

  /** Normalised target URL, or 400 naming the rule it breaks. The target is never contacted. */
  private async validUrl(raw: string): Promise<string> {
    try {
      const url = await assertSafeTargetUrl(raw, {
        allowInsecure: this.config.WEBHOOK_ALLOW_INSECURE_TARGETS,
        lookup: this.lookup,
      });
      return url.toString();
    } catch (err) {
      if (err instanceof UnsafeTargetError) {
        throw Errors.badRequest(`${err.message}${await this.insecureHint(raw)}`, 'url');
      }
      throw err;
    }
  }

  /** Outside production, a refusal that WEBHOOK_ALLOW_INSECURE_TARGETS would lift says so. */
  private async insecureHint(raw: string): Promise<string> {
    if (this.config.isProduction || this.config.WEBHOOK_ALLOW_INSECURE_TARGETS) return '';
    const lifted = await assertSafeTargetUrl(raw, { allowInsecure: true, lookup: this.lookup }).then(
      () => true,
      () => false,
    );
    return lifted ? ' (for a local receiver in development, set WEBHOOK_ALLOW_INSECURE_TARGETS=true)' : '';
  }
}

/**
 * A request's retrySchedule (checked by the DTO) as the column stores it: undefined leaves it
 * unchanged, null (the platform's schedule) is the empty list.
 */
function storedSchedule(delays: string[] | null | undefined): number[] | undefined {
  if (delays === undefined) return undefined;
  return delays === null ? [] : retryScheduleMs(delays);
}

/**
 * The filter as sent (undefined: not sent; null: none), or 400 naming the first bad node's path as
 * the field (docs/api.md#content-filters). Compiling is the validation: the API keeps no matcher.
 */
function validFilter(filter: FilterDocument | null | undefined): FilterDocument | null | undefined {
  if (filter === undefined || filter === null) return filter;
  try {
    compileFilter(filter);
  } catch (err) {
    if (err instanceof FilterProblem) throw Errors.badRequest(err.message, err.path);
    throw err;
  }
  return filter;
}

/** The headers as sent, or 400 naming every rule they break (docs/api.md#webhooks). */
function validHeaders(headers: CustomHeaders): CustomHeaders {
  const problems = customHeaderProblems(headers);
  if (problems.length > 0)
    throw Errors.badRequest(problems.map((problem) => problem.message).join('; '), 'headers');
  return headers;
}

/**
 * A PATCH's headers, where a value sent back exactly as a read masked it keeps the stored value of
 * that name: the portal and clients edit one header without knowing the others' values.
 */
function keepMasked(sent: CustomHeaders, stored: CustomHeaders): CustomHeaders {
  return Object.fromEntries(
    Object.entries(sent).map(([name, value]) => {
      const kept = stored[name];
      return [name, kept !== undefined && value === maskHeaderValue(kept) ? kept : value];
    }),
  );
}
