import type { INestApplicationContext, ModuleMetadata } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { ConfigModule } from '../../src/config/config.module';
import { PrismaModule } from '../../src/prisma/prisma.module';
import { PrismaService } from '../../src/prisma/prisma.service';

export interface ServiceModule {
  /** a provider of the compiled module (a service under test, or one of its real collaborators) */
  get: INestApplicationContext['get'];
  prisma: PrismaService;
}

/**
 * For unit specs of a service whose rule needs the database: the modules under test compiled with the
 * app's configuration and PrismaService on the run's PostgreSQL database, without HTTP and without
 * Redis (no invalidation bus, so every lookup reads the database) unless a module imported brings them.
 * `env` (read when the block starts) overrides configuration, as createTestApp's does. Started before the
 * describe block's first test, closed after its last; read it inside the tests.
 */
export function useServiceModule(
  imports: NonNullable<ModuleMetadata['imports']>,
  providers: NonNullable<ModuleMetadata['providers']> = [],
  env: () => Record<string, string> = () => ({}),
): ServiceModule {
  let moduleRef: TestingModule | undefined;
  const service: ServiceModule = {
    get: ((typeOrToken: never) => moduleRef!.get(typeOrToken)) as INestApplicationContext['get'],
    get prisma() {
      return moduleRef!.get(PrismaService);
    },
  };
  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [ConfigModule, PrismaModule, ...imports],
      providers,
    })
      .overrideProvider(AppConfig)
      .useValue(loadConfig({ ...process.env, ...env() }).config)
      .compile();
    moduleRef.useLogger(false);
    await moduleRef.init();
  });
  afterAll(() => moduleRef?.close());
  return service;
}
