import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { AppRequest } from '../../common/http/request-context';
import { IdempotencyService } from './idempotency.service';

/**
 * The last global guard (app.module.ts): an Idempotency-Key is looked at only once the caller,
 * the community, the permission and the rate limits have let the request through, since those
 * answers are not stored, and its scope is the caller's identity and community. A guard rather
 * than an interceptor: a request without the header costs one header lookup, no rxjs chain.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  constructor(private readonly idempotency: IdempotencyService) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<AppRequest>();
    if (request.headers['idempotency-key'] === undefined) return true;
    return this.idempotency.begin(request).then(() => true);
  }
}
