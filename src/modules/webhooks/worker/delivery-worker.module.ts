import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { WEBHOOK_DNS_LOOKUP, WebhookSender } from '../delivery/webhook-sender.service';
import type { ResolveAll } from '../delivery/url-safety';
import { WebhookSecretsService } from '../secrets/webhook-secrets.service';
import { WebhooksCoreModule } from '../webhooks-core.module';
import { CachedLiveSecrets } from './cached-live-secrets';
import { DELIVERY_QUEUE } from './delivery-job';
import { DELIVERY_SENDER } from './cached-live-secrets';
import { DeliveryQueue, deliveryQueueOptions } from './delivery-queue.service';
import { DeliverySweep } from './delivery-sweep.service';
import { DeliveryWorker } from './delivery-worker.service';
import { deliveryProcessorProvider } from './delivery.processor';
import { EndpointHealth } from './endpoint-health.service';
import { EndpointSlots } from './endpoint-slots';
import { OutboxRelay } from './outbox-relay.service';
import { OutboxWakeups } from './outbox-wakeups';
import { OutboxRetention } from './outbox-retention.service';
import { WorkerMetrics } from './worker-metrics';
import { WorkerRuntime } from './worker-runtime.service';

/** The outbox relay, the delivery processor and the sweep. Imported by WorkerModule only, never by the API. */
@Module({
  imports: [
    WebhooksCoreModule,
    BullModule.registerQueueAsync({
      name: DELIVERY_QUEUE,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => deliveryQueueOptions(config),
    }),
  ],
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
    OutboxWakeups,
    OutboxRetention,
    EndpointHealth,
    EndpointSlots,
    deliveryProcessorProvider,
    DeliveryWorker,
    DeliverySweep,
    WorkerRuntime,
    WorkerMetrics,
  ],
  exports: [WorkerRuntime],
})
export class DeliveryWorkerModule {}
