import { RequestMethod } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule as PinoLoggerModule } from 'nestjs-pino';
import pino, { type DestinationStream, type Level, type LevelWithSilent } from 'pino';
import type { Options as HttpLoggerOptions } from 'pino-http';
import { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { responseErrorCode } from './error-code';

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

/**
 * Where log lines go: JSON lines on stdout in production (for a log shipper); outside production,
 * pino-pretty renders them for people (local time, level, message, the request id), synchronously,
 * on stdout, with colours when stdout is a terminal. In this process, never a transport: a pino
 * transport runs in a worker thread, a second V8 heap (bench/README.md, "Memory").
 */
export function logDestination(config: AppConfig): DestinationStream | undefined {
  if (config.isProduction) return undefined;
  // Required here, not imported: production never loads it (41 modules, 1.6 MiB of RSS).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pinoPretty = require('pino-pretty') as typeof import('pino-pretty');
  return pinoPretty({
    // process.stdout (not fd 1 directly): output stays in order with everything else the process prints
    destination: process.stdout,
    sync: true,
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    // the message of a request line already says method, path, status and code
    ignore: 'pid,hostname,req,res,context',
    messageFormat: '{if context}[{context}] {end}{msg}',
    singleLine: true,
  });
}

type LoggedRequest = IncomingMessage & { originalUrl?: string };

/** 5xx and errors are `error`, 4xx `warn`, the rest `info`. */
export function requestLogLevel(_req: IncomingMessage, res: ServerResponse, err?: Error): Level {
  if (err || res.statusCode >= 500) return 'error';
  return res.statusCode >= 400 ? 'warn' : 'info';
}

/**
 * requestLogLevel, or 'silent' when the configured level would drop that line anyway: pino-http
 * then stops at once instead of wording a message (the URL parsed again to mask credentials) and an
 * object for a line nobody writes (about 1% of the API's CPU per request at LOG_LEVEL=warn).
 */
export function requestLogLevelAt(configured: string) {
  // 'silent' (not among pino's numbered levels) drops every line
  const threshold = pino.levels.values[configured] ?? Infinity;
  return (req: IncomingMessage, res: ServerResponse, err?: Error): LevelWithSilent => {
    const level = requestLogLevel(req, res, err);
    return pino.levels.values[level] >= threshold ? level : 'silent';
  };
}

/** `GET /api/sdk/tweets 403 FEATURE_NOT_AVAILABLE`: the line a person reads; fields stay for machines. */
export function requestLogMessage(req: LoggedRequest, res: ServerResponse): string {
  const code = responseErrorCode(res);
  return `${req.method} ${redactUrl(req.originalUrl ?? req.url)} ${res.statusCode}${code ? ` ${code}` : ''}`;
}

/** Each request's log lines carry its id as reqId; its completion line carries the error code. */
export const LoggerModule = PinoLoggerModule.forRootAsync({
  imports: [ConfigModule],
  inject: [AppConfig],
  useFactory: (config: AppConfig) => {
    const options: HttpLoggerOptions = {
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
      customLogLevel: requestLogLevelAt(config.LOG_LEVEL),
      customSuccessMessage: (req: IncomingMessage, res: ServerResponse) => requestLogMessage(req, res),
      customErrorMessage: (req: IncomingMessage, res: ServerResponse) => requestLogMessage(req, res),
      customSuccessObject: (_req: IncomingMessage, res: ServerResponse, value: Record<string, unknown>) => {
        const code = responseErrorCode(res);
        return code ? { ...value, code } : value;
      },
      customErrorObject: (
        _req: IncomingMessage,
        res: ServerResponse,
        _err: Error,
        value: Record<string, unknown>,
      ) => {
        const code = responseErrorCode(res);
        return code ? { ...value, code } : value;
      },
      autoLogging: { ignore: (req: IncomingMessage) => req.url === '/api/health' },
    };
    const destination = logDestination(config);
    return {
      // path-to-regexp 8 syntax for "every route" (the default '*' is the legacy form Nest warns about)
      forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
      pinoHttp: destination ? [options, destination] : options,
    };
  },
});
