import { RequestMethod } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LoggerModule as PinoLoggerModule } from 'nestjs-pino';
import { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';

/** Paths pino blanks out wherever they appear in a log line: credentials and secrets never reach logs. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.passwordHash',
  '*.refreshToken',
  '*.accessToken',
  '*.token',
  '*.secret',
  '*.key',
];

/**
 * Anything shaped like an API key (`cpk_…`, up to the next URL delimiter), wherever it sits: a
 * path segment, a query value, a fragment. Percent-encoded too (`cpk%5F…`), since a client may
 * encode the underscore.
 */
const API_KEY_IN_URL = /cpk(?:_|%5f)[^/?&#=;,\s]*/i;
const API_KEYS_IN_URL = new RegExp(API_KEY_IN_URL.source, 'gi');

/**
 * The URL as it may be logged: query parameters named like credentials are masked whatever their
 * value, and an API key is masked wherever it appears, path included.
 */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(API_KEYS_IN_URL, '[REDACTED]');
  if (q < 0) return path;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const [name, value] of params) {
    if (/key|token|secret|password/i.test(name) || API_KEY_IN_URL.test(value)) params.set(name, '[REDACTED]');
  }
  return `${path}?${params.toString().replace(API_KEYS_IN_URL, '[REDACTED]')}`;
}

/** Structured JSON logs (pino); each line of a request carries its id as reqId. */
export const LoggerModule = PinoLoggerModule.forRootAsync({
  imports: [ConfigModule],
  inject: [AppConfig],
  useFactory: (config: AppConfig) => ({
    // path-to-regexp 8 syntax for "every route" (the default '*' is the legacy form Nest warns about)
    forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
    pinoHttp: {
      level: config.LOG_LEVEL,
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      quietReqLogger: true,
      // Fastify already gave the request its id (createFastifyAdapter); reuse it on every line.
      genReqId: (req: IncomingMessage) => (typeof req.id === 'string' ? req.id : randomUUID()),
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          url: redactUrl(req.url),
        }),
      },
      autoLogging: { ignore: (req: IncomingMessage) => req.url === '/api/health' },
    },
  }),
});
