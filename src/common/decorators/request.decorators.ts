import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Actor, AppRequest, TenantContext } from '../http/request-context';

/** The authenticated caller (set by AuthGuard). */
export const CurrentActor = createParamDecorator((_: unknown, ctx: ExecutionContext): Actor => {
  const actor = ctx.switchToHttp().getRequest<AppRequest>().actor;
  if (!actor) throw new Error('CurrentActor used on a route without authentication');
  return actor;
});

/** The resolved community and the caller's rights in it (set by TenantGuard). */
export const CurrentTenant = createParamDecorator((_: unknown, ctx: ExecutionContext): TenantContext => {
  const tenant = ctx.switchToHttp().getRequest<AppRequest>().tenant;
  if (!tenant) throw new Error('CurrentTenant used on a route that is not tenant-scoped');
  return tenant;
});
