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

/** Query-string values that look like credentials are masked before the URL is logged. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const [name, value] of params) {
    if (/key|token|secret|password/i.test(name) || value.startsWith('cpk_')) params.set(name, '[REDACTED]');
  }
  return `${url.slice(0, q)}?${params.toString()}`;
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
