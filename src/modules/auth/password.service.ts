import { Injectable } from '@nestjs/common';
import argon2 from 'argon2';

/**
 * argon2id with OWASP's first recommended configuration (19 MiB, 2 passes, 1 lane): the library's
 * defaults (64 MiB, 3 passes, 4 lanes) cost several times the CPU per login for little gain on a
 * 2-core host.
 * The parameters live in each hash, so older hashes keep verifying if these change.
 */
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

@Injectable()
export class PasswordService {
  /** A fixed hash verified when the e-mail is unknown, so both failures cost the same time. */
  private readonly dummyHash = argon2.hash('not-a-real-password', ARGON2_OPTIONS);

  hash(password: string): Promise<string> {
    return argon2.hash(password, ARGON2_OPTIONS);
  }

  async verify(hash: string | null, password: string): Promise<boolean> {
    if (!hash) {
      await argon2.verify(await this.dummyHash, password).catch(() => false);
      return false;
    }
    return argon2.verify(hash, password).catch(() => false);
  }
}
