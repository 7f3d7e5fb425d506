import { Injectable, Logger, Optional } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { CredentialCheck } from '../../common/http/credential-check';
import type { Actor } from '../../common/http/request-context';
import type { Permission } from '../../common/access/permissions';
import { type MaybePromise, whenBothReady, whenReady } from '../../common/async/when-ready';
import { InvalidatingCache, InvalidationBus } from '../../redis/invalidation-bus';
import { parseApiKey, secretMatches } from './api-key-format';
import { type ApiKeyCredentialRow, ApiKeysStore } from './api-keys.store';
import { SessionRevocationsService } from './session-revocations.service';
import { type PortalClaims, TokenService } from './token.service';
import { UsersStore } from './users.store';
import { INVALID_TOKEN_MESSAGE } from '../../common/errors/app-error';

export type CredentialResult =
  { status: 'none' } | { status: 'invalid'; message: string } | { status: 'ok'; actor: Actor };

interface UserRow {
  id: string;
  email: string;
  isPlatformAdmin: boolean;
}

/** Last-used times are written at most this often per key, to keep key auth read-only on hot paths. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The bus kind under which an API key's change (revocation) is announced; the id is its key id. */
export const API_KEY_INVALIDATION = 'api-key';
/** The bus kind under which a user account's change is announced; the id is the user id. */
export const USER_INVALIDATION = 'user';
/**
 * Re-read after this long even without an announcement: the bound on a change made where no bus
 * runs (the CLI) or on a lost publish.
 */
const IDENTITY_MAX_AGE_MS = 60_000;

/**
 * Turns the request's credentials (Authorization: Bearer, or X-Api-Key) into an Actor. It does not
 * decide whether the route accepts that kind of credential: AuthGuard does.
 */
@Injectable()
export class CredentialsService implements CredentialCheck {
  private readonly logger = new Logger(CredentialsService.name);

  /**
   * Who a key or a token's user is, in memory: no database round trip per request while warm. Each
   * instance drops an entry when any instance announces a change on the invalidation bus (a key
   * revoked reaches every instance within the bus's delivery time), and trusts the cache only while
   * its subscription is live (see InvalidationBus). Unknown keys are not kept.
   */
  private readonly apiKeys?: InvalidatingCache<ApiKeyCredentialRow | undefined>;
  private readonly userCache?: InvalidatingCache<UserRow | null>;

  constructor(
    private readonly tokens: TokenService,
    private readonly apiKeyRows: ApiKeysStore,
    private readonly userRows: UsersStore,
    private readonly revocations: SessionRevocationsService,
    @Optional() bus?: InvalidationBus,
  ) {
    this.apiKeys = bus?.cache(API_KEY_INVALIDATION, { maxEntries: 50_000, maxAgeMs: IDENTITY_MAX_AGE_MS });
    this.userCache = bus?.cache(USER_INVALIDATION, { maxEntries: 50_000, maxAgeMs: IDENTITY_MAX_AGE_MS });
  }

  /** Answered without a promise when the key or the token's user and session are in memory. */
  authenticate(request: FastifyRequest): MaybePromise<CredentialResult> {
    const authorization = request.headers.authorization;
    const apiKeyHeader = request.headers['x-api-key'];
    if (typeof authorization === 'string' && authorization.length > 0) {
      return this.fromBearer(authorization);
    }
    if (typeof apiKeyHeader === 'string' && apiKeyHeader.length > 0) {
      return this.fromApiKey(apiKeyHeader);
    }
    return { status: 'none' };
  }

  async hasValidCredentials(request: FastifyRequest): Promise<boolean> {
    return (await this.authenticate(request)).status === 'ok';
  }

