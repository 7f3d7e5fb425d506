import { defineEvent } from '../../events/define-event';
import { uuid } from '../../events/payload-schema';

/** How long before a client certificate's notAfter webhook.endpoint.certificate_expiring is raised. */
export const CERTIFICATE_WARNING_DAYS = 14;

const ENDPOINT_ID = '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b';
const URL_EXAMPLE = 'https://hooks.example.com/community';
const endpointId = {
  ...uuid,
  description: 'the endpoint this event is about (it never receives this event)',
};
const url = {
  type: 'string',
  pattern: '^[^?#]*$',
  description:
    "the endpoint's target URL without user name, password, query or fragment (scheme, host, port and path): " +
    'every subscribed endpoint receives it, and those parts often carry a token of the receiver',
} as const;
const consecutiveFailures = {
  type: 'integer',
  minimum: 1,
  description: 'failed attempts in a row at that moment',
} as const;

/**
 * The platform's own events about an endpoint's health (docs/product-decisions.md#5-webhooks,
 * "Operational events"), raised by the worker through the outbox. Any endpoint of the community may
 * subscribe to them; the relay never sends one to the endpoint it is about.
 */
export const WEBHOOK_OPERATIONAL_EVENTS = [
  defineEvent({
    type: 'webhook.endpoint.failing',
    description:
      'An endpoint has failed half of WEBHOOK_AUTO_DISABLE_MIN_FAILURES (rounded up) attempts in a row: a warning before auto-disable, once per failing streak',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['endpointId', 'url', 'consecutiveFailures'],
      properties: { endpointId, url, consecutiveFailures },
    },
    example: { endpointId: ENDPOINT_ID, url: URL_EXAMPLE, consecutiveFailures: 5 },
    subject: ['endpointId'],
  }),
  defineEvent({
    type: 'webhook.endpoint.disabled',
    description:
      'The platform disabled an endpoint: its failure streak reached auto-disable, or it answered 410 Gone',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['endpointId', 'url', 'reason', 'consecutiveFailures'],
      properties: {
        endpointId,
        url,
        reason: {
          type: 'string',
          enum: ['failing', 'gone'],
          description: 'failing: the failure streak reached auto-disable; gone: the target answered 410 Gone',
        },
        consecutiveFailures,
      },
    },
    example: { endpointId: ENDPOINT_ID, url: URL_EXAMPLE, reason: 'failing', consecutiveFailures: 10 },
    subject: ['endpointId'],
  }),
  defineEvent({
    type: 'webhook.endpoint.recovered',
    description:
      'The first successful attempt of an endpoint after webhook.endpoint.failing was raised for it',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['endpointId', 'url'],
      properties: { endpointId, url },
    },
    example: { endpointId: ENDPOINT_ID, url: URL_EXAMPLE },
    subject: ['endpointId'],
  }),
  defineEvent({
    type: 'webhook.message.exhausted',
    description:
      'The last scheduled attempt of a message to an endpoint failed: no retry is left (not raised for these operational events themselves)',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['endpointId', 'url', 'messageId', 'eventType', 'attempts'],
      properties: {
        endpointId,
        url,
        messageId: { type: 'string', description: 'the webhook-id of the message that was not delivered' },
        eventType: { type: 'string' },
        attempts: { type: 'integer', minimum: 1, description: 'attempts made, the last one included' },
      },
    },
    example: {
      endpointId: ENDPOINT_ID,
      url: URL_EXAMPLE,
      messageId: 'msg_01JD5Z4M8Q2V3X9K7T6R5P4N3B',
      eventType: 'tweet.created',
      attempts: 8,
    },
    subject: ['endpointId'],
  }),
  defineEvent({
    type: 'webhook.endpoint.certificate_expiring',
    description: `An endpoint's client certificate (mutual TLS) expires within ${CERTIFICATE_WARNING_DAYS} days: raised once per certificate, so that it can be replaced before deliveries fail`,
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['endpointId', 'url', 'subject', 'fingerprintSha256', 'notAfter'],
      properties: {
        endpointId,
        url,
        subject: {
          type: 'string',
          description: "the certificate's subject, e.g. CN=platform-client, O=Example",
        },
        fingerprintSha256: {
          type: 'string',
          description: "the certificate's SHA-256 fingerprint (colon-separated hex pairs)",
        },
        notAfter: { type: 'string', format: 'date-time', description: 'when the certificate expires' },
      },
    },
    example: {
      endpointId: ENDPOINT_ID,
      url: URL_EXAMPLE,
      subject: 'CN=platform-client, O=Example',
      fingerprintSha256:
        '3A:5F:0C:9E:41:7B:D2:88:16:C4:2E:9A:B0:73:5D:E1:0F:66:A9:3C:71:B8:24:E5:9D:0A:C7:52:13:8E:F4:6B',
      notAfter: '2026-12-19T12:00:00.000Z',
    },
    subject: ['endpointId'],
  }),
] as const;

/**
 * The endpoint's URL as the operational events show it: without user name, password, query or fragment
 * (`https://user:pw@h.example/p?token=x#f` → `https://h.example/p`). The events go to the community's
 * other endpoints, and a receiver's token in its URL must not travel with them.
 */
export function urlForOperationalEvents(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // not a URL (the create and PATCH rules make this impossible): cut whatever could be a credential
    return raw.replace(/[?#].*$/s, '').replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/]*@/i, '$1');
  }
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return url.toString();
}

/** The operational events' names: the relay keeps each from its subject, exhaustion is not raised for them. */
export const OPERATIONAL_EVENT_TYPES: readonly string[] = WEBHOOK_OPERATIONAL_EVENTS.map((e) => e.type);
