import { Injectable, Logger } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { CredentialCheck } from '../../common/http/credential-check';
import type { Actor } from '../../common/http/request-context';
import type { Permission } from '../../common/access/permissions';
import { PrismaService } from '../../prisma/prisma.service';
import { parseApiKey, secretMatches } from './api-key-format';
import { SessionRevocationsService } from './session-revocations.service';
import { TokenService } from './token.service';
import { INVALID_TOKEN_MESSAGE } from '../../common/errors/app-error';

export type CredentialResult =
  { status: 'none' } | { status: 'invalid'; message: string } | { status: 'ok'; actor: Actor };

interface ApiKeyRow {
  id: string;
  communityId: string;
  secretHash: string;
  scopes: string[];
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  userId: string;
  email: string;
}

/** Last-used times are written at most this often per key, to keep key auth read-only on hot paths. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Turns the request's credentials (Authorization: Bearer, or X-Api-Key) into an Actor. It does not
 * decide whether the route accepts that kind of credential: AuthGuard does.
 */
@Injectable()
export class CredentialsService implements CredentialCheck {
  private readonly logger = new Logger(CredentialsService.name);

  constructor(
    private readonly tokens: TokenService,
    private readonly prisma: PrismaService,
    private readonly revocations: SessionRevocationsService,
  ) {}

  async authenticate(request: FastifyRequest): Promise<CredentialResult> {
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

  private async fromBearer(header: string): Promise<CredentialResult> {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match)
      return { status: 'invalid', message: 'Malformed Authorization header: expected Bearer <token>' };
    const claims = this.tokens.verifyAccessToken(match[1]);
    if (!claims) {
      return { status: 'invalid', message: INVALID_TOKEN_MESSAGE };
    }
    // Served from memory while the cache is warm: a logout or re-use anywhere reaches it through the bus.
    const [revoked, user] = await Promise.all([
      this.revocations.isRevoked(claims.sid),
      this.prisma.user.findUnique({
        where: { id: claims.userId },
        select: { id: true, email: true, isPlatformAdmin: true },
      }),
    ]);
    if (revoked) return { status: 'invalid', message: 'This session has been revoked' };
    if (!user) return { status: 'invalid', message: INVALID_TOKEN_MESSAGE };
    return {
      status: 'ok',
      actor: {
        kind: 'user',
        userId: user.id,
        email: user.email,
        isPlatformAdmin: user.isPlatformAdmin,
        defaultCommunityId: claims.tenantId,
        sessionId: claims.sid,
      },
    };
  }

  private async fromApiKey(raw: string): Promise<CredentialResult> {
    const parsed = parseApiKey(raw.trim());
    if (!parsed) return { status: 'invalid', message: 'Malformed API key' };
    // One indexed join on the hot path of every key-authenticated request: the key and its creator.
    const [key] = await this.prisma.$queryRaw<ApiKeyRow[]>`
      SELECT k.id, k.community_id AS "communityId", k.secret_hash AS "secretHash", k.scopes,
             k.revoked_at AS "revokedAt", k.last_used_at AS "lastUsedAt", u.id AS "userId", u.email
        FROM api_keys k JOIN users u ON u.id = k.created_by_id
       WHERE k.key_id = ${parsed.keyId}`;
    if (!key || key.revokedAt || !secretMatches(parsed.secret, key.secretHash)) {
      return { status: 'invalid', message: 'Invalid or revoked API key' };
    }
    this.touch(key.id, key.lastUsedAt);
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
  }

  private touch(id: string, lastUsedAt: Date | null): void {
    const now = Date.now();
    if (lastUsedAt && now - lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
    this.prisma.apiKey
      .updateMany({
        where: {
          id,
          OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now - LAST_USED_RESOLUTION_MS) } }],
        },
        data: { lastUsedAt: new Date(now) },
      })
      .catch((err: unknown) => this.logger.warn({ err }, 'could not record API key use'));
  }
}
