import { CanActivate, ExecutionContext, Injectable, ValidationPipe } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import { isTenantScoped } from '../decorators/auth.decorators';
import type { AppRequest } from '../http/request-context';
import { TenantBodyDto } from '../http/tenant-body.dto';
import { Errors } from '../errors/app-error';
import { createValidationPipe, unknownField } from '../pipes/validation.pipe';

/** Whether a route declares a query DTO and a body DTO, and whether it is tenant-scoped. */
interface RouteShape {
  query: boolean;
  body: boolean;
  tenantScoped: boolean;
}

/**
 * The query string and body of a route that declares no DTO for them are held to the same rule as the others:
 * a tenant-scoped route knows `communityId` (docs/product-decisions.md#3-tenancy-roles-permissions-plans,
 * validated as TenantBodyDto), any other field is a 400 VALIDATION_ERROR naming it. The last global guard
 * (app.module.ts), so it answers where the pipe would: after credentials (401), tenant, plan, permission and
 * rate limit. A guard rather than an interceptor: Nest runs no rxjs chain for a route without interceptors.
 */
@Injectable()
export class KnownFieldsGuard implements CanActivate {
  private readonly pipe: ValidationPipe = createValidationPipe();
  /** What each handler declares, read from its metadata once instead of on every request. */
  private readonly routes = new WeakMap<object, RouteShape>();

  constructor(private readonly reflector: Reflector) {}

  /**
   * Synchronous when there is nothing undeclared to look at (a route's declared query or body, an empty
   * query string, no body): most requests, which then pass without a promise.
   */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const route = this.shapeOf(context);
    const request = context.switchToHttp().getRequest<AppRequest>();
    const query = route.query || isEmpty(request.query) ? undefined : request.query;
    const body = route.body || request.body == null ? undefined : request.body;
    if (query === undefined && body === undefined) return true;
    return this.checkUndeclared(query, body, route.tenantScoped);
  }

  private async checkUndeclared(query: unknown, body: unknown, tenantScoped: boolean): Promise<boolean> {
    if (query !== undefined) await this.check(query, 'query', tenantScoped);
    if (body !== undefined) await this.check(body, 'body', tenantScoped);
    return true;
  }

  private shapeOf(context: ExecutionContext): RouteShape {
    const handler = context.getHandler();
    let shape = this.routes.get(handler);
    if (!shape) {
      const args: Record<string, unknown> =
        Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {};
      const declared = (type: RouteParamtypes) => Object.keys(args).some((key) => key.startsWith(`${type}:`));
      shape = {
        query: declared(RouteParamtypes.QUERY),
        body: declared(RouteParamtypes.BODY),
        tenantScoped: isTenantScoped(this.reflector, context),
      };
      this.routes.set(handler, shape);
    }
    return shape;
  }

  private async check(value: unknown, type: 'query' | 'body', tenantScoped: boolean): Promise<void> {
    if (tenantScoped) {
      await this.pipe.transform(value, { type, metatype: TenantBodyDto });
      return;
    }
    const fields = Object.keys(value ?? {});
    if (fields.length > 0) throw Errors.validation(fields.map(unknownField));
  }
}

/** A query object without a field: it passes both rules of the check (no field is unknown, none to validate). */
function isEmpty(value: unknown): boolean {
  return value !== null && typeof value === 'object' && Object.keys(value).length === 0;
}
