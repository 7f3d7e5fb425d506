import type { ReencryptedBatch, SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import type { Tx } from '../../../../prisma/prisma.service';
import type { EndpointTransportStore } from './endpoint-transport.store';
import { openText, type SealedText, sealText } from './sealed-text';

/**
 * Moves up to `limit` endpoints' client keys, OAuth client secrets and broker credentials sealed under `olderKeyIds` to
 * the ring's newest key, in the caller's transaction (secrets:reencrypt, after the signing secrets
 * and the custom headers). `skip`: endpoints that failed earlier in the run.
 */
export async function reencryptTransport(
  tx: Tx,
  ring: SecretKeyRing,
  store: EndpointTransportStore,
  olderKeyIds: string[],
  skip: string[],
  limit: number,
): Promise<ReencryptedBatch> {
  const result: ReencryptedBatch = { moved: 0, failed: [] };
  const moved = (sealed: SealedText): SealedText =>
    olderKeyIds.includes(sealed.keyId) ? sealText(ring, openText(ring, sealed)) : sealed;
  for (const row of await store.lockSealedUnder(tx, olderKeyIds, skip, limit)) {
    try {
      const tls = row.tls && { ...row.tls, key: moved(row.tls.key) };
      const auth = row.auth && { ...row.auth, clientSecret: moved(row.auth.clientSecret) };
      const destination = row.destination?.credentials
        ? { ...row.destination, credentials: moved(row.destination.credentials) }
        : null;
      await store.reseal(tx, row.id, tls, auth, destination);
      result.moved += 1;
    } catch (err) {
      result.failed.push({
        id: row.id,
        reason: `client key, OAuth client secret or broker credentials: ${(err as Error).message}`,
      });
    }
  }
  return result;
}
