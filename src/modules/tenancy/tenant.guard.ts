import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  REQUIRED_FEATURE,
  REQUIRED_PERMISSION,
  TENANT_SCOPED,
} from '../../common/decorators/auth.decorators';
import type { AppRequest } from '../../common/http/request-context';
import { TenancyService } from './tenancy.service';

/** Resolves the community (spec §5) for routes that act in one, and checks the caller belongs there. */
@Injectable()
export class TenantGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tenancy: TenancyService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const scoped =
      this.reflector.getAllAndOverride<boolean>(TENANT_SCOPED, targets) ||
      this.reflector.getAllAndOverride<string>(REQUIRED_PERMISSION, targets) !== undefined ||
      this.reflector.getAllAndOverride<string>(REQUIRED_FEATURE, targets) !== undefined;
    if (!scoped) return true;
    const request = context.switchToHttp().getRequest<AppRequest>();
    if (!request.actor) return true; // a @Public() route has no tenant to check
    request.tenant = await this.tenancy.resolve(request, request.actor);
    return true;
  }
}
