import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { HOSTNAME, isDnsServer, IsListenAddress, IsListOf, toInt } from '../config-validation';

/**
 * The process and its HTTP surface: environment, ports, public address, logging, proxies in front.
 * One part of AppConfig (src/config/app-config.ts), which validates them all at once; the parts extend
 * one another only so that one class holds every setting.
 */
export class ServerSettings {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  /**
   * Port of the Prometheus /metrics server (and the worker's /health/live and /health/ready), on
   * METRICS_HOST, apart from the public PORT; unset: 9464 for the API, 9465 for the worker; 0: off.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;

  /**
   * Address the metrics server listens on: loopback by default, since the port is for a private
   * network only; a container sets 0.0.0.0 so that Prometheus on its network can reach it
   * (docs/operations.md "Metrics and alerts").
   */
  @IsListenAddress('METRICS_HOST')
  METRICS_HOST = '127.0.0.1';

  /**
   * Set: GET /metrics answers 401 without `Authorization: Bearer <METRICS_TOKEN>` (the health routes
   * stay open). At least 32 characters without spaces, e.g. `openssl rand -hex 32`.
   */
  @IsOptional()
  @Matches(/^[\x21-\x7e]{32,}$/, {
    message:
      'METRICS_TOKEN must be at least 32 printable characters without spaces (e.g. openssl rand -hex 32)',
  })
  METRICS_TOKEN?: string;

  /** Base address printed at start-up and used in embed URLs. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/.*)?$/, { message: 'PUBLIC_BASE_URL must be an http(s) URL' })
  PUBLIC_BASE_URL?: string;

  /**
   * Further names the service answers on (comma-separated); with localhost and PUBLIC_BASE_URL's
   * host they can never be claimed as a community's custom domain, nor resolve to one.
   */
  @IsOptional()
  @IsListOf((entry) => HOSTNAME.test(entry), 'SERVICE_HOSTNAMES must be a comma-separated list of hostnames')
  SERVICE_HOSTNAMES?: string;

  /** DNS servers that custom-domain verification asks for TXT records; unset: the system's. */
  @IsOptional()
  @IsListOf(
    isDnsServer,
    'DNS_RESOLVER must be a comma-separated list of IP addresses with optional ports, e.g. 127.0.0.1:5353',
  )
  DNS_RESOLVER?: string;

  @Matches(/^(fatal|error|warn|info|debug|trace|silent)$/)
  LOG_LEVEL = 'info';

  /**
   * Whether X-Forwarded-For names the client (Fastify's trustProxy): `false` (default: the socket's
   * address), `true` (every hop: only behind a proxy that overwrites the header), or a number of
   * proxy hops to believe (1 = the address the nearest proxy saw; safe with proxies that append).
   */
  @Matches(/^(true|false|\d{1,2})$/, {
    message: 'TRUST_PROXY must be true, false or a number of proxy hops (e.g. 1)',
  })
  TRUST_PROXY = 'false';

  /**
   * The demo's state file (logins, API key, the local receiver's signing secret), written by the
   * seed and `npm start` outside the repository; default $XDG_STATE_HOME/community-platform/demo.json
   * or ~/.community-platform/demo.json (src/cli/demo-state.ts).
   */
  @IsOptional()
  @IsString()
  DEMO_STATE_FILE?: string;

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
  }

  /** Fastify's trustProxy: false, true (every hop) or the number of hops to believe. */
  get trustProxy(): boolean | number {
    if (this.TRUST_PROXY === 'true') return true;
    if (this.TRUST_PROXY === 'false') return false;
    const hops = Number(this.TRUST_PROXY);
    return hops === 0 ? false : hops;
  }

  /** The metrics port of this kind of process (0: no metrics server). */
  metricsPort(process: 'api' | 'worker'): number {
    return this.METRICS_PORT ?? (process === 'api' ? 9464 : 9465);
  }

  get publicBaseUrl(): string {
    return (this.PUBLIC_BASE_URL ?? `http://localhost:${this.PORT}`).replace(/\/+$/, '');
  }

  /** The names the service answers on, lower-case: localhost, PUBLIC_BASE_URL's host, SERVICE_HOSTNAMES. */
  get serviceHostnames(): string[] {
    const listed = (this.SERVICE_HOSTNAMES ?? '').split(',').map((name) => name.trim());
    const names = ['localhost', new URL(this.publicBaseUrl).hostname, ...listed]
      .map((name) => name.toLowerCase().replace(/\.$/, ''))
      .filter((name) => name !== '');
    return [...new Set(names)];
  }

  /** DNS servers for verification lookups, or undefined for the system's. */
  get dnsResolvers(): string[] | undefined {
    return this.DNS_RESOLVER?.split(',').map((entry) => entry.trim());
  }
}
