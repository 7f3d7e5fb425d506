import { Injectable, Module } from '@nestjs/common';
import type { Role } from '../../generated/prisma/enums';
import { ISO } from '../../prisma/iso-text';
import { PrismaService, Tx } from '../../prisma/prisma.service';
import type { ApiKeyIdentityRow } from './api-keys.store';

/** A user and the communities they belong to, as the identity route shows them. */
export interface UserWithMemberships {
  id: string;
  email: string;
  name: string;
  isPlatformAdmin: boolean;
  memberships: { communityId: string; slug: string; name: string; role: Role }[];
  /** the calling key as the identity route shows it, when it asked for one (null when it is gone) */
  apiKey: ApiKeyIdentityRow | null;
}

const USER_SUMMARY = { id: true, email: true, name: true, isPlatformAdmin: true, createdAt: true } as const;

/** The one owner of `users`' queries. E-mails arrive normalised (trimmed, lower-case). */
@Injectable()
export class UsersStore {
  constructor(private readonly prisma: PrismaService) {}

  /** The whole row (the password hash included), for the login check and token issue only. */
  findForLogin(by: { email: string } | { id: string }) {
    return this.prisma.user.findUnique({ where: by });
  }

  /** Who a token's user is, as every Bearer request needs it. */
  findIdentity(id: string): Promise<{ id: string; email: string; isPlatformAdmin: boolean } | null> {
    return this.prisma.user.findUnique({
      where: { id },
      select: { id: true, email: true, isPlatformAdmin: true },
    });
  }

  /**
   * The user with their memberships (only those of `communityId` when given), oldest joined first,
   * and the API key `apiKeyId` when given, in ONE named prepared statement
   * (PrismaService.preparedQuery): `GET /admin/sdk/me` is called on every SDK start and by health
   * checks, the ORM's nested read cost a round trip per relation, and the key read apart was a second
   * statement on every call made with a key. It reads `memberships`, `communities` and `api_keys`
   * beside `users` (reads only: their owners write them).
   */
  async findWithMemberships(
    userId: string,
    communityId: string | null,
    apiKeyId: string | null = null,
  ): Promise<UserWithMemberships | null> {
    const { rows } = await this.prisma.preparedQuery<UserWithMemberships>(
      'identity',
      `
        SELECT u.id::text AS id, u.email, u.name, u.is_platform_admin AS "isPlatformAdmin",
               coalesce((SELECT json_agg(json_build_object('communityId', m.community_id, 'slug', c.slug,
                                                           'name', c.name, 'role', m.role)
                                         ORDER BY m.joined_at)
                           FROM memberships m JOIN communities c ON c.id = m.community_id
                          WHERE m.user_id = u.id AND ($2::uuid IS NULL OR m.community_id = $2::uuid)),
                        '[]') AS memberships,
               (SELECT json_build_object('id', k.id::text, 'name', k.name, 'communityId', k.community_id::text,
                                         'keyPrefix', 'cpk_' || k.key_id, 'scopes', k.scopes,
                                         'lastUsedAt', ${ISO('k.last_used_at')}, 'revokedAt', ${ISO('k.revoked_at')},
                                         'createdAt', ${ISO('k.created_at')})
                  FROM api_keys k WHERE k.id = $3::uuid) AS "apiKey"
          FROM users u WHERE u.id = $1::uuid`,
      [userId, communityId, apiKeyId],
    );
    return rows[0] ?? null;
  }

  findByEmail(email: string, tx: Tx = this.prisma) {
    return tx.user.findUnique({ where: { email }, select: { id: true, email: true, name: true } });
  }

  create(
    data: { email: string; name: string; passwordHash: string | null; isPlatformAdmin: boolean },
    tx: Tx = this.prisma,
  ) {
    return tx.user.create({ data, select: USER_SUMMARY });
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.prisma.user.update({ where: { id: userId }, data: { passwordHash } });
  }

  /**
   * Creates a password-less account for each e-mail that has none, named with the name given (or
   * ''); an existing account is left exactly as it is (DO NOTHING: not even updated_at).
   */
  async insertMissing(tx: Tx, emails: string[], names: (string | null)[]): Promise<void> {
    await tx.$executeRaw`
      INSERT INTO users (id, email, name, created_at, updated_at)
      SELECT gen_random_uuid(), t.email, coalesce(t.name, ''), now(), now()
        FROM unnest(${emails}::text[], ${names}::text[]) AS t(email, name)
          ON CONFLICT (email) DO NOTHING`;
  }

  /** Deletes the accounts with these e-mails (the demo seed's redo); their memberships go with them. */
  async deleteByEmails(tx: Tx, emails: string[]): Promise<void> {
    await tx.user.deleteMany({ where: { email: { in: emails } } });
  }
}

/** The store alone, for modules that write accounts without the auth routes (no import cycle). */
@Module({ providers: [UsersStore], exports: [UsersStore] })
export class UsersStoreModule {}
