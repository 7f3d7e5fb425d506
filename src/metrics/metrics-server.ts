import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { MetricsRegistry } from './metrics-registry';

export type MetricsProcess = 'api' | 'worker';
/** DI token: which process this is (picks the default METRICS_PORT and whether /health/* is served). */
export const METRICS_PROCESS = Symbol('METRICS_PROCESS');

/** A readiness check answering slower than this counts as down: a probe must not hang. */
export const READINESS_TIMEOUT_MS = 3_000;

type ReadinessCheck = () => Promise<unknown>;

/**
 * A small node:http server on METRICS_HOST:METRICS_PORT (apart from the public port, so /metrics is
 * never exposed through the API's ingress): GET /metrics for Prometheus and, in the worker (which
 * has no other HTTP server), GET /health/live and GET /health/ready. METRICS_PORT=0 opens nothing.
 * METRICS_HOST is loopback unless set (a container sets 0.0.0.0 for Prometheus on its network).
 * With METRICS_TOKEN set, /metrics needs `Authorization: Bearer <token>`; the health routes stay
 * open: orchestrators' probes seldom send headers, and they tell only up or down, never a number.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MetricsServer.name);
  private readonly checks = new Map<string, ReadinessCheck>();
  private server?: Server;
  /** SHA-256 of METRICS_TOKEN: fixed-length digests compare in constant time whatever was sent. */
  private readonly tokenDigest?: Buffer;

  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly config: AppConfig,
    @Inject(METRICS_PROCESS) private readonly process: MetricsProcess,
  ) {
    if (config.METRICS_TOKEN) this.tokenDigest = sha256(config.METRICS_TOKEN);
  }

  /** What /health/ready asks (e.g. database, redis); each must resolve within READINESS_TIMEOUT_MS. */
  addReadinessCheck(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** The port listened on, or undefined when off. */
  get port(): number | undefined {
    return this.listening?.port;
  }

  /** The address listened on (METRICS_HOST as the system resolved it), or undefined when off. */
  get address(): string | undefined {
    return this.listening?.address;
  }

  private get listening(): AddressInfo | undefined {
    return (this.server?.address() as AddressInfo | null) ?? undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metricsPort(this.process);
    if (port === 0) return;
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          err.code === 'EADDRINUSE'
            ? new Error(`METRICS_PORT ${port} is in use: choose another port, or 0 to turn metrics off`)
            : err,
        ),
      );
      server.listen(port, this.config.METRICS_HOST, () => resolve());
    });
    this.server = server;
    // never the token itself
    const access = this.tokenDigest ? ' (Bearer METRICS_TOKEN required)' : '';
    this.logger.log(`metrics on http://${this.config.METRICS_HOST}:${port}/metrics${access}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, { error: 'GET only' });
    try {
      if (path === '/metrics') {
        if (!this.authorised(req)) {
          res.setHeader('www-authenticate', 'Bearer realm="metrics"');
          return send(res, 401, { error: 'Authorization: Bearer METRICS_TOKEN required' });
        }
        const text = await this.metrics.metrics();
        res.writeHead(200, { 'content-type': this.metrics.contentType });
        res.end(text);
        return;
      }
      if (this.process === 'worker' && path === '/health/live') return send(res, 200, { status: 'ok' });
      if (this.process === 'worker' && path === '/health/ready') return await this.ready(res);
      send(res, 404, { error: 'not found' });
    } catch (err) {
      this.logger.error(`metrics request ${path} failed: ${(err as Error).message}`);
      send(res, 500, { error: 'internal error' });
    }
  }

  /** No METRICS_TOKEN: anyone who reaches the port; set: the request's Bearer token is it. */
  private authorised(req: IncomingMessage): boolean {
    if (!this.tokenDigest) return true;
    const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    return match !== null && timingSafeEqual(sha256(match[1]), this.tokenDigest);
  }

  /** 200 when every check answers, 503 naming the ones that did not (their errors go to the log only). */
  private async ready(res: ServerResponse): Promise<void> {
    const results = await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        try {
          await withTimeout(check(), READINESS_TIMEOUT_MS);
          return [name, 'up'] as const;
        } catch (err) {
          this.logger.warn(`readiness: ${name} is down: ${(err as Error).message}`);
          return [name, 'down'] as const;
        }
      }),
    );
    const ok = results.every(([, state]) => state === 'up');
    send(res, ok ? 200 : 503, { status: ok ? 'ok' : 'unavailable', checks: Object.fromEntries(results) });
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
