import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error';
import { buildEventBody } from '../events/event-body';
import { TEST_EVENT } from '../events/event-catalog';
import { currentRequestId } from '../../logging/request-id';
import { WebhookSender } from './core/delivery/webhook-sender.service';
import type { DeliveryView } from './delivery-log.store';
import { RequestedAttemptsStore } from './requested-attempts.store';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/**
 * The test route: one synchronous, really signed and really logged `webhook.test` attempt, whatever
 * the endpoint's events and isActive say. It leaves the endpoint's state (failure streak,
 * auto-disable) alone: a test is a probe, not a delivery.
 */
@Injectable()
export class WebhookTestService {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly sender: WebhookSender,
    private readonly deliveries: RequestedAttemptsStore,
  ) {}

  async sendTest(communityId: string, endpointId: string): Promise<DeliveryView> {
    const endpoint = await this.endpoints.get(communityId, endpointId);
    const customHeaders = await this.endpoints.headersToSend(communityId, endpointId);
    const event = buildEventBody(TEST_EVENT, communityId, {
      endpointId,
      message: 'Test delivery from the community platform',
    });
    const attemptId = await this.deliveries.startTest(
      { communityId, endpointId, messageId: event.id, eventType: TEST_EVENT, attempt: 1 },
      event,
      currentRequestId() ?? null,
    );
    const result = await this.sender.send({
      communityId,
      endpointId,
      url: endpoint.url,
      messageId: event.id,
      eventType: TEST_EVENT,
      body: JSON.stringify(event),
      timestamp: new Date(event.timestamp),
      customHeaders,
    });
    const view = await this.deliveries.finishTest(attemptId, communityId, result, event);
    if (!result.ok) {
      throw new AppError(
        500,
        'WEBHOOK_TEST_FAILED',
        `Test delivery failed: ${result.error ?? 'unknown error'}`,
        {
          data: view,
        },
      );
    }
    return view;
  }
}
