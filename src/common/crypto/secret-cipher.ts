import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** What is stored of an encrypted secret; `keyId` names the encryption key that sealed it. */
export interface SealedSecret {
  keyId: string;
  iv: Uint8Array<ArrayBuffer>;
  ciphertext: Uint8Array<ArrayBuffer>;
  authTag: Uint8Array<ArrayBuffer>;
}

/** A sealed secret as read back from the database. */
export interface StoredSecret {
  keyId: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  authTag: Uint8Array;
}

export class UnknownEncryptionKeyError extends Error {
  constructor(keyId: string, ringKeyIds: string[]) {
    super(
      `a secret was encrypted under key '${keyId}', which is not in WEBHOOK_SECRET_ENCRYPTION_KEY ` +
        `(keys ${ringKeyIds.map((id) => `'${id}'`).join(', ')}): add that key back to the ring, after the newest`,
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
 * AES-256-GCM for secrets at rest (webhook signing secrets, endpoints' custom headers, the answers kept
 * under Idempotency-Keys: docs/security.md#secrets-at-rest): a database dump alone reveals none. The
 * authentication tag makes a tampered row fail to decrypt instead of yielding a wrong secret.
 */
export class SecretCipher {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('an encryption key must be 32 bytes');
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

  decrypt(sealed: StoredSecret): string {
    if (sealed.keyId !== this.keyId) throw new UnknownEncryptionKeyError(sealed.keyId, [this.keyId]);
    const decipher = createDecipheriv(ALGORITHM, this.key, sealed.iv);
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  }
}

/**
 * WEBHOOK_SECRET_ENCRYPTION_KEY as a key ring, newest first: the newest key seals every new secret,
 * and a stored secret is opened by the key its `keyId` names. Rows written before the ring existed
 * carry the same `keyId` (`k1:` + SHA-256 prefix of their key), so they open unchanged.
 */
export class SecretKeyRing {
  private readonly ciphers: Map<string, SecretCipher>;
  private readonly newest: SecretCipher;

  constructor(keys: Buffer[]) {
    if (keys.length === 0) throw new Error('the encryption key ring is empty');
    const ciphers = keys.map((key) => new SecretCipher(key));
    this.ciphers = new Map(ciphers.map((cipher) => [cipher.keyId, cipher]));
    // a 32-bit id clash between two keys is unlikely, but it would make rows ambiguous: refuse it
    if (this.ciphers.size !== ciphers.length)
      throw new Error('two keys of WEBHOOK_SECRET_ENCRYPTION_KEY share a key id: replace one of them');
    this.newest = ciphers[0];
  }

  /** The id of the key that encrypts: a row under any other id is due for re-encryption. */
  get currentKeyId(): string {
    return this.newest.keyId;
  }

  /** Every key id of the ring, newest first. */
  get keyIds(): string[] {
    return [...this.ciphers.keys()];
  }

  encrypt(plaintext: string): SealedSecret {
    return this.newest.encrypt(plaintext);
  }

  decrypt(sealed: StoredSecret): string {
    const cipher = this.ciphers.get(sealed.keyId);
    if (!cipher) throw new UnknownEncryptionKeyError(sealed.keyId, this.keyIds);
    return cipher.decrypt(sealed);
  }
}

/**
 * Where one kind of stored secret stands against the ring (secrets:reencrypt): how many values each
 * key sealed, and whether that key encrypts (current), only decrypts (older) or is not in the ring.
 */
export interface SecretsUnderKey {
  keyId: string;
  count: number;
  /** current: the newest key, which encrypts; older: in the ring, decrypts; unknown: not in the ring */
  standing: 'current' | 'older' | 'unknown';
}

/** What one re-encryption batch did: values moved to the newest key, values that would not decrypt. */
export interface ReencryptedBatch {
  moved: number;
  failed: { id: string; reason: string }[];
}

/** `counts` (values per key id) against the ring: the current key first, then the ring's order, then unknown keys. */
export function standingOf(ring: SecretKeyRing, counts: ReadonlyMap<string, number>): SecretsUnderKey[] {
  const keyIds = ring.keyIds;
  const inRing = keyIds.map((keyId, index) => ({
    keyId,
    count: counts.get(keyId) ?? 0,
    standing: index === 0 ? ('current' as const) : ('older' as const),
  }));
  const unknown = [...counts.keys()]
    .filter((keyId) => !keyIds.includes(keyId))
    .sort()
    .map((keyId) => ({ keyId, count: counts.get(keyId)!, standing: 'unknown' as const }));
  return [...inRing, ...unknown];
}
