import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Histogram } from 'prom-client';
import { MetricsRegistry } from './metrics-registry';

/** The route label of a request that matched no route (a 404): one value, never the raw URL. */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * HTTP series of the API, labelled by route TEMPLATE (Fastify's routeOptions.url, e.g.
 * /api/communities/:communityId/webhooks), method and status: never the raw URL, so no community,
 * endpoint or user id ever becomes a label value and the series count stays bounded.
 */
@Injectable()
export class HttpMetrics {
  private readonly duration: Histogram<'method' | 'route' | 'status_code'>;
  private readonly rateLimited: Counter<'route'>;

  constructor({ registry }: MetricsRegistry) {
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests served by the API, by route template, method and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    // Every 429 the API answers is RATE_LIMITED (error-response.ts), whoever refused: the webhook
    // and auth routes' limits (RateLimitGuard), login's failure budgets and any other limiter, so
    // counting at the response sees them all.
    this.rateLimited = new Counter({
      name: 'http_rate_limit_refusals_total',
      help: 'Requests refused with 429 RATE_LIMITED, by route template',
      labelNames: ['route'],
      registers: [registry],
    });
  }

  /** Fastify onResponse hook: one observation per answered request. */
  observe(request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const status = reply.statusCode;
    this.duration.observe(
      { method: request.method, route, status_code: String(status) },
      reply.elapsedTime / 1000,
    );
    if (status === 429) this.rateLimited.inc({ route });
  }
}
