import { Logger } from '@nestjs/common';
import { currentRequestScope, runWithRequestId } from './request-id';
import type { TraceSpan } from '../tracing/tracer';
import { AppLogger, createRootLogger } from './app-logger';

/** A pino destination that keeps each JSON line, parsed. */
function memoryDestination() {
  const lines: Record<string, unknown>[] = [];
  return { lines, stream: { write: (line: string) => void lines.push(JSON.parse(line)) } };
}

function loggerAt(level: string) {
  const out = memoryDestination();
  const pino = createRootLogger({ LOG_LEVEL: level, isProduction: true }, out.stream);
  return { lines: out.lines, logger: new AppLogger(pino) };
}

describe('AppLogger (Nest LoggerService over one pino logger)', () => {
  it("gives each line written inside a request that request's id, and none outside", () => {
    const { lines, logger } = loggerAt('info');
    runWithRequestId('req-1', () => logger.log('inside', 'Ctx'));
    logger.log('outside', 'Ctx');
    expect(lines[0]).toMatchObject({ msg: 'inside', context: 'Ctx', reqId: 'req-1', level: 30 });
    expect(lines[1]).toMatchObject({ msg: 'outside', context: 'Ctx' });
    expect(lines[1]).not.toHaveProperty('reqId');
  });

  it('gives each line of a traced request its trace and span ids beside reqId, and no ids otherwise', () => {
    const { lines, logger } = loggerAt('info');
    const span = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) } as TraceSpan;
    runWithRequestId('req-traced', () => {
      currentRequestScope()!.span = span;
      logger.log('traced', 'Ctx');
    });
    runWithRequestId('req-untraced', () => logger.log('untraced', 'Ctx'));
    expect(lines[0]).toMatchObject({ reqId: 'req-traced', traceId: span.traceId, spanId: span.spanId });
    expect(lines[1]).toMatchObject({ reqId: 'req-untraced' });
    expect(lines[1]).not.toHaveProperty('traceId');
    expect(lines[1]).not.toHaveProperty('spanId');
  });

  it('keeps the request id across awaits', async () => {
    const { lines, logger } = loggerAt('info');
    await runWithRequestId('req-2', async () => {
      await Promise.resolve();
      await new Promise<void>((resolve) => setImmediate(resolve));
      logger.warn('later', 'Ctx');
    });
    expect(lines[0]).toMatchObject({ msg: 'later', reqId: 'req-2', level: 40 });
  });

  it('maps Nest levels to pino levels and drops what the configured level drops', () => {
    const { lines, logger } = loggerAt('debug');
    logger.verbose('v', 'C');
    logger.debug('d', 'C');
    logger.log('l', 'C');
    logger.warn('w', 'C');
    logger.error('e', 'C');
    logger.fatal('f', 'C');
    expect(lines.map((l) => [l.msg, l.level])).toEqual([
      ['d', 20],
      ['l', 30],
      ['w', 40],
      ['e', 50],
      ['f', 60],
    ]);
  });

  it('writes an Error as err, an object as fields, and error(message, stack) with that stack', () => {
    const { lines, logger } = loggerAt('info');
    logger.error(new Error('boom'), 'Ctx');
    logger.log({ messageId: 'msg_1', endpointId: 'e1' }, 'attempt sent', 'Ctx');
    const stack = 'Error: bad\n    at somewhere (file.js:1:1)';
    logger.error('bad', stack, 'ExceptionsHandler');
    expect(lines[0]).toMatchObject({ context: 'Ctx', err: { message: 'boom', type: 'Error' } });
    expect(lines[1]).toMatchObject({
      messageId: 'msg_1',
      endpointId: 'e1',
      msg: 'attempt sent',
      context: 'Ctx',
    });
    expect(lines[2]).toMatchObject({ msg: 'bad', context: 'ExceptionsHandler', err: { stack } });
  });

  it("serves Nest's context-bound Logger instances once it is the app's logger", () => {
    const { lines, logger } = loggerAt('info');
    Logger.overrideLogger(logger);
    try {
      new Logger('Outbox').log('relayed 3 events');
      new Logger('HTTP').error({ err: new Error('x') }, 'Unhandled error');
    } finally {
      Logger.overrideLogger(false);
    }
    expect(lines[0]).toMatchObject({ msg: 'relayed 3 events', context: 'Outbox' });
    expect(lines[1]).toMatchObject({ msg: 'Unhandled error', context: 'HTTP', err: { message: 'x' } });
  });

  it('blanks credentials and secrets wherever a logged object carries them', () => {
    const { lines, logger } = loggerAt('info');
    logger.log(
      {
        req: { headers: { authorization: 'Bearer t0k', 'x-api-key': 'cpk_k', cookie: 'c=1' } },
        user: { password: 'hunter2', passwordHash: '$argon2', name: 'Ann' },
        session: { refreshToken: 'r', accessToken: 'a', token: 't' },
        endpoint: { secret: 'whsec_s', key: 'k' },
      },
      'shapes',
      'Ctx',
    );
    const text = JSON.stringify(lines[0]);
    for (const secret of ['t0k', 'cpk_k', 'c=1', 'hunter2', '$argon2', '"r"', '"a"', '"t"', 'whsec_s', '"k"'])
      expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ user: { name: 'Ann', password: '[REDACTED]' } });
  });
});
