import { Injectable } from '@nestjs/common';
import { PrismaService, type Tx } from '../../../../prisma/prisma.service';
import type { StoredAuth } from './endpoint-auth';
import type { StoredTls } from './endpoint-tls';
import type { StoredDestination } from '../broker-transport/broker-destination';

/** An endpoint's tls, auth and broker destination as stored, with the version of them (`transport_version`). */
export interface EndpointTransport {
  version: number;
  tls: StoredTls | null;
  auth: StoredAuth | null;
  /** a rabbitmq or nats endpoint's names and sealed credentials; null or absent: http */
  destination?: StoredDestination | null;
}

/** A certificate that reaches its expiry warning, as webhook.endpoint.certificate_expiring tells it. */
export interface ExpiringCertificate {
  id: string;
  community_id: string;
  url: string;
  tls: StoredTls;
}

/**
 * The statements on `webhook_endpoints` about its client certificates and OAuth clients (the `tls`,
 * `auth`, `tls_*` and `transport_version` columns): the sender's read of them, their re-encryption and
 * the certificate-expiry check. The table's owner store writes them with the endpoint's other settings;
 * these are the statements that touch nothing else (src/prisma/table-owners.spec.ts lists this file).
 */
@Injectable()
export class EndpointTransportStore {
  constructor(private readonly prisma: PrismaService) {}

  /** The endpoint's tls, auth and destination with their version; null when the community has no such endpoint. */
  async transportOf(communityId: string, id: string): Promise<EndpointTransport | null> {
    const rows = await this.prisma.$queryRaw<EndpointTransport[]>`
      SELECT transport_version AS version, tls, auth, destination FROM webhook_endpoints
       WHERE community_id = ${communityId}::uuid AND id = ${id}::uuid`;
    return rows[0] ?? null;
  }

  /**
   * Which of these endpoints are active (not paused, not disabled, not deleted): a worker closes its
   * broker connections to the others (BrokerTransports).
   */
  async activeAmong(ids: string[]): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT id::text FROM webhook_endpoints
       WHERE id = ANY(${ids}::uuid[]) AND is_active AND disabled_at IS NULL`;
    return rows.map((row) => row.id);
  }

  /** How many client keys, client secrets and broker credentials each encryption key sealed. */
  async countByKey(): Promise<Map<string, number>> {
    const rows = await this.prisma.$queryRaw<{ key_id: string; count: number }[]>`
      SELECT key_id, count(*)::int AS count FROM (
        SELECT tls->'key'->>'keyId' AS key_id FROM webhook_endpoints WHERE tls IS NOT NULL
        UNION ALL
        SELECT auth->'clientSecret'->>'keyId' FROM webhook_endpoints WHERE auth IS NOT NULL
        UNION ALL
        SELECT destination->'credentials'->>'keyId' FROM webhook_endpoints
         WHERE jsonb_typeof(destination->'credentials') = 'object'
      ) sealed GROUP BY 1`;
    return new Map(rows.map((row) => [row.key_id, row.count]));
  }

  /**
   * Locks up to `limit` endpoints whose client key, client secret or broker credentials are sealed under
   * these keys (not those in `skip`) and reads all three; rows another transaction holds are skipped (SKIP LOCKED).
   */
  lockSealedUnder(
    tx: Tx,
    keyIds: string[],
    skip: string[],
    limit: number,
  ): Promise<
    { id: string; tls: StoredTls | null; auth: StoredAuth | null; destination: StoredDestination | null }[]
  > {
    return tx.$queryRaw`
      SELECT id, tls, auth, destination FROM webhook_endpoints
       WHERE (tls->'key'->>'keyId' = ANY(${keyIds}::text[]) OR auth->'clientSecret'->>'keyId' = ANY(${keyIds}::text[])
              OR destination->'credentials'->>'keyId' = ANY(${keyIds}::text[]))
         AND NOT (id = ANY(${skip}::uuid[]))
       ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
  }

  /**
   * Replaces the sealed forms (the same key, secret and credentials under another encryption key); the
   * version stays. `destination` undefined leaves it as it is.
   */
  async reseal(
    tx: Tx,
    id: string,
    tls: StoredTls | null,
    auth: StoredAuth | null,
    destination?: StoredDestination | null,
  ): Promise<void> {
    await tx.$executeRaw`
      UPDATE webhook_endpoints SET tls = ${tls === null ? null : JSON.stringify(tls)}::jsonb,
                                   auth = ${auth === null ? null : JSON.stringify(auth)}::jsonb,
                                   destination = COALESCE(${destination ? JSON.stringify(destination) : null}::jsonb, destination)
       WHERE id = ${id}::uuid`;
  }

  /**
   * Marks up to `limit` client certificates that expire within `withinMs` and were not announced yet,
   * and answers them: in the caller's transaction, which records their events, so each certificate is
   * announced once whichever worker looks (a second one finds the rows marked, or waits for the first).
   */
  markExpiring(tx: Tx, withinMs: number, limit: number): Promise<ExpiringCertificate[]> {
    return tx.$queryRaw`
      UPDATE webhook_endpoints SET tls_expiry_announced = true
       WHERE id IN (SELECT id FROM webhook_endpoints
                     WHERE tls_not_after IS NOT NULL AND NOT tls_expiry_announced
                       AND tls_not_after <= now() + ${withinMs} * interval '1 millisecond'
                     ORDER BY tls_not_after LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING id, community_id, url, tls`;
  }
}
