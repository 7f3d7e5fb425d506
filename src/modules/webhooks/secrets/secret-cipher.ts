import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** What is stored beside an encrypted secret; `keyId` names the encryption key that sealed it. */
export interface SealedSecret {
  keyId: string;
  iv: Uint8Array<ArrayBuffer>;
  ciphertext: Uint8Array<ArrayBuffer>;
  authTag: Uint8Array<ArrayBuffer>;
}

export class UnknownEncryptionKeyError extends Error {
  constructor(keyId: string, currentKeyId: string) {
    super(
      `webhook secret was encrypted under key '${keyId}', but WEBHOOK_SECRET_ENCRYPTION_KEY is '${currentKeyId}': ` +
        're-encrypt the secrets or restore the old key',
    );
  }
}

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

/** Public, non-reversible name of a key, so a row sealed under a rotated-away key is recognised. */
export function encryptionKeyId(key: Buffer): string {
  return `k1:${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
}

function bytes(buffer: Buffer): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(buffer);
}

/**
 * AES-256-GCM for webhook signing secrets at rest: a database dump alone reveals none. The
 * authentication tag makes a tampered row fail to decrypt instead of yielding a wrong secret.
 */
export class SecretCipher {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('webhook encryption key must be 32 bytes');
    this.keyId = encryptionKeyId(key);
  }

  encrypt(plaintext: string): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      keyId: this.keyId,
      iv: bytes(iv),
      ciphertext: bytes(ciphertext),
      authTag: bytes(cipher.getAuthTag()),
    };
  }

  decrypt(sealed: { keyId: string; iv: Uint8Array; ciphertext: Uint8Array; authTag: Uint8Array }): string {
    if (sealed.keyId !== this.keyId) throw new UnknownEncryptionKeyError(sealed.keyId, this.keyId);
    const decipher = createDecipheriv(ALGORITHM, this.key, sealed.iv);
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  }
}
