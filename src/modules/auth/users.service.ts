import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../prisma/prisma.service';
import { PasswordService } from './password.service';
import { SessionRevocationsService } from './session-revocations.service';
import { normaliseEmail } from '../../common/validation/email';

export interface NewUser {
  email: string;
  password?: string;
  name?: string;
  isPlatformAdmin?: boolean;
}

@Injectable()
export class UsersService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly passwords: PasswordService,
    private readonly revocations: SessionRevocationsService,
  ) {}

  /** The account with this e-mail (compared as stored: trimmed, lower-case), or null. */
  findByEmail(email: string): Promise<{ id: string; email: string } | null> {
    return this.prisma.user.findUnique({
      where: { email: normaliseEmail(email) },
      select: { id: true, email: true },
    });
  }

  /**
   * Gives the user a new password. Whoever knew the old one may hold a session, so every session of
   * the user ends with it (logins and webhook-portal sessions).
   */
  async setPassword(userId: string, password: string): Promise<void> {
    const passwordHash = await this.passwords.hash(password);
    await this.prisma.user.update({ where: { id: userId }, data: { passwordHash } });
    await this.revocations.revokeAllOf(userId);
  }

  /** E-mails are stored lower-cased, which makes them unique case-insensitively (409 on a clash). */
  async create(input: NewUser) {
    return this.prisma.user.create({
      data: {
        email: normaliseEmail(input.email),
        name: input.name ?? '',
        passwordHash: input.password ? await this.passwords.hash(input.password) : null,
        isPlatformAdmin: input.isPlatformAdmin ?? false,
      },
      select: { id: true, email: true, name: true, isPlatformAdmin: true, createdAt: true },
    });
  }
}
