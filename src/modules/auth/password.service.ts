import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import argon2 from 'argon2';

/**
 * argon2id with the least memory of OWASP's five configurations of equal strength (7 MiB, 5 passes,
 * 1 lane; its first is 19 MiB, 2 passes): the same CPU per login, while each login in flight holds a
 * 7 MiB block instead of 19 MiB, which counted in the API's peak memory
 * (docs/architecture.md#operations). The library's defaults (64 MiB, 3 passes, 4 lanes) cost several
 * times the CPU per login for little gain on a 2-core host.
 * The parameters live in each hash, so older hashes keep verifying; a login rehashes them (needsRehash).
 */
export const ARGON2_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 7_168,
  timeCost: 5,
  parallelism: 1,
} as const;

/** argon2's digest and salt lengths (the library's defaults), which the dummy hash copies. */
const HASH_BYTES = 32;
const SALT_BYTES = 16;

/**
 * An encoded argon2id hash with ARGON2_OPTIONS' parameters and a random salt and digest, in the PHC
 * string format argon2 writes: verifying a password against it runs the same computation as against a
 * real hash (and never matches). Written out rather than hashed, because hashing at start-up took one
 * argon2 block (memoryCost) that counted in the API's peak memory before any login
 * (docs/architecture.md#operations).
 */
export function unmatchableHash(): string {
  const b64 = (bytes: number) => randomBytes(bytes).toString('base64').replace(/=+$/, '');
  const { memoryCost, timeCost, parallelism } = ARGON2_OPTIONS;
  return `$argon2id$v=19$m=${memoryCost},p=${parallelism},t=${timeCost}$${b64(SALT_BYTES)}$${b64(HASH_BYTES)}`;
}

@Injectable()
export class PasswordService {
  /** Verified when the e-mail is unknown, so both failures cost the same time. */
  private readonly dummyHash = unmatchableHash();

  hash(password: string): Promise<string> {
    return argon2.hash(password, ARGON2_OPTIONS);
  }

  async verify(hash: string | null, password: string): Promise<boolean> {
    if (!hash) {
      await argon2.verify(this.dummyHash, password).catch(() => false);
      return false;
    }
    return argon2.verify(hash, password).catch(() => false);
  }

  /** A hash made with other parameters than ARGON2_OPTIONS (an older setting): the next login replaces it. */
  needsRehash(hash: string): boolean {
    return argon2.needsRehash(hash, ARGON2_OPTIONS);
  }
}
