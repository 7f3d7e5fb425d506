import { Injectable, Optional } from '@nestjs/common';
import { PrismaService } from '../../prisma/prisma.service';
import { InvalidatingCache, InvalidationBus } from '../../redis/invalidation-bus';

/** The bus kind under which a refresh family's revocation is announced. */
export const SESSION_INVALIDATION = 'session';

/**
 * "Is login session (refresh family) X revoked?" for every Bearer request. PostgreSQL
 * (refresh_tokens.revoked_at) is the truth; each instance caches the answer in memory and drops it
 * when any instance announces a revocation on the invalidation bus, so a revoked family's access
 * tokens are refused everywhere within the bus's delivery time, with no database read per request
 * while the cache is warm. Revocation is permanent, so only a stale "not revoked" could hurt, and
 * the bus rules that out (see InvalidationBus).
 *
 * The bus is absent in the CLI (no Redis there): then every check reads the database and a
 * revocation is not announced.
 */
@Injectable()
export class SessionRevocationsService {
  private readonly cache?: InvalidatingCache<boolean>;

  constructor(
    private readonly prisma: PrismaService,
    @Optional() private readonly bus?: InvalidationBus,
  ) {
    // maxAgeMs bounds the harm of a lost publish from an instance cut off from Redis.
    this.cache = bus?.cache<boolean>(SESSION_INVALIDATION, { maxEntries: 50_000, maxAgeMs: 60_000 });
  }

  isRevoked(familyId: string): Promise<boolean> {
    const load = () => this.readRevoked(familyId);
    return this.cache ? this.cache.get(familyId, load) : load();
  }

  /** Revokes every refresh token of the family and tells every instance. Answers whether any was live. */
  async revoke(familyId: string): Promise<boolean> {
    const { count } = await this.prisma.refreshToken.updateMany({
      where: { familyId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    await this.bus?.publish(SESSION_INVALIDATION, familyId);
    return count > 0;
  }

  private async readRevoked(familyId: string): Promise<boolean> {
    const row = await this.prisma.refreshToken.findFirst({
      where: { familyId, revokedAt: { not: null } },
      select: { id: true },
    });
    return row !== null;
  }
}
