import { SetMetadata } from '@nestjs/common';
import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { Permission } from '../access/permissions';
import type { FeatureKey } from '../access/plans';

export const IS_PUBLIC = 'auth:public';
export const ALLOW_API_KEY = 'auth:allowApiKey';
export const ALLOW_PORTAL_SESSION = 'auth:allowPortalSession';
export const TENANT_SCOPED = 'tenancy:scoped';
export const REQUIRED_PERMISSION = 'access:permission';
export const REQUIRED_FEATURE = 'access:feature';

/** No credentials needed (login, refresh-token, health). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
/** The route takes X-Api-Key as well as a Bearer JWT (default: Bearer JWT only). */
export const AllowApiKey = () => SetMetadata(ALLOW_API_KEY, true);
/**
 * A webhook-portal session (docs/api.md#webhook-portal) may call this route, in its own community only
 * (default: a portal session is refused everywhere).
 */
export const AllowPortalSession = () => SetMetadata(ALLOW_PORTAL_SESSION, true);
/**
 * The route acts inside one community, resolved by the order of
 * docs/product-decisions.md#3-tenancy-roles-permissions-plans.
 */
export const TenantScoped = () => SetMetadata(TENANT_SCOPED, true);
/** The caller needs this permission in the resolved community (implies @TenantScoped). */
export const RequirePermission = (permission: Permission) => SetMetadata(REQUIRED_PERMISSION, permission);
/** The community's plan must include this feature (implies @TenantScoped). */
export const RequireFeature = (feature: FeatureKey) => SetMetadata(REQUIRED_FEATURE, feature);

/** Whether the route acts inside one community (and so may name it with `communityId`). */
export function isTenantScoped(reflector: Reflector, context: ExecutionContext): boolean {
  const targets = [context.getHandler(), context.getClass()];
  return (
    reflector.getAllAndOverride<boolean>(TENANT_SCOPED, targets) === true ||
    reflector.getAllAndOverride<string>(REQUIRED_PERMISSION, targets) !== undefined ||
    reflector.getAllAndOverride<string>(REQUIRED_FEATURE, targets) !== undefined
  );
}
