import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error';
import { buildEventBody, type EventBody } from '../events/event-body';
import { EVENT_EXAMPLES, type SubscribableEvent, TEST_EVENT } from '../events/event-catalog';
import { currentRequestScope } from '../../logging/request-id';
import { endAttemptSpan, startAttemptSpan } from './core/delivery/attempt-span';
import { WebhookSender } from './core/delivery/webhook-sender.service';
import type { DeliveryView } from './delivery-view';
import { RequestedAttemptsStore } from './requested-attempts.store';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/**
 * The test route: one synchronous, really signed and really logged probe, whatever the endpoint's
 * events and isActive say: `webhook.test`, or the catalog's example of any subscribable event type
 * (what a receiver will get for it, with example data). It leaves the endpoint's state (failure
 * streak, auto-disable) alone and is marked as a test in the log (`test`): a probe, not a delivery,
 * never retried, resent or recovered.
 */
@Injectable()
export class WebhookTestService {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly sender: WebhookSender,
    private readonly deliveries: RequestedAttemptsStore,
  ) {}

  async sendTest(
    communityId: string,
    endpointId: string,
    example?: SubscribableEvent,
  ): Promise<DeliveryView> {
    const endpoint = await this.endpoints.get(communityId, endpointId);
    const { customHeaders, transport } = await this.endpoints.sealedToSend(communityId, endpointId);
    const event: EventBody = example
      ? buildEventBody(example, communityId, EVENT_EXAMPLES[example] as never)
      : buildEventBody(TEST_EVENT, communityId, {
          endpointId,
          message: 'Test delivery from the community platform',
        });
    const eventType = event.type;
    const key = { communityId, endpointId, messageId: event.id, eventType, attempt: 1 };
    const scope = currentRequestScope();
    const traceparent = scope?.span?.traceparent ?? null;
    const attemptId = await this.deliveries.startTest(key, event, {
      requestId: scope?.id ?? null,
      traceparent,
    });
    // the probe is an attempt span of the request that asked for it, as the worker's are of theirs
    const span = startAttemptSpan(traceparent, key);
    const result = await this.sender.send({
      communityId,
      endpointId,
      url: endpoint.url,
      messageId: event.id,
      eventType,
      body: JSON.stringify(event),
      timestamp: new Date(event.timestamp),
      customHeaders,
      transport,
      traceparent: span?.traceparent,
      // the probe waits as long as the endpoint's deliveries do
      timeoutMs: endpoint.timeoutMs ?? undefined,
    });
    if (span) endAttemptSpan(span, result, null);
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
