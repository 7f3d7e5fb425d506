import { randomBytes } from 'node:crypto';
import { encryptionKeyId, SecretCipher, UnknownEncryptionKeyError } from './secret-cipher';

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
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new SecretCipher(randomBytes(16))).toThrow(/32 bytes/);
  });
});
