import type { LiveSecretsSource } from '../core/delivery/webhook-sender.service';
import type { LiveSecrets, WebhookSecretsService } from '../core/secrets/webhook-secrets.service';

/** How long the worker signs with the secrets it read, unless the claim says they changed. */
export const LIVE_SECRETS_TTL_MS = 1_000;
const MAX_ENDPOINTS = 10_000;

/** Where the cache reads an endpoint's secrets (WebhookSecretsService; a unit spec hands in fixed ones). */
export type LiveSecretsReader = Pick<WebhookSecretsService, 'readLive'>;

interface Entry {
  readAt: number;
  read: Promise<LiveSecrets>;
}

/**
 * The live secrets of an endpoint, read once per second per endpoint instead of once per delivery
 * (a busy endpoint otherwise costs a query and a decryption per attempt, a large share of the
 * worker's CPU).
 *
 * A copy is never used past a change of the secrets: the delivery claim reads the version of the
 * endpoint's secrets (the newest secret's creation time) in the statement that claims the attempt,
 * and the processor calls `atLeast` with it before sending. A copy older than that version is read
 * again, so every attempt claimed after a rotation committed is signed with every secret live at
 * its claim, the new one included, on every worker: no message between processes is involved, so
 * none can arrive late. A copy is also dropped when the first of its secrets expires, so a retired
 * secret stops signing on time.
 */
export class CachedLiveSecrets implements LiveSecretsSource {
  private readonly cache = new Map<string, Entry>();

  constructor(
    private readonly source: LiveSecretsReader,
    private readonly ttlMs = LIVE_SECRETS_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async liveSecrets(communityId: string, endpointId: string): Promise<string[]> {
    return (await this.current(communityId, endpointId)).secrets;
  }

  /**
   * Makes sure the copy of the endpoint's secrets is at least `version` (from the claim): a copy
   * read before the secrets changed is read again, and the next `liveSecrets` answers the new one.
   */
  async atLeast(communityId: string, endpointId: string, version: number | null): Promise<void> {
    const held = await this.current(communityId, endpointId);
    if (version === null || (held.version !== null && held.version >= version)) return;
    // A read started now follows the claim, so it sees at least `version`. It replaces whatever is
    // cached, and only reads started later can replace it (an entry is set when its read starts).
    await this.load(`${communityId}/${endpointId}`, communityId, endpointId);
  }

  private current(communityId: string, endpointId: string): Promise<LiveSecrets> {
    const key = `${communityId}/${endpointId}`;
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.readAt < this.ttlMs) {
      return hit.read.then((read) => {
        if (read.validUntil === null || this.now() < read.validUntil) return read;
        // one of the secrets expired since: read again, unless someone already did
        if (this.cache.get(key) === hit) this.cache.delete(key);
        return this.current(communityId, endpointId);
      });
    }
    return this.load(key, communityId, endpointId);
  }

  private load(key: string, communityId: string, endpointId: string): Promise<LiveSecrets> {
    const read = this.source.readLive(communityId, endpointId);
    const entry = { readAt: this.now(), read };
    // a failed read is not remembered
    read.catch(() => {
      if (this.cache.get(key) === entry) this.cache.delete(key);
    });
    this.cache.delete(key);
    if (this.cache.size >= MAX_ENDPOINTS) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, entry);
    return read;
  }
}

/** DI token of the worker's WebhookSender, the one that signs with CachedLiveSecrets. */
export const DELIVERY_SENDER = Symbol('DELIVERY_SENDER');
