import { Module } from '@nestjs/common';
import { RateLimitModule } from '../../common/guards/rate-limit.module';
import { EventTypesController } from './event-types.controller';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookTestService } from './webhook-test.service';
import { WebhooksController } from './webhooks.controller';
import { WebhooksCoreModule } from './webhooks-core.module';

/** The webhook management API; delivery itself is the worker's (it imports WebhooksCoreModule too). */
@Module({
  imports: [WebhooksCoreModule, RateLimitModule],
  controllers: [WebhooksController, EventTypesController],
  providers: [WebhookEndpointsService, WebhookTestService],
  exports: [WebhookEndpointsService],
})
export class WebhooksModule {}
