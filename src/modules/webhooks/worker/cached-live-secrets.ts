import type { LiveSecretsSource } from '../delivery/webhook-sender.service';

/** How long the worker signs with the secrets it read; see the class comment for why this is safe. */
export const LIVE_SECRETS_TTL_MS = 1_000;
const MAX_ENDPOINTS = 10_000;

/**
 * The live secrets of an endpoint, read once per second per endpoint instead of once per delivery
 * (a busy endpoint otherwise costs a query and a decryption per attempt, a quarter of the worker's
 * CPU). Staleness is bounded by the TTL and harmless: after a rotation the previous secrets stay
 * valid for WEBHOOK_SECRET_OVERLAP, so a delivery signed within the first second without the new
 * secret still verifies with the old one; a retired secret may sign for one more second.
 */
export class CachedLiveSecrets implements LiveSecretsSource {
  private readonly cache = new Map<string, { readAt: number; secrets: Promise<string[]> }>();

  constructor(
    private readonly source: LiveSecretsSource,
    private readonly ttlMs = LIVE_SECRETS_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  liveSecrets(communityId: string, endpointId: string): Promise<string[]> {
    const key = `${communityId}/${endpointId}`;
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.readAt < this.ttlMs) return hit.secrets;
    const secrets = this.source.liveSecrets(communityId, endpointId);
    // a failed read is not remembered
    secrets.catch(() => this.cache.delete(key));
    this.cache.delete(key);
    if (this.cache.size >= MAX_ENDPOINTS) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, { readAt: this.now(), secrets });
    return secrets;
  }
}

/** DI token of the worker's WebhookSender, the one that signs with CachedLiveSecrets. */
export const DELIVERY_SENDER = Symbol('DELIVERY_SENDER');
