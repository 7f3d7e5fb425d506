import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { exitOnInvalidConfig } from './config/exit-on-invalid-config';
import { WorkerModule } from './worker.module';

async function bootstrap(): Promise<void> {
  exitOnInvalidConfig();
  const app = await NestFactory.createApplicationContext(WorkerModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  await app.init();
  app.get(Logger).log('worker started');
}

void bootstrap();
