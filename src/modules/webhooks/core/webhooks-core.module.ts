import { Module } from '@nestjs/common';
import { AttemptStatsStore } from './attempt-stats.store';
import { defaultResolveAll } from './delivery/delivery-agent';
import { MessageContentStore } from './expunge/message-content.store';
import { MessageExpungeService } from './expunge/message-expunge.service';
import { WEBHOOK_DNS_LOOKUP, WebhookSender } from './delivery/webhook-sender.service';
import { EndpointTransportStore } from './http-transport/endpoint-transport.store';
import { HttpTransport } from './http-transport/http-transport.service';
import { BrokerTransports } from './broker-transport/broker-transports.service';
import { WebhookSecretsService } from './secrets/webhook-secrets.service';
import { WebhookSecretsStore } from './secrets/webhook-secrets.store';
import { WebhookEndpointsStore } from './webhook-endpoints.store';

/**
 * The webhook pieces the API, the worker and the CLI share: the endpoints' store, their hourly
 * figures' store (the API reads them, the worker prunes them), the signing secrets, the signed sender
 * (the API's test route sends too) and its HTTP transport (proxy, client certificates, OAuth tokens) and the expunge of messages' content (the API's route and the
 * CLI's command). The stores of the delivery log
 * belong to each process (the API's beside its services, the worker's in worker/). PrismaService
 * and AppConfig come from global modules.
 */
@Module({
  providers: [
    AttemptStatsStore,
    WebhookEndpointsStore,
    WebhookSecretsService,
    WebhookSecretsStore,
    WebhookSender,
    HttpTransport,
    BrokerTransports,
    EndpointTransportStore,
    MessageContentStore,
    MessageExpungeService,
    { provide: WEBHOOK_DNS_LOOKUP, useValue: defaultResolveAll },
  ],
  exports: [
    AttemptStatsStore,
    WebhookEndpointsStore,
    WebhookSecretsService,
    WebhookSender,
    HttpTransport,
    BrokerTransports,
    EndpointTransportStore,
    MessageExpungeService,
    WEBHOOK_DNS_LOOKUP,
  ],
})
export class WebhooksCoreModule {}
