import { Injectable } from '@nestjs/common';
import type { Prisma } from '../../generated/prisma/client';
import { PrismaService } from '../../prisma/prisma.service';

/** The refresh row a claim took: which session (family), whose, and in which community. */
export interface ClaimedRefreshRow {
  familyId: string;
  userId: string;
  communityId: string | null;
}

/** A refresh row as the refusal paths read it after a failed claim. */
export interface RefreshRowState {
  familyId: string;
  usedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date;
}

/**
 * The one owner of `refresh_tokens`' queries: a login session is a family of single-use rows, one
 * per issued pair, stored by the SHA-256 of the refresh token and the jti of the access token minted
 * with it. TokenService holds the rotation rules, SessionRevocationsService the revocation cache.
 */
@Injectable()
export class RefreshTokensStore {
  constructor(private readonly prisma: PrismaService) {}

  async create(row: {
    familyId: string;
    accessJti: string;
    userId: string;
    communityId: string | null;
    tokenHash: string;
    expiresAt: Date;
  }): Promise<void> {
    await this.prisma.refreshToken.create({ data: row });
  }

  /**
   * Marks the matching row used, in one statement that also checks its family: no row of the
   * family may be revoked. A logout that ran while an earlier refresh of the same family was
   * between its claim and its insert revoked every row but the one inserted after it; this check
   * makes that last row useless as well (docs/product-decisions.md#2-identities-login-api-keys). Of
   * two concurrent claims of one row, exactly one gets it. `match` is a condition on `t`, the row.
   */
  async claim(match: Prisma.Sql): Promise<ClaimedRefreshRow | null> {
    const rows = await this.prisma.$queryRaw<ClaimedRefreshRow[]>`
      UPDATE refresh_tokens t SET used_at = now()
       WHERE ${match}
         AND t.used_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > now()
         AND NOT EXISTS (SELECT 1 FROM refresh_tokens f
                          WHERE f.family_id = t.family_id AND f.revoked_at IS NOT NULL)
   RETURNING t.family_id::text AS "familyId", t.user_id::text AS "userId",
             t.community_id::text AS "communityId"`;
    return rows[0] ?? null;
  }

  /** The row minted with this access token (its jti), or null. */
  findByAccessJti(accessJti: string): Promise<Omit<RefreshRowState, 'expiresAt'> | null> {
    return this.prisma.refreshToken.findUnique({
      where: { accessJti },
      select: { familyId: true, usedAt: true, revokedAt: true },
    });
  }

  /** The row of this refresh token's hash, or null. */
  findByTokenHash(tokenHash: string): Promise<RefreshRowState | null> {
    return this.prisma.refreshToken.findUnique({
      where: { tokenHash },
      select: { familyId: true, usedAt: true, revokedAt: true, expiresAt: true },
    });
  }

  /** Whether any row of the family is revoked (which revokes the whole family). */
  async isFamilyRevoked(familyId: string): Promise<boolean> {
    const row = await this.prisma.refreshToken.findFirst({
      where: { familyId, revokedAt: { not: null } },
      select: { id: true },
    });
    return row !== null;
  }

  /** Revokes the family's live rows; answers how many there were. */
  async revokeFamily(familyId: string): Promise<number> {
    const { count } = await this.prisma.refreshToken.updateMany({
      where: { familyId, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    return count;
  }

  /** Revokes every live row of the user; answers the families that had one. */
  async revokeAllOfUser(userId: string): Promise<string[]> {
    const families = await this.prisma.$queryRaw<{ familyId: string }[]>`
      WITH revoked AS (
        UPDATE refresh_tokens SET revoked_at = now()
         WHERE user_id = ${userId}::uuid AND revoked_at IS NULL
     RETURNING family_id)
      SELECT DISTINCT family_id::text AS "familyId" FROM revoked`;
    return families.map((row) => row.familyId);
  }
}
