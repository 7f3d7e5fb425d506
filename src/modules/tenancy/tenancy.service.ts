import { Injectable, Optional } from '@nestjs/common';
import { isIP } from 'node:net';
import { apiKeyPermissions, permissionsOf, PERMISSIONS } from '../../common/access/permissions';
import { type MaybePromise, whenReady } from '../../common/async/when-ready';
import { Errors } from '../../common/errors/app-error';
import type { Actor, AppRequest, TenantContext } from '../../common/http/request-context';
import { AppConfig } from '../../config/app-config';
import type { Role } from '../../generated/prisma/enums';
import { InvalidatingCache, InvalidationBus } from '../../redis/invalidation-bus';
import { CommunitiesStore, TenantCommunityRow } from '../community/communities.store';
import { MembershipsStore } from '../members/memberships.store';

type CommunityRow = TenantCommunityRow;

/** The bus kind announcing a community's change (plan, features, slug, deletion); the id is its id. */
export const COMMUNITY_INVALIDATION = 'community';
/**
 * The bus kind announcing a membership's change; the id is `<communityId>:<userId>`, or
 * `<communityId>:*` for every member of the community (bulk changes).
 */
export const MEMBERSHIP_INVALIDATION = 'membership';
/** The bus kind announcing that a hostname now names another community, or none; the id is the hostname. */
export const DOMAIN_INVALIDATION = 'community-domain';

export function membershipKey(communityId: string, userId: string): string {
  return `${communityId}:${userId}`;
}
export function everyMembershipKey(communityId: string): string {
  return `${communityId}:*`;
}

/** Re-read after this long even without an announcement (a change made by the CLI, a lost publish). */
const TENANCY_MAX_AGE_MS = 60_000;

type Source = TenantContext['source'];
interface Candidate {
  ref: string;
  source: Source;
}

