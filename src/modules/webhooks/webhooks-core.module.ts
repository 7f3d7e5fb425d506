import { Module } from '@nestjs/common';
import { defaultResolveAll } from './delivery/delivery-agent';
import { DeliveryLogService } from './delivery/delivery-log.service';
import { WEBHOOK_DNS_LOOKUP, WebhookSender } from './delivery/webhook-sender.service';
import { WebhookSecretsService } from './secrets/webhook-secrets.service';

/**
 * The delivery pieces shared by the API (test route, secret management) and the worker: secrets,
 * the signed sender and the delivery log. PrismaService and AppConfig come from global modules.
 */
@Module({
  providers: [
    WebhookSecretsService,
    WebhookSender,
    DeliveryLogService,
    { provide: WEBHOOK_DNS_LOOKUP, useValue: defaultResolveAll },
  ],
  exports: [WebhookSecretsService, WebhookSender, DeliveryLogService, WEBHOOK_DNS_LOOKUP],
})
export class WebhooksCoreModule {}
