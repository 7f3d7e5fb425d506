import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomBytes, randomUUID } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { Errors, INVALID_TOKEN_MESSAGE } from '../../common/errors/app-error';
import { isUuid } from '../../common/validation/uuid';
import { Prisma } from '../../generated/prisma/client';
import { Role } from '../../generated/prisma/enums';
import { MembershipsStore } from '../members/memberships.store';
import { sha256Hex } from './api-key-format';
import { type ClaimedRefreshRow, RefreshTokensStore } from './refresh-tokens.store';
import { SessionRevocationsService } from './session-revocations.service';
import { UsersStore } from './users.store';

/** The Postgres schema that holds tenant rows: every community shares `public` in this layout. */
export const TENANT_SCHEMA = 'public';

/** Claims of an access token (docs/product-decisions.md#2-identities-login-api-keys; sid names the refresh family). */
export interface AccessClaims {
  userId: string;
  email: string;
  role: Role | null;
  tenantId: string | null;
  tenantSchema: string;
  sub: string;
  sid: string;
  typ: 'access';
  jti: string;
  iat: number;
  exp: number;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  user: { id: string; email: string; name: string };
}

const ROLES: readonly unknown[] = Object.values(Role);

/** Verified access tokens kept in memory per instance: about 1 KiB each, the oldest dropped first. */
export const VERIFIED_TOKENS_KEPT = 10_000;

/**
 * A token signed with our key still carries claims someone could have minted with a leaked or test
 * key, or an older version wrote: every claim the API hands to the database must have the shape it
 * expects, or the token is refused (401) instead of reaching PostgreSQL as a malformed uuid (500).
 */
function hasWellFormedClaims(claims: Partial<AccessClaims> | null | undefined): claims is AccessClaims {
  return (
    typeof claims === 'object' &&
    claims !== null &&
    claims.typ === 'access' &&
    isUuid(claims.userId) &&
    isUuid(claims.sid) &&
    (claims.tenantId === null || isUuid(claims.tenantId)) &&
    (claims.role === null || ROLES.includes(claims.role)) &&
    typeof claims.email === 'string'
  );
}

/**
 * Claims of a webhook-portal session (docs/api.md#webhook-portal), opened by a single-use portal link. `typ: 'portal'` keeps it
 * out of every route not marked @AllowPortalSession(), and communityId out of every other community;
 * the user is the link's creator, whose permissions are checked again on each request. `sid` is the
 * session's row (portal_sessions), which logout revokes.
 */
export interface PortalClaims {
  typ: 'portal';
  userId: string;
  communityId: string;
  linkId: string;
  sid: string;
  sub: string;
  iat: number;
  exp: number;
}

function hasWellFormedPortalClaims(claims: Partial<PortalClaims> | null | undefined): claims is PortalClaims {
  return (
    typeof claims === 'object' &&
    claims !== null &&
    claims.typ === 'portal' &&
    isUuid(claims.userId) &&
    isUuid(claims.communityId) &&
    isUuid(claims.linkId) &&
    isUuid(claims.sid)
  );
}

interface TokenUser {
  id: string;
  email: string;
  name: string;
}

/**
 * Issues access tokens (HS256 JWT) and single-use refresh tokens. Refresh tokens are opaque,
 * stored as SHA-256, and grouped in families: re-use of a retired one revokes its family
 * (OAuth 2.1 refresh rotation).
 */
@Injectable()
export class TokenService {
  /** Access tokens that passed verifyAccessToken, by their string, until they expire (bounded). */
  private readonly verified = new Map<string, AccessClaims>();

  constructor(
    private readonly jwt: JwtService,
    private readonly refreshTokens: RefreshTokensStore,
    private readonly users: UsersStore,
    private readonly memberships: MembershipsStore,
    private readonly config: AppConfig,
    private readonly revocations: SessionRevocationsService,
  ) {}

  /** A new session: a new refresh family. */
  issueForLogin(user: TokenUser, communityId: string | null): Promise<TokenPair> {
    return this.issue(user, communityId, randomUUID());
  }

  /**
   * The token's claims when its signature, expiry and claims hold; null otherwise. A token that
   * passed is remembered by its string until it expires (a signature never stops matching): the
   * HMAC and JSON parsing then run once per token instead of once per request. This is only the
   * token's own validity; whether its session was revoked is asked on every request
   * (SessionRevocationsService, dropped on every instance through the invalidation bus).
   */
  verifyAccessToken(token: string): AccessClaims | null {
    const known = this.verified.get(token);
    if (known && known.exp * 1000 > Date.now()) return known;
    if (known) this.verified.delete(token);
    let claims: AccessClaims;
    try {
      claims = this.jwt.verify<AccessClaims>(token, { algorithms: ['HS256'] });
    } catch {
      return null;
    }
    if (!hasWellFormedClaims(claims)) return null;
    if (this.verified.size >= VERIFIED_TOKENS_KEPT) {
      // the oldest first: Map keeps insertion order
      this.verified.delete(this.verified.keys().next().value as string);
    }
    this.verified.set(token, claims);
    return claims;
  }

