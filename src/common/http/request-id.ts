import { AsyncLocalStorage } from 'node:async_hooks';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Observable } from 'rxjs';

/**
 * The id of the HTTP request being served (the caller's X-Request-Id or a generated uuid, the
 * `reqId` of its log lines), available to code deep below the controller without passing it down:
 * the outbox stores it with each event so that an operator can follow one request to every
 * delivery it caused.
 */
const requestIdStorage = new AsyncLocalStorage<string>();

/** The current request's id; undefined outside a request (CLI, worker, start-up). */
export function currentRequestId(): string | undefined {
  return requestIdStorage.getStore();
}

/** Runs `fn` as if serving the request `id` (tests, and anything that replays a request's work). */
export function runWithRequestId<T>(id: string, fn: () => T): T {
  return requestIdStorage.run(id, fn);
}

/**
 * Runs each route handler inside its request's id scope. An interceptor rather than a Fastify hook:
 * the handler is subscribed to inside `run`, so every await below it keeps the id, whereas a hook's
 * scope can be lost across body parsing.
 */
@Injectable()
export class RequestIdInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const id = ctx.switchToHttp().getRequest<FastifyRequest | undefined>()?.id;
    if (typeof id !== 'string') return next.handle();
    return new Observable((subscriber) => {
      const subscription = requestIdStorage.run(id, () => next.handle().subscribe(subscriber));
      return () => subscription.unsubscribe();
    });
  }
}
