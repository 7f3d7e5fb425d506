import { Injectable, Optional } from '@nestjs/common';
import type { MaybePromise } from '../../common/async/when-ready';
import { InvalidatingCache, InvalidationBus } from '../../redis/invalidation-bus';
import { PortalSessionsStore } from './portal-sessions.store';
import { RefreshTokensStore } from './refresh-tokens.store';

/** The bus kind under which a refresh family's revocation is announced. */
export const SESSION_INVALIDATION = 'session';
/** The bus kind under which a webhook-portal session's revocation is announced; the id is its sid. */
export const PORTAL_SESSION_INVALIDATION = 'portal-session';

/**
 * "Is session X revoked?" for every Bearer request, for both kinds of session: a login (its refresh
 * family, refresh_tokens.revoked_at) and a webhook-portal session (portal_sessions.revoked_at).
 * PostgreSQL is the truth; each instance caches the answer in memory and drops it when any instance
 * announces a revocation on the invalidation bus, so a revoked session's tokens are refused
 * everywhere within the bus's delivery time, with no database read per request while the cache is
 * warm. Revocation is permanent, so only a stale "not revoked" could hurt, and the bus rules that
 * out (see InvalidationBus).
 *
 * A family is revoked as soon as any of its rows is: a refresh that raced the revocation may have
 * added a row after it, and that row must be refused too (docs/product-decisions.md#2-identities-login-api-keys).
 *
 * The rows are RefreshTokensStore's and PortalSessionsStore's. The bus is absent in the CLI (no Redis there): then
 * every check reads the database and a revocation is not announced.
 */
@Injectable()
export class SessionRevocationsService {
  private readonly cache?: InvalidatingCache<boolean>;
  private readonly portalCache?: InvalidatingCache<boolean>;

  constructor(
    private readonly refreshTokens: RefreshTokensStore,
    private readonly portalSessions: PortalSessionsStore,
    @Optional() private readonly bus?: InvalidationBus,
  ) {
    // maxAgeMs bounds the harm of a lost publish from an instance cut off from Redis.
    this.cache = bus?.cache<boolean>(SESSION_INVALIDATION, { maxEntries: 50_000, maxAgeMs: 60_000 });
    this.portalCache = bus?.cache<boolean>(PORTAL_SESSION_INVALIDATION, {
      maxEntries: 50_000,
      maxAgeMs: 60_000,
    });
  }

  isRevoked(familyId: string): MaybePromise<boolean> {
    const load = () => this.isRevokedInDatabase(familyId);
    return this.cache ? this.cache.get(familyId, load) : load();
  }

  /** The family's state read now, bypassing the cache (the refresh paths' second look after a refusal). */
  isRevokedInDatabase(familyId: string): Promise<boolean> {
    return this.refreshTokens.isFamilyRevoked(familyId);
  }

  /** Revokes every refresh token of the family and tells every instance. Answers whether any was live. */
  async revoke(familyId: string): Promise<boolean> {
    const count = await this.refreshTokens.revokeFamily(familyId);
    await this.bus?.publish(SESSION_INVALIDATION, familyId);
    return count > 0;
  }

  /** Records the session a portal link opens; its id is the `sid` of the session's token. */
  openPortalSession(session: {
    userId: string;
    communityId: string;
    linkId: string;
    expiresAt: Date;
  }): Promise<string> {
    return this.portalSessions.create(session);
  }

  /** A session with no row (its link was deleted with its community) counts as revoked. */
  isPortalSessionRevoked(sessionId: string): MaybePromise<boolean> {
    const load = async () => (await this.portalSessions.revokedAt(sessionId)) !== null;
    return this.portalCache ? this.portalCache.get(sessionId, load) : load();
  }

  /** Ends one portal session on every instance. Answers whether it was live. */
  async revokePortalSession(sessionId: string): Promise<boolean> {
    const revoked = await this.portalSessions.revoke(sessionId);
    await this.bus?.publish(PORTAL_SESSION_INVALIDATION, sessionId);
    return revoked;
  }

  /**
   * Ends every session of the user: each login's refresh family and each portal session, announced
   * one by one so that every instance drops exactly those. Answers how many sessions were live.
   */
  async revokeAllOf(userId: string): Promise<number> {
    const families = await this.refreshTokens.revokeAllOfUser(userId);
    const portals = await this.portalSessions.revokeAllOfUser(userId);
    for (const familyId of families) await this.bus?.publish(SESSION_INVALIDATION, familyId);
    for (const id of portals) await this.bus?.publish(PORTAL_SESSION_INVALIDATION, id);
    return families.length + portals.length;
  }
}
