import type { EndpointState } from '../core/webhook-endpoints.store';

/** The endpoint as the claim found it, and the claimed attempt when the endpoint still takes deliveries. */
export interface AttemptClaim {
  endpoint: EndpointState | null;
  deliveryId: string | null;
  requestId: string | null;
  /** the trace context the attempt continues (copied from its event's, like requestId); null when not traced */
  traceparent: string | null;
  /**
   * The version of the endpoint's signing secrets when the attempt was claimed (LiveSecrets in
   * WebhookSecretsService: the newest secret's creation time, epoch ms); null without secrets.
   */
  secretsVersion: number | null;
  /**
   * Nothing was claimed because another attempt of the same message is being sent to the endpoint
   * (a resend while an attempt is in flight): this one goes once that one has finished.
   */
  waitsForAttemptInFlight?: true;
}

/**
 * The claim reads the version of the endpoint's secrets (a read of webhook_secrets, whose writes
 * belong to WebhookSecretsService): the worker re-reads a cached copy older than this before it
 * signs, so an attempt claimed after a rotation committed carries the new secret's signature. The
 * same expression as LiveSecrets.version; an index-only look-up on (community_id, endpoint_id, created_at).
 */
export const SECRETS_VERSION = `(SELECT round(extract(epoch FROM max(s.created_at)) * 1000)::float8
          FROM webhook_secrets s WHERE s.community_id = e.community_id AND s.endpoint_id = e.id)`;
