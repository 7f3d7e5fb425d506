import type { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { PrismaService } from '../../src/prisma/prisma.service';
import { WebhookSecretsService } from '../../src/modules/webhooks/core/secrets/webhook-secrets.service';
import { WebhookSecretsStore } from '../../src/modules/webhooks/core/secrets/webhook-secrets.store';
import { WebhookEndpointsStore } from '../../src/modules/webhooks/core/webhook-endpoints.store';
import { AttemptStatsStore } from '../../src/modules/webhooks/core/attempt-stats.store';
import { OutboxRetention } from '../../src/modules/webhooks/worker/outbox-retention.service';
import { WorkerOutboxStore } from '../../src/modules/webhooks/worker/outbox.store';
import { EndpointTransportStore } from '../../src/modules/webhooks/core/http-transport/endpoint-transport.store';
import { WorkerRuntime } from '../../src/modules/webhooks/worker/worker-runtime.service';
import { WorkerModule } from '../../src/worker.module';

/**
 * The one configuration every in-process delivery test uses, for the API and the worker alike:
 * workers of concurrently running test files share the run's queue and outbox, so they must agree.
 */
export const DELIVERY_TEST_ENV: Record<string, string> = {
  WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '50ms,50ms',
  WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '3',
  WEBHOOK_AUTO_DISABLE_AFTER: '1ms',
  WEBHOOK_TIMEOUT: '2s',
  OUTBOX_POLL_INTERVAL: '20ms',
  WORKER_SHUTDOWN_TIMEOUT: '5s',
  // a lost queue job or a dead worker's claim is found within half a second (tests wait for outcomes)
  WEBHOOK_SWEEP_INTERVAL: '500ms',
};

export interface TestWorker {
  context: INestApplicationContext;
  config: AppConfig;
  prisma: PrismaService;
  /** drains like SIGTERM does, then closes the context */
  stop: () => Promise<void>;
}

/** Boots the real worker (WorkerModule: relay + processor) in-process with an overridden AppConfig. */
export async function startTestWorker(env: Record<string, string> = DELIVERY_TEST_ENV): Promise<TestWorker> {
  const config = loadConfig({ ...process.env, ...env }).config;
  const context = await Test.createTestingModule({ imports: [WorkerModule] })
    .overrideProvider(AppConfig)
    .useValue(config)
    .compile();
  context.useLogger(false);
  await context.init();
  let stopped: Promise<void> | undefined;
  return {
    context,
    config,
    prisma: context.get(PrismaService),
    stop: () =>
      (stopped ??= (async () => {
        await context.get(WorkerRuntime).stop();
        await context.close();
      })()),
  };
}

/** A webhook endpoint with a known plaintext secret, written as the create route writes it. */
export async function createEndpoint(
  { prisma, config }: { prisma: PrismaService; config: AppConfig },
  communityId: string,
  options: { url: string; events: string[]; isActive?: boolean; disabledAt?: Date },
): Promise<{ id: string; secret: string }> {
  const secrets = new WebhookSecretsService(
    prisma,
    new WebhookSecretsStore(prisma),
    new WebhookEndpointsStore(prisma),
    config,
    new EndpointTransportStore(prisma),
  );
  return prisma.$transaction(async (tx) => {
    const endpoint = await tx.webhookEndpoint.create({
      data: {
        communityId,
        url: options.url,
        events: options.events,
        isActive: options.isActive ?? true,
        disabledAt: options.disabledAt,
      },
    });
    return { id: endpoint.id, secret: await secrets.create(tx, communityId, endpoint.id) };
  });
}

/**
 * Polls `probe` until it returns something truthy, or fails after `timeoutMs` naming `what`:
 * the way to wait for an asynchronous outcome without sleeping for a guessed time.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  intervalMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The worker's outbox retention, on the app's pool and configuration, for a test to run a prune itself. */
export function outboxRetentionOf({ prisma, config }: { prisma: PrismaService; config: AppConfig }) {
  return new OutboxRetention(new WorkerOutboxStore(prisma), config, new AttemptStatsStore(prisma));
}
