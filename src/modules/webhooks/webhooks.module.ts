import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AppConfig } from '../../config/app-config';
import { DeliveryQueue } from './core/delivery-queue.service';
import { WebhooksCoreModule } from './core/webhooks-core.module';
import { DeliveryLogService } from './delivery-log.service';
import { CommunityMessagesStore } from './community-messages.store';
import { DeliveryLogStore } from './delivery-log.store';
import { EventTypesController } from './event-types.controller';
import { PortalLinksController, PortalSessionsController } from './portal/portal-links.controller';
import { PortalLinksService } from './portal/portal-links.service';
import { PortalLinksStore } from './portal/portal-links.store';
import { RequestedAttemptsStore } from './requested-attempts.store';
import { EndpointTransportFields } from './endpoint-transport-fields';
import { EndpointDestinationFields } from './endpoint-destination-fields';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookFiguresService } from './webhook-figures.service';
import { WebhookResendService } from './webhook-resend.service';
import { WebhookTestService } from './webhook-test.service';
import { WebhooksController } from './webhooks.controller';
import { WebhookReplaysController } from './replays/webhook-replays.controller';
import { WebhookReplaysService } from './replays/webhook-replays.service';
import { WebhookReplaysStore } from './replays/webhook-replays.store';

/**
 * The webhook management API: endpoints, the delivery log, the figures, resend and recover, the test
 * route, the portal. Delivery itself is the worker's (worker/, which the API never imports); both use core/.
 */
@Module({
  imports: [
    WebhooksCoreModule,
    // the portal's sessions are tokens of the auth module
    AuthModule,
  ],
  controllers: [
    WebhooksController,
    WebhookReplaysController,
    EventTypesController,
    PortalLinksController,
    PortalSessionsController,
  ],
  providers: [
    // the producer side only, for resends and recovers: opened on the first of them, so an API that
    // never resends never loads BullMQ (docs/architecture.md#what-each-process-loads)
    {
      provide: DeliveryQueue,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => DeliveryQueue.openedOnFirstUse(config),
    },
    WebhookEndpointsService,
    EndpointTransportFields,
    EndpointDestinationFields,
    WebhookFiguresService,
    WebhookTestService,
    WebhookResendService,
    DeliveryLogService,
    DeliveryLogStore,
    CommunityMessagesStore,
    RequestedAttemptsStore,
    PortalLinksService,
    PortalLinksStore,
    WebhookReplaysService,
    WebhookReplaysStore,
  ],
  exports: [WebhookEndpointsService],
})
export class WebhooksModule {}
