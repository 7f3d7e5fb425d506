import { Module } from '@nestjs/common';
import { WebhooksCoreModule } from '../modules/webhooks/webhooks-core.module';
import { DeliveryQueue } from './delivery-queue.service';
import { DeliveryWorker } from './delivery-worker.service';
import { DeliveryProcessor } from './delivery.processor';
import { EndpointHealth } from './endpoint-health.service';
import { OutboxRelay } from './outbox-relay.service';
import { OutboxRetention } from './outbox-retention.service';
import { WorkerRuntime } from './worker-runtime.service';

/** The outbox relay and the delivery job processor. Imported by WorkerModule only, never by the API. */
@Module({
  imports: [WebhooksCoreModule],
  providers: [
    DeliveryQueue,
    OutboxRelay,
    OutboxRetention,
    EndpointHealth,
    DeliveryProcessor,
    DeliveryWorker,
    WorkerRuntime,
  ],
  exports: [WorkerRuntime],
})
export class DeliveryWorkerModule {}
