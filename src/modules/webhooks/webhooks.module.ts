import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AuthModule } from '../auth/auth.module';
import { EventTypesController } from './event-types.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookResendService } from './webhook-resend.service';
import { WebhookTestService } from './webhook-test.service';
import { DELIVERY_QUEUE } from './core/delivery-job';
import { DeliveryQueue, deliveryQueueOptions } from './core/delivery-queue.service';
import { PortalLinksController, PortalSessionsController } from './portal/portal-links.controller';
import { PortalLinksService } from './portal/portal-links.service';
import { PortalLinksStore } from './portal/portal-links.store';
import { WebhooksController } from './webhooks.controller';
import { WebhooksCoreModule } from './core/webhooks-core.module';

/** The webhook management API; delivery itself is the worker's (it imports WebhooksCoreModule too). */
@Module({
  imports: [
    WebhooksCoreModule,
    // the portal's sessions are tokens of the auth module
    AuthModule,
    // the producer side only (resend and recover enqueue); the API registers no processor
    BullModule.registerQueueAsync({
      name: DELIVERY_QUEUE,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => deliveryQueueOptions(config),
    }),
  ],
  controllers: [WebhooksController, EventTypesController, PortalLinksController, PortalSessionsController],
  providers: [
    WebhookEndpointsService,
    WebhookTestService,
    WebhookResendService,
    DeliveryQueue,
    PortalLinksService,
    PortalLinksStore,
  ],
  exports: [WebhookEndpointsService],
})
export class WebhooksModule {}
