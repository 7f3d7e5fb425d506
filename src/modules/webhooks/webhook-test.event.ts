import { defineEvent } from '../events/define-event';
import { uuid } from '../events/payload-schema';

/** Sent only by the test route (webhook-test.service.ts), never recorded in the outbox nor subscribable. */
export const WEBHOOK_TEST_EVENT = defineEvent({
  type: 'webhook.test',
  description: 'Synthetic event sent by the test route',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['endpointId', 'message'],
    properties: { endpointId: uuid, message: { type: 'string' } },
  },
  example: {
    endpointId: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b',
    message: 'Test delivery from the community platform',
  },
  // the endpoint under test, as the operational events name the endpoint they are about
  subject: ['endpointId'],
});
