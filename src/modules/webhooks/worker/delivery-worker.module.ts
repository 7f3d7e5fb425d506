import { Module } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { WEBHOOK_DNS_LOOKUP, WebhookSender } from '../delivery/webhook-sender.service';
import type { ResolveAll } from '../delivery/url-safety';
import { WebhookSecretsService } from '../secrets/webhook-secrets.service';
import { WebhooksCoreModule } from '../webhooks-core.module';
import { CachedLiveSecrets } from './cached-live-secrets';
import { DELIVERY_SENDER } from './delivery-sender';
import { DeliveryQueue } from './delivery-queue.service';
import { DeliveryWorker } from './delivery-worker.service';
import { DeliveryProcessor } from './delivery.processor';
import { EndpointHealth } from './endpoint-health.service';
import { OutboxRelay } from './outbox-relay.service';
import { OutboxRetention } from './outbox-retention.service';
import { WorkerMetrics } from './worker-metrics';
import { WorkerRuntime } from './worker-runtime.service';

/** The outbox relay and the delivery job processor. Imported by WorkerModule only, never by the API. */
@Module({
  imports: [WebhooksCoreModule],
  providers: [
    // the shared sender, reading each endpoint's secrets at most once a second (CachedLiveSecrets)
    {
      provide: DELIVERY_SENDER,
      inject: [WebhookSecretsService, AppConfig, WEBHOOK_DNS_LOOKUP],
      useFactory: (secrets: WebhookSecretsService, config: AppConfig, resolve: ResolveAll) =>
        new WebhookSender(new CachedLiveSecrets(secrets), config, resolve),
    },
    DeliveryQueue,
    OutboxRelay,
    OutboxRetention,
    EndpointHealth,
    DeliveryProcessor,
    DeliveryWorker,
    WorkerRuntime,
    WorkerMetrics,
  ],
  exports: [WorkerRuntime],
})
export class DeliveryWorkerModule {}
