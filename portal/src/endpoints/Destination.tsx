import type { Webhook, WebhookBody } from '../api/types';

export type EndpointType = NonNullable<WebhookBody['type']>;

/** Where an endpoint's deliveries go, as the form holds it (docs/api.md#broker-destinations). */
export interface DestinationDraft {
  type: EndpointType;
  exchange: string;
  routingKey: string;
  subject: string;
}

export function destinationOf(webhook: Webhook | null): DestinationDraft {
  return {
    type: webhook?.type ?? 'http',
    exchange: webhook?.exchange ?? '',
    routingKey: webhook?.routingKey ?? '',
    subject: webhook?.subject ?? '',
  };
}

/** The body's fields of the draft's type only: the API refuses a broker name on another type. */
export function destinationBody(
  draft: DestinationDraft,
): Pick<WebhookBody, 'type' | 'exchange' | 'routingKey' | 'subject'> {
  if (draft.type === 'rabbitmq')
    return { type: 'rabbitmq', exchange: draft.exchange, routingKey: draft.routingKey };
  if (draft.type === 'nats') return { type: 'nats', subject: draft.subject };
  return { type: 'http' };
}

/** What the URL box expects for each type. */
export const URL_HINTS: Record<EndpointType, string> = {
  http: 'https://… on port 443',
  rabbitmq: 'amqps://user:password@host:5671/vhost (credentials are stored encrypted and shown masked)',
  nats: 'tls://user:password@host:4222 or tls://token@host:4222 (stored encrypted, shown masked)',
};

/**
 * The form's part for the endpoint's type and its broker's names. The type is chosen once: an endpoint being
 * edited shows it fixed. The rules and their messages are the API's.
 */
export function DestinationFields({
  draft,
  fixed,
  onChange,
  errors,
}: {
  draft: DestinationDraft;
  fixed: boolean;
  onChange: (draft: DestinationDraft) => void;
  errors: Record<string, string | undefined>;
}) {
  const text = (id: string, label: string, key: 'exchange' | 'routingKey' | 'subject') => (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        type="text"
        spellcheck={false}
        autoComplete="off"
        value={draft[key]}
        aria-invalid={!!errors[key]}
        aria-describedby={`${id}-error`}
        onInput={(e) => onChange({ ...draft, [key]: e.currentTarget.value })}
      />
      <p id={`${id}-error`} class="field-error">
        {errors[key]}
      </p>
    </>
  );
  return (
    <>
      <label for="endpoint-type">Destination</label>
      <select
        id="endpoint-type"
        value={draft.type}
        disabled={fixed}
        aria-invalid={!!errors.type}
        aria-describedby="endpoint-type-error"
        onChange={(e) => onChange({ ...draft, type: e.currentTarget.value as EndpointType })}
      >
        <option value="http">HTTP (POST to a URL)</option>
        <option value="rabbitmq">RabbitMQ exchange</option>
        <option value="nats">NATS JetStream subject</option>
      </select>
      <p id="endpoint-type-error" class="field-error">
        {errors.type ?? (fixed ? 'Fixed at creation.' : undefined)}
      </p>
      {draft.type === 'rabbitmq' && (
        <>
          {text('exchange', 'Exchange ("" is the default exchange)', 'exchange')}
          {text('routing-key', 'Routing key', 'routingKey')}
        </>
      )}
      {draft.type === 'nats' && text('subject', 'Subject (a JetStream stream must capture it)', 'subject')}
    </>
  );
}
