import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { AppConfig } from '../../../config/app-config';
import { EventsModule } from '../../events/events.module';
import { WebhookSender } from '../core/delivery/webhook-sender.service';
import { HttpTransport } from '../core/http-transport/http-transport.service';
import { BrokerTransports } from '../core/broker-transport/broker-transports.service';
import { WebhookSecretsService } from '../core/secrets/webhook-secrets.service';
import { WebhooksCoreModule } from '../core/webhooks-core.module';
import { CachedLiveSecrets, DELIVERY_SENDER } from './cached-live-secrets';
import type { DeliveryJobData } from '../core/delivery-job';
import { DELIVERY_QUEUE } from '../core/delivery-job';
import { DeliveryQueue, deliveryQueueOptions } from '../core/delivery-queue.service';
import { DeliveryAttemptsStore } from './delivery-attempts.store';
import { FifoHeadStore } from './fifo-head.store';
import { DeliverySweep } from './delivery-sweep.service';
import { DeliverySweepStore } from './delivery-sweep.store';
import { DeliveryWorker } from './delivery-worker.service';
import { deliveryProcessorProvider } from './delivery-processor.provider';
import { EndpointFilters } from './endpoint-filters';
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
import { ReplayBatchesStore } from './replay-batches.store';
import { ReplayRunner } from './replay-runner.service';
import { WorkerMetrics } from './worker-metrics';
import { WorkerRuntime } from './worker-runtime.service';
import { CertificateExpiry } from './certificate-expiry.service';

/** The outbox relay, the delivery processor and the sweep. Imported by WorkerModule only, never by the API. */
@Module({
  imports: [
    WebhooksCoreModule,
    // EventsModule: the operational events EndpointHealth raises through the outbox
    EventsModule,
    // the queue whose options @nestjs/bullmq gives the processor's BullMQ worker
    BullModule.registerQueueAsync({
      name: DELIVERY_QUEUE,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => deliveryQueueOptions(config),
    }),
  ],
  providers: [
    // the relay's, the retries' and the sweep's adds go through that same queue
    {
      provide: DeliveryQueue,
      inject: [getQueueToken(DELIVERY_QUEUE)],
      useFactory: (queue: Queue<DeliveryJobData>) => DeliveryQueue.of(queue),
    },
    // each endpoint's secrets read at most once a second, and again when a claim finds them changed
    {
      provide: CachedLiveSecrets,
      inject: [WebhookSecretsService],
      useFactory: (secrets: WebhookSecretsService) => new CachedLiveSecrets(secrets),
    },
    // the shared sender, signing with those
    {
      provide: DELIVERY_SENDER,
      inject: [CachedLiveSecrets, AppConfig, HttpTransport, BrokerTransports],
      useFactory: (
        secrets: CachedLiveSecrets,
        config: AppConfig,
        transport: HttpTransport,
        brokers: BrokerTransports,
      ) => new WebhookSender(secrets, config, transport, brokers),
    },
    DeliveryAttemptsStore,
    FifoHeadStore,
    DeliverySweepStore,
    WorkerOutboxStore,
    OutboxRelay,
    EndpointFilters,
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
    ReplayBatchesStore,
    ReplayRunner,
    CertificateExpiry,
  ],
  exports: [WorkerRuntime],
})
export class DeliveryWorkerModule {}
