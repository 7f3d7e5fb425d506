import { Writable } from 'node:stream';
import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import { currentRequestScope } from './request-id';
import type { AppConfig } from '../config/app-config';

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
 * Where log lines go: JSON lines on stdout in production (for a log shipper); outside production,
 * pino-pretty renders them for people (local time, level, message, the request id), synchronously,
 * on stdout, with colours when stdout is a terminal. In this process, never a transport: a pino
 * transport runs in a worker thread, a second V8 heap (docs/architecture.md#operations).
 */
export function logDestination(config: Pick<AppConfig, 'isProduction'>): DestinationStream | undefined {
  if (config.isProduction) return undefined;
  // Required here, not imported: production never loads it (dozens of modules, resident for nothing).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pinoPretty = require('pino-pretty') as typeof import('pino-pretty');
  return pinoPretty({
    // process.stdout (not fd 1 directly): output stays in order with everything else the process prints
    destination: toStdout(),
    sync: true,
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    // the message of a request line already says method, path, status and code
    ignore: 'pid,hostname,req,res,context',
    messageFormat: '{if context}[{context}] {end}{msg}',
    singleLine: true,
  });
}

/**
 * A stream of the logger's own that writes each line to process.stdout at once. pino-pretty pipes into
 * its destination, adding close, finish and error listeners to it that stay while it is open: on stdout
 * itself, every logger made in the process (each test app makes one) left its listeners there, past
 * Node's warning limit.
 */
function toStdout(): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      process.stdout.write(chunk);
      done();
    },
  });
}

/**
 * The process's one pino logger. Every line written while a request is served carries its id as
 * `reqId`, read from the request-id scope the API opens for each request (src/logging/request-id.ts)
 * when the line is written (with `traceId` and `spanId` when the request is traced): no per-request child logger (pino-http built two for every request, a
 * measurable share of the API's CPU on a hot read, for lines that at LOG_LEVEL=warn are never written).
 */
export function createRootLogger(
  config: Pick<AppConfig, 'LOG_LEVEL' | 'isProduction'>,
  destination: DestinationStream | undefined = logDestination(config),
): Logger {
  const options: pino.LoggerOptions = {
    level: config.LOG_LEVEL,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    // a new object each time: pino merges the line's fields into it
    mixin: () => {
      const scope = currentRequestScope();
      if (scope === undefined) return {};
      // a traced request's lines also name its trace and span (tracing off: never set)
      const span = scope.span;
      return span === undefined
        ? { reqId: scope.id }
        : { reqId: scope.id, traceId: span.traceId, spanId: span.spanId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A stack trace as Nest's own exception handlers pass it: error(message, stack). */
const STACK_TRACE = /\n\s*at /;

/**
 * Nest's LoggerService over the root logger, for `new Logger(context)` everywhere and Nest's own
 * lines: `log` is pino's info, `verbose` its trace; the last extra argument is the context, an
 * Error or an object becomes the line's fields, and error(message, stack) keeps the stack as `err`.
 */
export class AppLogger implements LoggerService {
  constructor(readonly pino: Logger) {}

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: Level, message: unknown, rest: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    const args = rest.slice(0, -1);
    if (rest.length > 0) fields.context = rest[rest.length - 1];
    if (message instanceof Error) {
      fields.err = message;
      this.pino[level](fields, ...(args as [string?]));
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level](Object.assign(fields, message), ...(args as [string?]));
    } else if (
      level === 'error' &&
      args.length === 1 &&
      typeof args[0] === 'string' &&
      STACK_TRACE.test(args[0])
    ) {
      const err = new Error(String(message));
      err.stack = args[0];
      fields.err = err;
      this.pino.error(fields, String(message));
    } else {
      this.pino[level](fields, String(message), ...args);
    }
  }
}
