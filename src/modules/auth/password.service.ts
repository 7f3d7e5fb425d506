import { Injectable } from '@nestjs/common';
import argon2 from 'argon2';

/** argon2id with the library's defaults (OWASP's recommended parameters). */
@Injectable()
export class PasswordService {
  /** A fixed hash verified when the e-mail is unknown, so both failures cost the same time. */
  private readonly dummyHash = argon2.hash('not-a-real-password', { type: argon2.argon2id });

  hash(password: string): Promise<string> {
    return argon2.hash(password, { type: argon2.argon2id });
  }

  async verify(hash: string | null, password: string): Promise<boolean> {
    if (!hash) {
      await argon2.verify(await this.dummyHash, password).catch(() => false);
      return false;
    }
    return argon2.verify(hash, password).catch(() => false);
  }
}
