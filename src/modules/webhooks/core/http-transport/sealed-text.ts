import type { SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import { type SealedHeaders, toStoredSecret } from '../secrets/endpoint-headers';

/** One secret text sealed by the key ring, stored as JSON with base64 fields (the custom headers' form). */
export type SealedText = SealedHeaders;

export function sealText(ring: SecretKeyRing, text: string): SealedText {
  const sealed = ring.encrypt(text);
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  return {
    keyId: sealed.keyId,
    iv: b64(sealed.iv),
    ciphertext: b64(sealed.ciphertext),
    authTag: b64(sealed.authTag),
  };
}

/** The text in clear; throws when its key left the ring or the value was altered. */
export function openText(ring: SecretKeyRing, sealed: SealedText): string {
  return ring.decrypt(toStoredSecret(sealed));
}
