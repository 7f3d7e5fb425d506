import { defineEvent, EXAMPLE } from '../../src/modules/events/define-event';
import { everyFieldRequired, uuid } from '../../src/modules/events/payload-schema';

/** The test-only module's one event (module-registration.e2e-spec.ts registers it). */
export const REGISTERED_PROBE_EVENTS = [
  defineEvent({
    type: 'registered_probe.created',
    description: 'A registered probe item was created (test-only module)',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['item'],
      properties: {
        item: everyFieldRequired({ id: uuid, communityId: uuid, label: { type: 'string' } }),
      },
    },
    example: { item: { id: EXAMPLE.userId, communityId: EXAMPLE.communityId, label: 'a probe' } },
    subject: ['item', 'id'],
  }),
] as const;
