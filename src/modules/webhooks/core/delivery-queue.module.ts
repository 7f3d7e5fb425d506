import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { DELIVERY_QUEUE } from './delivery-job';
import { DeliveryQueue, deliveryQueueOptions } from './delivery-queue.service';

/**
 * The producer side of the delivery queue, for both processes: the API adds the jobs of resends and
 * recovers, the worker those of the relay, retries and the sweep. No processor: the worker registers
 * its own. Not part of WebhooksCoreModule, so the CLI opens no Redis connection.
 */
@Module({
  imports: [
    BullModule.registerQueueAsync({
      name: DELIVERY_QUEUE,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => deliveryQueueOptions(config),
    }),
  ],
  providers: [DeliveryQueue],
  exports: [DeliveryQueue],
})
export class DeliveryQueueModule {}