  /**
   * A portal session for the link's creator in the link's community (no refresh token): a row that
   * logout can revoke, and a token naming it.
   */
  async issuePortalSession(link: { id: string; communityId: string; createdById: string }): Promise<{
    accessToken: string;
    expiresIn: number;
  }> {
    const expiresIn = this.config.portalSessionTtlSeconds;
    const sid = await this.revocations.openPortalSession({
      userId: link.createdById,
      communityId: link.communityId,
      linkId: link.id,
      expiresAt: new Date(Date.now() + expiresIn * 1000),
    });
    const accessToken = this.jwt.sign(
      { typ: 'portal', userId: link.createdById, communityId: link.communityId, linkId: link.id, sid },
      { subject: link.createdById, expiresIn, algorithm: 'HS256' },
    );
    return { accessToken, expiresIn };
  }

  verifyPortalToken(token: string): PortalClaims | null {
    try {
      const claims = this.jwt.verify<PortalClaims>(token, { algorithms: ['HS256'] });
      return hasWellFormedPortalClaims(claims) ? claims : null;
    } catch {
      return null;
    }
  }

  /**
   * POST /auth/refresh: the access token is consumed together with the refresh token minted with it
   * (the row carrying its jti). One conditional UPDATE claims that row, so of two calls with one
   * access token exactly one gets a new pair; a replay of an already consumed pair is re-use, like
   * the re-use of a retired refresh token, and revokes the family. The UPDATE also checks the
   * family (see RefreshTokensStore.claim).
   */
  async refreshFromAccessToken(claims: AccessClaims): Promise<TokenPair> {
    if (!isUuid(claims.jti)) throw Errors.unauthorized(INVALID_TOKEN_MESSAGE);
    const claimed = await this.refreshTokens.claim(Prisma.sql`t.access_jti = ${claims.jti}::uuid
      AND t.family_id = ${claims.sid}::uuid`);
    if (!claimed) {
      const pair = await this.refreshTokens.findByAccessJti(claims.jti);
      if (pair && (pair.revokedAt || (await this.revocations.isRevokedInDatabase(pair.familyId)))) {
        throw Errors.unauthorized('This session has been revoked');
      }
      if (pair?.usedAt) {
        await this.revokeFamily(pair.familyId);
        throw Errors.unauthorized(
          'This access token was already used to refresh; the session has been revoked',
        );
      }
      throw Errors.unauthorized('This access token cannot be refreshed; log in again');
    }
    return this.issueAfterClaim(claimed);
  }

  /** POST /auth/refresh-token: single use; a second use revokes every token of the family. */
  async refreshFromRefreshToken(refreshToken: string): Promise<TokenPair> {
    const tokenHash = sha256Hex(refreshToken);
    const claimed = await this.refreshTokens.claim(Prisma.sql`t.token_hash = ${tokenHash}`);
    if (claimed) return this.issueAfterClaim(claimed);
    const stored = await this.refreshTokens.findByTokenHash(tokenHash);
    if (!stored || stored.revokedAt || stored.expiresAt <= new Date()) {
      throw Errors.unauthorized('Invalid or expired refresh token');
    }
    if (await this.revocations.isRevokedInDatabase(stored.familyId)) {
      throw Errors.unauthorized('This session has been revoked');
    }
    // Unrevoked, unexpired and not claimable: it was used already, so one of two holders is not the user.
    await this.revokeFamily(stored.familyId);
    throw Errors.unauthorized('Refresh token was already used; the session has been revoked');
  }

  private async issueAfterClaim(claimed: ClaimedRefreshRow): Promise<TokenPair> {
    const user = await this.users.findForLogin({ id: claimed.userId });
    if (!user) throw Errors.unauthorized(INVALID_TOKEN_MESSAGE);
    return this.issue(user, claimed.communityId, claimed.familyId);
  }

  /** Revokes the whole session (logout, re-use detection): its access tokens fail on every instance. */
  revokeFamily(familyId: string): Promise<boolean> {
    return this.revocations.revoke(familyId);
  }

  private async issue(user: TokenUser, communityId: string | null, familyId: string): Promise<TokenPair> {
    const role = communityId ? await this.memberships.findRole(communityId, user.id) : null;
    const refreshToken = randomBytes(32).toString('base64url');
    const jti = randomUUID();
    await this.refreshTokens.create({
      familyId,
      accessJti: jti,
      userId: user.id,
      communityId,
      tokenHash: sha256Hex(refreshToken),
      expiresAt: new Date(Date.now() + this.config.refreshTokenTtlMs),
    });
    const expiresIn = this.config.jwtExpiresInSeconds;
    const accessToken = this.jwt.sign(
      {
        userId: user.id,
        email: user.email,
        role,
        tenantId: communityId,
        tenantSchema: TENANT_SCHEMA,
        sid: familyId,
        typ: 'access',
      },
      { subject: user.id, jwtid: jti, expiresIn, algorithm: 'HS256' },
    );
    return {
      accessToken,
      refreshToken,
      tokenType: 'Bearer',
      expiresIn,
      user: { id: user.id, email: user.email, name: user.name },
    };
  }
}
