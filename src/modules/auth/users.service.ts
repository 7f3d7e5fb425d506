import { Injectable } from '@nestjs/common';
import { PasswordService } from './password.service';
import { SessionRevocationsService } from './session-revocations.service';
import { UsersStore } from './users.store';
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
    private readonly store: UsersStore,
    private readonly passwords: PasswordService,
    private readonly revocations: SessionRevocationsService,
  ) {}

  /** The account with this e-mail (compared as stored: trimmed, lower-case), or null. */
  async findByEmail(email: string): Promise<{ id: string; email: string } | null> {
    const user = await this.store.findByEmail(normaliseEmail(email));
    return user && { id: user.id, email: user.email };
  }

  /**
   * Gives the user a new password. Whoever knew the old one may hold a session, so every session of
   * the user ends with it (logins and webhook-portal sessions).
   */
  async setPassword(userId: string, password: string): Promise<void> {
    const passwordHash = await this.passwords.hash(password);
    await this.store.setPasswordHash(userId, passwordHash);
    await this.revocations.revokeAllOf(userId);
  }

  /** E-mails are stored lower-cased, which makes them unique case-insensitively (409 on a clash). */
  async create(input: NewUser) {
    return this.store.create({
      email: normaliseEmail(input.email),
      name: input.name ?? '',
      passwordHash: input.password ? await this.passwords.hash(input.password) : null,
      isPlatformAdmin: input.isPlatformAdmin ?? false,
    });
  }
}
