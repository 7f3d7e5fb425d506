import { Module } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { EventsModule } from '../../events/events.module';
import { WEBHOOK_DNS_LOOKUP, WebhookSender } from '../core/delivery/webhook-sender.service';
import type { ResolveAll } from '../core/delivery/url-safety';
import { WebhookSecretsService } from '../core/secrets/webhook-secrets.service';
import { WebhooksCoreModule } from '../core/webhooks-core.module';
import { CachedLiveSecrets, DELIVERY_SENDER } from './cached-live-secrets';
import { DeliveryQueueModule } from '../core/delivery-queue.module';
import { DeliveryAttemptsStore } from './delivery-attempts.store';
import { DeliverySweep } from './delivery-sweep.service';
import { DeliverySweepStore } from './delivery-sweep.store';
import { DeliveryWorker } from './delivery-worker.service';
import { deliveryProcessorProvider } from './delivery.processor';
import { EndpointHealth } from './endpoint-health.service';
import { EndpointSlots } from './endpoint-slots';
import { EndpointRateLimits } from './endpoint-rate-limits';
import { LocalDeliveries } from './local-deliveries';
import { OutboxRelay } from './outbox-relay.service';
import { OutboxWakeups } from './outbox-wakeups';
import { OutboxRetention } from './outbox-retention.service';
import { DeliveryLogRetention } from './delivery-log-retention.service';
import { DeliveryLogRetentionStore } from './delivery-log-retention.store';
import { WorkerOutboxStore } from './outbox.store';
import { WorkerMetrics } from './worker-metrics';
import { WorkerRuntime } from './worker-runtime.service';

/** The outbox relay, the delivery processor and the sweep. Imported by WorkerModule only, never by the API. */
@Module({
  // EventsModule: the operational events EndpointHealth raises through the outbox
  imports: [WebhooksCoreModule, DeliveryQueueModule, EventsModule],
  providers: [
    // each endpoint's secrets read at most once a second, and again when a claim finds them changed
    {
      provide: CachedLiveSecrets,
      inject: [WebhookSecretsService],
      useFactory: (secrets: WebhookSecretsService) => new CachedLiveSecrets(secrets),
    },
    // the shared sender, signing with those
    {
      provide: DELIVERY_SENDER,
      inject: [CachedLiveSecrets, AppConfig, WEBHOOK_DNS_LOOKUP],
      useFactory: (secrets: CachedLiveSecrets, config: AppConfig, resolve: ResolveAll) =>
        new WebhookSender(secrets, config, resolve),
    },
    DeliveryAttemptsStore,
    DeliverySweepStore,
    WorkerOutboxStore,
    OutboxRelay,
    OutboxWakeups,
    OutboxRetention,
    DeliveryLogRetention,
    DeliveryLogRetentionStore,
    EndpointHealth,
    EndpointSlots,
    EndpointRateLimits,
    deliveryProcessorProvider,
    LocalDeliveries,
    DeliveryWorker,
    DeliverySweep,
    WorkerRuntime,
    WorkerMetrics,
  ],
  exports: [WorkerRuntime],
})
export class DeliveryWorkerModule {}
