// The V8 memory settings of this process, applied once the modules are loaded, before any query or load.
import { applyV8MemoryFlags, warnMissingMallocEnvironment } from './bootstrap/memory-flags';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { configureHttpApp, createFastifyAdapter } from './bootstrap/http-app';
import { AppConfig, loadConfig } from './config/app-config';
import { preflight, signalReady } from './bootstrap/preflight';
import { exitOnStartupFailure } from './bootstrap/startup-failure';
import { startTracing } from './tracing/start-tracing';

applyV8MemoryFlags('api');
warnMissingMallocEnvironment('api');

async function bootstrap(): Promise<void> {
  await preflight('api');
  // after preflight, which loaded .env; before Nest, so the first request is traced
  startTracing('api');
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule,
    // The adapter exists before Nest's config provider does; preflight has validated the same values.
    createFastifyAdapter(loadConfig(process.env).config),
    { bufferLogs: true },
  );
  await configureHttpApp(app);
  const config = app.get(AppConfig);
  await app.listen(config.PORT, config.HOST);
  signalReady('api');
}

bootstrap().catch(exitOnStartupFailure('api'));
