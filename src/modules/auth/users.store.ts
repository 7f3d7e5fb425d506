import { Injectable, Module } from '@nestjs/common';
import { PrismaService, Tx } from '../../prisma/prisma.service';

const USER_SUMMARY = { id: true, email: true, name: true, isPlatformAdmin: true, createdAt: true } as const;

/** The one owner of `users`' queries. E-mails arrive normalised (trimmed, lower-case). */
@Injectable()
export class UsersStore {
  constructor(private readonly prisma: PrismaService) {}

  /** The whole row (the password hash included), for the login check and token issue only. */
  findForLogin(by: { email: string } | { id: string }) {
    return this.prisma.user.findUnique({ where: by });
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
