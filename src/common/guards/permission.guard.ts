import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Permission } from '../access/permissions';
import { REQUIRED_PERMISSION } from '../decorators/auth.decorators';
import { Errors } from '../errors/app-error';
import type { AppRequest } from '../http/request-context';

/** @RequirePermission('WEBHOOKS_MANAGE'): the caller's role (or key scopes) in the community must grant it. */
@Injectable()
export class PermissionGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const permission = this.reflector.getAllAndOverride<Permission>(REQUIRED_PERMISSION, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!permission) return true;
    const tenant = context.switchToHttp().getRequest<AppRequest>().tenant;
    if (!tenant?.permissions.has(permission)) {
      throw Errors.forbidden(`This requires the ${permission} permission`);
    }
    return true;
  }
}
