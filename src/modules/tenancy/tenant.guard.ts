import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { isTenantScoped } from '../../common/decorators/auth.decorators';
import type { AppRequest } from '../../common/http/request-context';
import { whenReady } from '../../common/async/when-ready';
import { TenancyService } from './tenancy.service';

/**
 * Resolves the community (docs/product-decisions.md#3-tenancy-roles-permissions-plans) for routes that act in
 * one, and checks the caller belongs there.
 */
@Injectable()
export class TenantGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tenancy: TenancyService,
  ) {}

  /** Synchronous when the community and the caller's role are answered from memory (TenancyService.resolve). */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (!isTenantScoped(this.reflector, context)) return true;
    const request = context.switchToHttp().getRequest<AppRequest>();
    if (!request.actor) return true; // a @Public() route has no tenant to check
    return whenReady(this.tenancy.resolve(request, request.actor), (tenant) => {
      request.tenant = tenant;
      return true;
    });
  }
}
