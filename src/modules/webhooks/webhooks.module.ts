import { Module } from '@nestjs/common';
import { EventTypesController } from './event-types.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookResendService } from './webhook-resend.service';
import { WebhookTestService } from './webhook-test.service';
import { DeliveryQueue } from './worker/delivery-queue.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksCoreModule } from './webhooks-core.module';

/** The webhook management API; delivery itself is the worker's (it imports WebhooksCoreModule too). */
@Module({
  imports: [WebhooksCoreModule],
  controllers: [WebhooksController, EventTypesController],
  // DeliveryQueue: the producer only (resend and recover enqueue); the API never consumes jobs
  providers: [WebhookEndpointsService, WebhookTestService, WebhookResendService, DeliveryQueue],
  exports: [WebhookEndpointsService],
})
export class WebhooksModule {}