  private fromBearer(header: string): MaybePromise<CredentialResult> {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match)
      return { status: 'invalid', message: 'Malformed Authorization header: expected Bearer <token>' };
    const claims = this.tokens.verifyAccessToken(match[1]);
    if (!claims) {
      const portal = this.tokens.verifyPortalToken(match[1]);
      if (portal) return this.fromPortalSession(portal);
      return { status: 'invalid', message: INVALID_TOKEN_MESSAGE };
    }
    // Served from memory while the cache is warm: a logout or re-use anywhere reaches it through the bus.
    return this.sessionCredential(this.revocations.isRevoked(claims.sid), claims.userId, (user) => ({
      kind: 'user',
      userId: user.id,
      email: user.email,
      isPlatformAdmin: user.isPlatformAdmin,
      defaultCommunityId: claims.tenantId,
      sessionId: claims.sid,
    }));
  }

  /**
   * A webhook-portal session: the link creator, confined to one community (AuthGuard enforces it),
   * while its session row is not revoked (asked like a login's family, from memory while warm).
   */
  private fromPortalSession(claims: PortalClaims): MaybePromise<CredentialResult> {
    const revoked = this.revocations.isPortalSessionRevoked(claims.sid);
    return this.sessionCredential(revoked, claims.userId, (user) => ({
      kind: 'user',
      userId: user.id,
      email: user.email,
      // a platform admin's portal link still opens one community's webhooks, as a member would
      isPlatformAdmin: false,
      defaultCommunityId: claims.communityId,
      sessionId: claims.sid,
      portalCommunityId: claims.communityId,
    }));
  }

  /**
   * A token's answer once its session's revocation and its user are known (both looked up side by
   * side): refused when the session is revoked or the user gone, else the actor `actorOf` makes.
   */
  private sessionCredential(
    revoked: MaybePromise<boolean>,
    userId: string,
    actorOf: (user: UserRow) => Actor,
  ): MaybePromise<CredentialResult> {
    return whenBothReady(revoked, this.user(userId), (isRevoked, user): CredentialResult => {
      if (isRevoked) return { status: 'invalid', message: 'This session has been revoked' };
      if (!user) return { status: 'invalid', message: INVALID_TOKEN_MESSAGE };
      return { status: 'ok', actor: actorOf(user) };
    });
  }

  /** A token's user, from memory while warm (a user never found is not kept). */
  private user(userId: string): MaybePromise<UserRow | null> {
    const load = () => this.userRows.findIdentity(userId);
    return this.userCache ? this.userCache.get(userId, load, (row) => row !== null) : load();
  }

  /**
   * The key a raw API key names when it works: known, not revoked, its secret matching. The check of
   * every X-Api-Key request; the demo seed asks it whether a stored key still works.
   */
  async liveApiKey(raw: string): Promise<{ id: string; communityId: string } | undefined> {
    const parsed = parseApiKey(raw.trim());
    return parsed ? this.checkedApiKey(parsed) : undefined;
  }

  private fromApiKey(raw: string): MaybePromise<CredentialResult> {
    const parsed = parseApiKey(raw.trim());
    if (!parsed) return { status: 'invalid', message: 'Malformed API key' };
    return whenReady(this.checkedApiKey(parsed), (key): CredentialResult => {
      if (!key) return { status: 'invalid', message: 'Invalid or revoked API key' };
      this.touch(key);
      return {
        status: 'ok',
        actor: {
          kind: 'apiKey',
          userId: key.userId,
          email: key.email,
          isPlatformAdmin: false,
          defaultCommunityId: key.communityId,
          apiKey: { id: key.id, communityId: key.communityId, scopes: key.scopes as Permission[] },
        },
      };
    });
  }

  private checkedApiKey(parsed: {
    keyId: string;
    secret: string;
  }): MaybePromise<ApiKeyCredentialRow | undefined> {
    const load = () => this.apiKeyRows.findForCredential(parsed.keyId);
    const key = this.apiKeys ? this.apiKeys.get(parsed.keyId, load, (row) => row !== undefined) : load();
    return whenReady(key, (row) =>
      row && !row.revokedAt && secretMatches(parsed.secret, row.secretHash) ? row : undefined,
    );
  }

  private touch(key: ApiKeyCredentialRow): void {
    const { id, lastUsedAt } = key;
    const now = Date.now();
    if (lastUsedAt && now - lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
    // the cached row remembers the write, so a warm cache writes once a minute too
    key.lastUsedAt = new Date(now);
    this.apiKeyRows
      .touch(id, new Date(now), LAST_USED_RESOLUTION_MS)
      .catch((err: unknown) => this.logger.warn({ err }, 'could not record API key use'));
  }
}
