import { randomBytes } from 'node:crypto';
import { encryptionKeyId, SecretCipher, SecretKeyRing, UnknownEncryptionKeyError } from './secret-cipher';

describe('SecretCipher', () => {
  const key = randomBytes(32);
  const cipher = new SecretCipher(key);
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  it('round-trips a secret and never stores the plaintext', () => {
    const sealed = cipher.encrypt(secret);
    expect(cipher.decrypt(sealed)).toBe(secret);
    const stored = Buffer.concat([sealed.iv, sealed.ciphertext, sealed.authTag]);
    expect(stored.includes(Buffer.from(secret))).toBe(false);
    expect(stored.includes(Buffer.from(secret.slice(6), 'base64'))).toBe(false);
  });

  it('uses a fresh IV each time', () => {
    const a = cipher.encrypt(secret);
    const b = cipher.encrypt(secret);
    expect(Buffer.from(a.iv).equals(Buffer.from(b.iv))).toBe(false);
    expect(Buffer.from(a.ciphertext).equals(Buffer.from(b.ciphertext))).toBe(false);
  });

  it('refuses a tampered row instead of returning a wrong secret', () => {
    const sealed = cipher.encrypt(secret);
    sealed.ciphertext[0] ^= 1;
    expect(() => cipher.decrypt(sealed)).toThrow();
  });

  it('names its key, and refuses a row sealed under another key clearly', () => {
    const other = new SecretCipher(randomBytes(32));
    expect(cipher.keyId).toBe(encryptionKeyId(key));
    expect(cipher.keyId).toMatch(/^k1:[0-9a-f]{8}$/);
    expect(other.keyId).not.toBe(cipher.keyId);
    const sealed = other.encrypt(secret);
    expect(() => cipher.decrypt(sealed)).toThrow(UnknownEncryptionKeyError);
    expect(() => cipher.decrypt(sealed)).toThrow(new RegExp(`'${other.keyId}'.*'${cipher.keyId}'`));
    expect(() => cipher.decrypt(sealed)).toThrow(/WEBHOOK_SECRET_ENCRYPTION_KEY/);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new SecretCipher(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('SecretKeyRing', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  it('encrypts under the newest key and decrypts under any key of the ring', () => {
    const ring = new SecretKeyRing([newKey, oldKey]);
    expect(ring.currentKeyId).toBe(encryptionKeyId(newKey));
    expect(ring.keyIds).toEqual([encryptionKeyId(newKey), encryptionKeyId(oldKey)]);
    const sealed = ring.encrypt(secret);
    expect(sealed.keyId).toBe(encryptionKeyId(newKey));
    expect(new SecretCipher(newKey).decrypt(sealed)).toBe(secret);
    expect(ring.decrypt(new SecretCipher(oldKey).encrypt(secret))).toBe(secret);
  });

  it("opens a row written before the ring, by a single key's cipher, once that key is in the ring", () => {
    // today's stored format: key id `k1:` + 8 hex of the key's SHA-256 beside iv, ciphertext, tag
    const legacy = new SecretCipher(oldKey).encrypt(secret);
    expect(legacy.keyId).toMatch(/^k1:[0-9a-f]{8}$/);
    expect(new SecretKeyRing([oldKey]).decrypt(legacy)).toBe(secret);
    expect(new SecretKeyRing([newKey, oldKey]).decrypt(legacy)).toBe(secret);
  });

  it('refuses a row under a key that left the ring, naming the key ids and never a key', () => {
    const sealed = new SecretCipher(oldKey).encrypt(secret);
    const ring = new SecretKeyRing([newKey]);
    expect(() => ring.decrypt(sealed)).toThrow(UnknownEncryptionKeyError);
    let message = '';
    try {
      ring.decrypt(sealed);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`'${encryptionKeyId(oldKey)}'`);
    expect(message).toContain(`'${encryptionKeyId(newKey)}'`);
    expect(message).not.toContain(oldKey.toString('base64'));
    expect(message).not.toContain(newKey.toString('base64'));
  });

  it('refuses a key on the ring twice and an empty ring', () => {
    expect(() => new SecretKeyRing([newKey, Buffer.from(newKey)])).toThrow(/share a key id/);
    expect(() => new SecretKeyRing([])).toThrow(/empty/);
  });
});
