import { Module } from '@nestjs/common';
import { DeliveriesStore } from '../worker/delivery-attempts.store';
import { defaultResolveAll } from './delivery/delivery-agent';
import { DeliveryLogService } from '../delivery-log.service';
import { WEBHOOK_DNS_LOOKUP, WebhookSender } from './delivery/webhook-sender.service';
import { WebhookSecretsService } from './secrets/webhook-secrets.service';
import { WebhookEndpointsStore } from './webhook-endpoints.store';

/**
 * The delivery pieces shared by the API (test route, secret management) and the worker: the two
 * table stores, secrets, the signed sender and the delivery log. PrismaService and AppConfig come
 * from global modules.
 */
@Module({
  providers: [
    WebhookEndpointsStore,
    DeliveriesStore,
    WebhookSecretsService,
    WebhookSender,
    DeliveryLogService,
    { provide: WEBHOOK_DNS_LOOKUP, useValue: defaultResolveAll },
  ],
  exports: [
    WebhookEndpointsStore,
    DeliveriesStore,
    WebhookSecretsService,
    WebhookSender,
    DeliveryLogService,
    WEBHOOK_DNS_LOOKUP,
  ],
})
export class WebhooksCoreModule {}
