import { Global, Logger, Module } from '@nestjs/common';
import { ConfigModule as NestConfigModule } from '@nestjs/config';
import { AppConfig, loadConfig } from './app-config';

/**
 * Reads `.env` (local use) through @nestjs/config, then validates everything into one typed
 * AppConfig that the rest of the code injects. A bad value stops start-up with a message naming it.
 */
@Global()
@Module({
  imports: [NestConfigModule.forRoot({ isGlobal: false, ignoreEnvFile: process.env.NODE_ENV === 'test' })],
  providers: [
    {
      provide: AppConfig,
      useFactory: () => {
        const { config, warnings } = loadConfig(process.env);
        for (const w of warnings) new Logger('Config').warn(w);
        return config;
      },
    },
  ],
  exports: [AppConfig],
})
export class ConfigModule {}
