import type { FastifyRequest } from 'fastify';
import type { Plan, Role } from '../../generated/prisma/enums';
import type { Permission } from '../access/permissions';

/** Who is calling: a user with a login token, or an API key acting as the member who created it. */
export interface Actor {
  kind: 'user' | 'apiKey';
  userId: string;
  email: string;
  isPlatformAdmin: boolean;
  /** tenantId claim of the token, or the API key's community */
  defaultCommunityId: string | null;
  /** the session a Bearer token belongs to: a login's refresh family, or a portal session (portalCommunityId set) */
  sessionId?: string;
  /** a webhook-portal session (docs/api.md#webhook-portal): the one community whose portal routes it may use */
  portalCommunityId?: string;
  apiKey?: { id: string; communityId: string; scopes: readonly Permission[] };
}

/** The community a tenant-scoped request acts in, and what the caller may do there. */
export interface TenantContext {
  communityId: string;
  community: {
    id: string;
    slug: string;
    plan: Plan;
    featureOverrides: unknown;
  };
  /** the caller's membership role; null for a platform admin who is not a member */
  role: Role | null;
  permissions: ReadonlySet<Permission>;
  /**
   * how the community was resolved (docs/product-decisions.md#3-tenancy-roles-permissions-plans), for logs
   * and debugging
   */
  source: 'host' | 'path' | 'query' | 'body' | 'x-community-id' | 'x-tenant-id' | 'credential';
}

export interface AppRequest extends FastifyRequest {
  actor?: Actor;
  tenant?: TenantContext;
  /** the body's text as it arrived, kept only when the request carries an Idempotency-Key */
  rawBody?: string;
  /** the Idempotency-Key transaction this request runs in (src/modules/idempotency) */
  idempotency?: unknown;
  /**
   * the request's Idempotency-Key turned out to be another request's: its handler ran ahead of that
   * answer, its statements failed unrun, and the answer sent is the key's (src/modules/idempotency)
   */
  handlerOverruled?: boolean;
}