function header(request: AppRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * The community a request field names, or nothing. A source names one community or none: a
 * repeated (`?communityId=B&communityId=A`), array-valued (`?communityId[]=B`) or non-string (a
 * body's `123`, `null`, `[...]`, `{...}`) value is refused with 400 naming the field, rather than
 * ignored and left to a lower-priority source to decide the tenant.
 */
function field(container: unknown, name: string, where: string): string | undefined {
  if (!container || typeof container !== 'object') return undefined;
  const record = container as Record<string, unknown>;
  const bracketed = Object.keys(record).some((key) => key !== name && key.startsWith(`${name}[`));
  const present = Object.prototype.hasOwnProperty.call(record, name) && record[name] !== undefined;
  if (bracketed || (present && typeof record[name] !== 'string')) {
    throw Errors.badRequest(
      `${name} in the ${where} must be given once, as a single string (a community id or slug)`,
      name,
    );
  }
  const value = present ? (record[name] as string).trim() : '';
  return value !== '' ? value : undefined;
}

/**
 * Resolves the community of a tenant-scoped request, in the priority order of
 * docs/product-decisions.md#3-tenancy-roles-permissions-plans, and what the caller may do there. This is the
 * only place that order is written down.
 */
@Injectable()
export class TenancyService {
  private readonly ownHostnames: ReadonlySet<string>;
  /**
   * Which community a reference names, the caller's role there, and which community a hostname
   * names, in memory: no database round trip per request while warm. Writers announce changes on
   * the invalidation bus after their commit and every instance drops the entries (see
   * InvalidationBus; while its subscription is down every lookup reads the database).
   */
  private readonly communities?: InvalidatingCache<CommunityRow | undefined>;
  private readonly roles?: InvalidatingCache<Role | null>;
  private readonly domains?: InvalidatingCache<{ id: string } | null>;

  constructor(
    private readonly communityStore: CommunitiesStore,
    private readonly membershipStore: MembershipsStore,
    config: AppConfig,
    @Optional() private readonly bus?: InvalidationBus,
  ) {
    this.ownHostnames = new Set(config.serviceHostnames);
    const limits = { maxEntries: 50_000, maxAgeMs: TENANCY_MAX_AGE_MS };
    // kept under the reference used (id or slug): an announcement by id drops the slug's entry too
    this.communities = bus?.cache(COMMUNITY_INVALIDATION, {
      ...limits,
      drops: (_key, row, id) => row?.id === id,
    });
    this.roles = bus?.cache(MEMBERSHIP_INVALIDATION, {
      ...limits,
      drops: (key, _role, id) => id.endsWith(':*') && key.startsWith(id.slice(0, -1)),
    });
    this.domains = bus?.cache(DOMAIN_INVALIDATION, limits);
  }

  /**
   * The explicit (non-credential) candidates of docs/product-decisions.md#3-tenancy-roles-permissions-plans,
   * highest first: host, then the request's fields.
   */
  explicitCandidates(request: AppRequest): Candidate[] {
    const candidates: Candidate[] = [];
    const path = field(request.params, 'communityId', 'path');
    const query = field(request.query, 'communityId', 'query string');
    const body = field(request.body, 'communityId', 'body');
    const xCommunity = header(request, 'x-community-id');
    const xTenant = header(request, 'x-tenant-id');
    if (path) candidates.push({ ref: path, source: 'path' });
    if (query) candidates.push({ ref: query, source: 'query' });
    if (body) candidates.push({ ref: body, source: 'body' });
    if (xCommunity) candidates.push({ ref: xCommunity, source: 'x-community-id' });
    if (xTenant) candidates.push({ ref: xTenant, source: 'x-tenant-id' });
    return candidates;
  }

  /** Resolves the community id a request names without credentials (used by login too). */
  async resolveCommunityId(request: AppRequest, fallback: string | null): Promise<string | null> {
    const byHost = await this.communityByHost(request);
    if (byHost) return byHost.id;
    const [first] = this.explicitCandidates(request);
    if (first) {
      const community = await this.findCommunity(first.ref);
      if (!community) throw Errors.tenantRequired(`Community '${first.ref}' could not be resolved`);
      return community.id;
    }
    return fallback;
  }

  /**
   * The request's community and what the caller may do there. Answered without a promise while the
   * caches hold the host, the community and the role (every warm request): TenantGuard then runs
   * synchronously.
   */
  resolve(request: AppRequest, actor: Actor): MaybePromise<TenantContext> {
    return whenReady(this.communityByHost(request), (byHost) => {
      const [explicit] = this.explicitCandidates(request);
      const candidate: Candidate | undefined = byHost
        ? { ref: byHost.id, source: 'host' }
        : (explicit ??
          (actor.defaultCommunityId ? { ref: actor.defaultCommunityId, source: 'credential' } : undefined));
      if (!candidate) throw Errors.tenantRequired();
      return whenReady(this.community(candidate.ref.toLowerCase()), (row) => {
        if (!row) throw Errors.tenantRequired(`Community '${candidate.ref}' could not be resolved`);
        // a webhook-portal session opens its one community's webhooks, however the request names a community
        if (actor.portalCommunityId !== undefined && actor.portalCommunityId !== row.id)
          throw Errors.forbidden('This webhook portal session is for another community');
        return whenReady(this.role(row.id, actor.userId), (role) =>
          tenantContext(row, role, actor, candidate.source),
        );
      });
    });
  }

  /**
   * Call after committing a change of the user's membership (role, joined), or of every membership
   * of the community when `userId` is left out: every instance forgets what it holds.
   */
  async membershipChanged(communityId: string, userId?: string): Promise<void> {
    const id = userId ? membershipKey(communityId, userId) : everyMembershipKey(communityId);
    await this.bus?.publish(MEMBERSHIP_INVALIDATION, id);
  }

  /**
   * Call after committing a change of the community's plan, features, slug or custom domain, with
   * the hostnames whose meaning changed (the old and the new domain).
   */
  async communityChanged(communityId: string, hostnames: (string | null | undefined)[] = []): Promise<void> {
    await this.bus?.publish(COMMUNITY_INVALIDATION, communityId);
    for (const hostname of new Set(hostnames))
      if (hostname) await this.bus?.publish(DOMAIN_INVALIDATION, hostname);
  }

  private community(ref: string): MaybePromise<CommunityRow | undefined> {
    const load = () => this.communityStore.findTenantRow(ref);
    return this.communities ? this.communities.get(ref, load, (row) => row !== undefined) : load();
  }

  /** The user's role in the community; null when not a member (kept too: adding a member announces it). */
  private role(communityId: string, userId: string): MaybePromise<Role | null> {
    const load = () => this.membershipStore.findRole(communityId, userId);
    return this.roles ? this.roles.get(membershipKey(communityId, userId), load) : load();
  }

  findCommunity(ref: string) {
    return this.communityStore.findRef(ref);
  }

  /**
   * A verified custom domain on Host wins over everything
   * (docs/product-decisions.md#3-tenancy-roles-permissions-plans). The service's own names
   * (SERVICE_HOSTNAMES, localhost, PUBLIC_BASE_URL's host) never match, whatever a row holds, and a pending
   * domain lives in another column, so it resolves nothing until verified.
   */
  private communityByHost(request: AppRequest): MaybePromise<{ id: string } | null> {
    // A fully qualified name's trailing dot names the same host: strip it before comparing.
    const hostname = (request.hostname ?? '').toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    if (!hostname || this.ownHostnames.has(hostname) || isIP(hostname.replace(/^\[|\]$/g, ''))) return null;
    const load = () => this.communityStore.findByCustomDomain(hostname);
    return this.domains ? this.domains.get(hostname, load) : load();
  }
}

/** Who the caller is in `community`: a member by role, an API key within its scopes, or a platform admin. */
function tenantContext(
  community: CommunityRow,
  role: Role | null,
  actor: Actor,
  source: TenantContext['source'],
): TenantContext {
  const base = { communityId: community.id, community, role, source };
  if (actor.kind === 'apiKey' && actor.apiKey) {
    if (actor.apiKey.communityId !== community.id) {
      throw Errors.forbidden('This API key belongs to another community');
    }
    if (!role) throw Errors.forbidden("The API key's creator is no longer a member of this community");
    return { ...base, permissions: apiKeyPermissions(role, actor.apiKey.scopes) };
  }
  if (role) return { ...base, permissions: permissionsOf(role) };
  if (actor.isPlatformAdmin) return { ...base, permissions: new Set(PERMISSIONS) };
  throw Errors.forbidden('You are not a member of this community');
}
