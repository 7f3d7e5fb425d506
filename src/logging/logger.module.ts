import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { AppLogger, createRootLogger } from './app-logger';

/**
 * The process's logger (API and worker): one pino logger behind Nest's LoggerService. The API adds
 * its request lines with Fastify hooks (logRequests, in configureHttpApp).
 */
@Global()
@Module({
  imports: [ConfigModule],
  providers: [
    {
      provide: AppLogger,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new AppLogger(createRootLogger(config)),
    },
  ],
  exports: [AppLogger],
})
export class LoggerModule {}
