import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../prisma/prisma.service';
import { PasswordService } from './password.service';
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
  ) {}

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
