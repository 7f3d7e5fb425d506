import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ALLOW_API_KEY, ALLOW_PORTAL_SESSION, IS_PUBLIC } from '../../common/decorators/auth.decorators';
import { Errors } from '../../common/errors/app-error';
import type { AppRequest } from '../../common/http/request-context';
import { whenReady } from '../../common/async/when-ready';
import { type CredentialResult, CredentialsService } from './credentials.service';

/** Where a route's decorators are read: its handler, then its controller. */
type Targets = [ReturnType<ExecutionContext['getHandler']>, ReturnType<ExecutionContext['getClass']>];

/** The answer to an API key on a route that takes a login token only (docs/api.md#identity-tenancy-access). */
export const API_KEY_REFUSED = 'This route needs a login token (Bearer); API keys are not accepted here';

/**
 * First global guard: every route needs a Bearer JWT unless marked @Public(); routes marked
 * @AllowApiKey() take X-Api-Key as well.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialsService,
  ) {}

  /** Synchronous when the credentials are answered from memory (CredentialsService.authenticate). */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const targets: Targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<AppRequest>();
    return whenReady(this.credentials.authenticate(request), (result) =>
      this.admit(request, result, targets),
    );
  }

  private admit(request: AppRequest, result: CredentialResult, targets: Targets): true {
    if (result.status === 'none') throw Errors.unauthorized();
    if (result.status === 'invalid') throw Errors.unauthorized(result.message);
    const allowApiKey = this.reflector.getAllAndOverride<boolean>(ALLOW_API_KEY, targets) ?? false;
    if (result.actor.kind === 'apiKey' && !allowApiKey) {
      throw Errors.unauthorized(API_KEY_REFUSED);
    }
    // --- webhook-portal sessions (docs/api.md#webhook-portal): only routes marked for them, only in their community
    if (result.actor.portalCommunityId !== undefined) {
      if (!this.reflector.getAllAndOverride<boolean>(ALLOW_PORTAL_SESSION, targets)) {
        throw Errors.unauthorized('A webhook portal session cannot call this route');
      }
      // its one community is enforced where the request's community is resolved (by id or slug): TenancyService
    }
    // --- end of webhook-portal sessions
    request.actor = result.actor;
    return true;
  }
}
