// The V8 memory settings of this process, applied once the modules are loaded, before any query or load.
import { applyV8MemoryFlags, warnMissingMallocEnvironment } from './bootstrap/memory-flags';
import { NestFactory } from '@nestjs/core';
import { AppConfig } from './config/app-config';
import { AppLogger } from './logging/app-logger';
import { preflight, signalReady } from './bootstrap/preflight';
import { exitOnStartupFailure } from './bootstrap/startup-failure';
import { startTracing } from './tracing/start-tracing';
import { WorkerRuntime } from './modules/webhooks/worker/worker-runtime.service';
import { WorkerModule } from './worker.module';

applyV8MemoryFlags('worker');
warnMissingMallocEnvironment('worker');

/** Past the drain window, closing connections gets this long before the process is ended anyway. */
const CLOSE_GRACE_MS = 10_000;

async function bootstrap(): Promise<void> {
  await preflight('worker');
  // after preflight, which loaded .env; before Nest, so the first relay is traced
  startTracing('worker');
  const app = await NestFactory.createApplicationContext(WorkerModule, { bufferLogs: true });
  const logger = app.get(AppLogger);
  app.useLogger(logger);
  await app.init();

  // Own signal handling instead of enableShutdownHooks: the drain must finish before Prisma and
  // Redis are closed, which Nest's hook order does not promise.
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: stopping the worker`);
    setTimeout(() => process.exit(1), app.get(AppConfig).workerShutdownTimeoutMs + CLOSE_GRACE_MS).unref();
    void app
      .get(WorkerRuntime)
      .stop()
      .then(() => app.close())
      .then(() => process.exit(0))
      .catch((err: Error) => {
        logger.error(`worker shutdown failed: ${err.message}`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  logger.log('worker started');
  signalReady('worker');
}

bootstrap().catch(exitOnStartupFailure('worker'));
