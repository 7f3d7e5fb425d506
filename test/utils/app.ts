import { Test, type TestingModuleBuilder } from '@nestjs/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ModuleMetadata } from '@nestjs/common';
import { AppModule } from '../../src/app.module';
import { configureHttpApp, createFastifyAdapter } from '../../src/bootstrap/http-app';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { PrismaService } from '../../src/prisma/prisma.service';
import { InvalidationBus } from '../../src/redis/invalidation-bus';
import { waitFor } from './worker';
import { checkResponsesAgainstDocument } from './openapi-conformance';

export interface TestApp {
  app: NestFastifyApplication;
  prisma: PrismaService;
  config: AppConfig;
  close: () => Promise<void>;
}

/**
 * Boots the real API (AppModule on Fastify, every global guard, pipe and filter) against the run's
 * database. `env` overrides configuration for this app only (e.g. a short JWT_EXPIRES_IN); `override`
 * replaces providers beyond it (e.g. the rate limits' storage, for a test that is not about them). Every
 * answer it sends is checked against the OpenAPI document (test/utils/openapi-conformance.ts).
 */
export async function createTestApp(
  env: Record<string, string> = {},
  module: ModuleMetadata['imports'] = [AppModule],
  override: (builder: TestingModuleBuilder) => TestingModuleBuilder = (builder) => builder,
): Promise<TestApp> {
  const config = loadConfig({ ...process.env, ...env }).config;
  const moduleRef = await override(
    Test.createTestingModule({ imports: module }).overrideProvider(AppConfig).useValue(config),
  ).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), {
    logger: false,
  });
  await configureHttpApp(app);
  checkResponsesAgainstDocument(app);
  await app.getHttpAdapter().getInstance().ready();
  return { app, prisma: app.get(PrismaService), config, close: () => app.close() };
}

/**
 * Two API instances in one process on the run's database and Redis prefix, both subscribed to the
 * invalidation bus: from then on each answers cached facts from memory, as separate servers would.
 */
export async function twoSubscribedApps(): Promise<[TestApp, TestApp]> {
  const apps = await Promise.all([createTestApp(), createTestApp()]);
  await waitFor('both invalidation subscriptions', () => apps.every((t) => t.app.get(InvalidationBus).live));
  return apps as [TestApp, TestApp];
}

/**
 * The API of one describe block (createTestApp's arguments): started before its first test, closed after
 * its last. The object is filled in by beforeAll, so read its fields inside the tests.
 */
export function useTestApp(...args: Parameters<typeof createTestApp>): TestApp {
  const t = {} as TestApp;
  beforeAll(async () => {
    Object.assign(t, await createTestApp(...args));
  });
  afterAll(() => t.close?.());
  return t;
}
