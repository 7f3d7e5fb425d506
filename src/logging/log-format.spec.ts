import type { LoggerService } from '@nestjs/common';
import { loadConfig } from '../config/app-config';
import { createRootLogger, logDestination } from './app-logger';
import { requestLogLevel, requestLogMessage } from './request-log';
import { StartupDetailAtDebug } from './startup-detail-logger';

const production = {
  NODE_ENV: 'production',
  JWT_SECRET: 'x'.repeat(40),
  WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

describe('log format', () => {
  it('is JSON lines in production and pino-pretty elsewhere', () => {
    expect(logDestination(loadConfig(production).config)).toBeUndefined();
    expect(logDestination(loadConfig({ NODE_ENV: 'development' }).config)).toBeDefined();
  });

  it('adds no listener to stdout per logger, however many the process makes', () => {
    const development = loadConfig({ NODE_ENV: 'development' }).config;
    const events = ['close', 'finish', 'error', 'unpipe'];
    const before = events.map((event) => process.stdout.listenerCount(event));
    // as many loggers as a test worker makes apps: more than Node's default limit of 10 listeners
    for (let i = 0; i < 12; i += 1) createRootLogger(development);
    expect(events.map((event) => process.stdout.listenerCount(event))).toEqual(before);
  });

  it('never loads pino-pretty in production (memory: bench/README.md)', () => {
    let prettyLoads = 0;
    jest.isolateModules(() => {
      // the real module, counted when something requires it
      jest.doMock('pino-pretty', () => {
        prettyLoads += 1;
        return jest.requireActual('pino-pretty');
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy in this registry
      const fresh = require('./app-logger') as typeof import('./app-logger');
      fresh.logDestination(loadConfig(production).config);
      expect(prettyLoads).toBe(0);
      fresh.logDestination(loadConfig({ NODE_ENV: 'development' }).config);
      expect(prettyLoads).toBe(1);
    });
  });

  it('words a request line with method, path (credentials masked), status and error code', () => {
    expect(requestLogMessage('GET', '/api/x?apiKey=cpk_secret', 403)).toBe(
      'GET /api/x?apiKey=%5BREDACTED%5D 403',
    );
    expect(requestLogMessage('GET', '/api/x?apiKey=cpk_secret', 403, 'FEATURE_NOT_AVAILABLE')).toBe(
      'GET /api/x?apiKey=%5BREDACTED%5D 403 FEATURE_NOT_AVAILABLE',
    );
  });

  it.each([
    [200, 'info'],
    [302, 'info'],
    [404, 'warn'],
    [500, 'error'],
  ])('logs a %d at %s', (statusCode, level) => {
    expect(requestLogLevel(statusCode)).toBe(level);
  });

  it("moves Nest's route-mapping and module-loading lines to debug, nothing else", () => {
    const calls: string[] = [];
    const inner = {
      log: (m: string) => calls.push(`log ${m}`),
      debug: (m: string) => calls.push(`debug ${m}`),
      error: () => undefined,
      warn: () => undefined,
    } as LoggerService;
    const logger = new StartupDetailAtDebug(inner);
    logger.log('Mapped {/api/health, GET} route', 'RouterExplorer');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Nest application successfully started', 'NestApplication');
    expect(calls).toEqual([
      'debug Mapped {/api/health, GET} route',
      'debug AppModule dependencies initialized',
      'log Nest application successfully started',
    ]);
  });
});
