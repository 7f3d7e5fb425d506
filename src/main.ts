import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { configureHttpApp, createFastifyAdapter } from './bootstrap/http-app';
import { AppConfig } from './config/app-config';
import { exitOnInvalidConfig } from './config/exit-on-invalid-config';

async function bootstrap(): Promise<void> {
  exitOnInvalidConfig();
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, createFastifyAdapter(), {
    bufferLogs: true,
  });
  await configureHttpApp(app);
  const config = app.get(AppConfig);
  await app.listen(config.PORT, config.HOST);
}

void bootstrap();
