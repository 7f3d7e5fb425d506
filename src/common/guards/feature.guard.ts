import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FeatureKey, hasFeature } from '../access/plans';
import { REQUIRED_FEATURE } from '../decorators/auth.decorators';
import { Errors } from '../errors/app-error';
import type { AppRequest } from '../http/request-context';

/** @RequireFeature('webhooks'): the community's plan (or its override) must include the feature. */
@Injectable()
export class FeatureGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const feature = this.reflector.getAllAndOverride<FeatureKey>(REQUIRED_FEATURE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!feature) return true;
    const tenant = context.switchToHttp().getRequest<AppRequest>().tenant;
    if (!tenant || !hasFeature(tenant.community.plan, tenant.community.featureOverrides, feature)) {
      throw Errors.featureNotAvailable(feature);
    }
    return true;
  }
}
