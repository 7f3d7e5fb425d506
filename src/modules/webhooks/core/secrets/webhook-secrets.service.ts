import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { GroupCommit } from '../../../../common/batching/group-commit';
import { Errors } from '../../../../common/errors/app-error';
import { AppConfig } from '../../../../config/app-config';
import { PrismaService, Tx } from '../../../../prisma/prisma.service';
import { WebhookEndpointsStore } from '../webhook-endpoints.store';
import { SECRET_PREFIX } from '../delivery/sign';
import {
  CustomHeaders,
  customHeaderProblems,
  HeaderProblem,
  maskHeaders,
  openHeaders,
  SealedHeaders,
  sealHeaders,
  toStoredSecret,
} from './endpoint-headers';
import {
  ReencryptedBatch,
  SecretKeyRing,
  SecretsUnderKey,
  standingOf,
} from '../../../../common/crypto/secret-cipher';
import { StoredLiveSecret, WebhookSecretsStore } from './webhook-secrets.store';
import { EndpointTransportStore } from '../http-transport/endpoint-transport.store';
import { reencryptTransport } from '../http-transport/transport-reencrypt';

/** An endpoint whose stored custom headers could not be sent as they are (webhooks:check-headers). */
export interface StoredHeadersAtFault {
  endpointId: string;
  communityId: string;
  /** each rule broken with the headers it is about; never a value */
  problems: HeaderProblem[];
  /** the set would not decrypt (its key left the ring, or the row was altered): no rule could be checked */
  undecryptable: boolean;
}

/**
 * An endpoint's live secrets as read at one moment. `version` is the creation time (epoch ms) of
 * the newest secret: every rotation adds a secret strictly newer than all before it (the endpoint
 * row is locked while it does), so the set of live secrets changes only when the version grows or
 * a secret reaches its expiry (`validUntil`, the earliest expiry among them, epoch ms). The delivery
 * claim reads the same version (DeliveryAttemptsStore), which is how the worker knows its copy is current.
 */
export interface LiveSecrets {
  secrets: string[];
  version: number | null;
  validUntil: number | null;
}

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * Signing secrets of webhook endpoints: minted, rotated with an overlap window, and read back
 * decrypted only for signing. Plaintext leaves this service only as the return value of create and
 * rotate (shown to the user once) and of liveSecrets (for the signer).
 */
@Injectable()
export class WebhookSecretsService {
  private readonly cipher: SecretKeyRing;
  /** Concurrent reads of live secrets share a statement (a fan-out signs for many endpoints at once). */
  private readonly liveReads = new GroupCommit<
    { communityId: string; endpointId: string; now: Date },
    StoredLiveSecret[]
  >((keys) => this.store.findLiveMany(keys), { maxConcurrentBatches: 2, maxBatchSize: 500 });

  constructor(
    private readonly prisma: PrismaService,
    private readonly store: WebhookSecretsStore,
    private readonly endpoints: WebhookEndpointsStore,
    private readonly config: AppConfig,
    private readonly transport: EndpointTransportStore,
  ) {
    this.cipher = new SecretKeyRing(config.webhookEncryptionKeys);
  }

  /** The first secret of a new endpoint, written in the caller's transaction. */
  async create(tx: Tx, communityId: string, endpointId: string, createdAt = new Date()): Promise<string> {
    const secret = generateWebhookSecret();
    await this.store.create(tx, { communityId, endpointId, createdAt, ...this.cipher.encrypt(secret) });
    return secret;
  }

  /**
   * Adds a new primary secret. Earlier secrets stay valid for WEBHOOK_SECRET_OVERLAP (a secret that
   * already expires keeps its earlier expiry); past WEBHOOK_MAX_LIVE_SECRETS the oldest are retired
   * at once. The endpoint row is locked so concurrent rotations apply one after the other.
   */
  async rotate(communityId: string, endpointId: string): Promise<string> {
    return this.prisma.$transaction(async (tx) => {
      if (!(await this.endpoints.lockForSecretChange(tx, communityId, endpointId))) {
        throw Errors.notFound('Webhook endpoint');
      }
      const now = new Date();
      await this.store.deleteExpired(tx, communityId, endpointId, now);
      const newest = await this.store.newestCreatedAt(tx, communityId, endpointId);
      await this.store.expireOpenEnded(
        tx,
        communityId,
        endpointId,
        new Date(now.getTime() + this.config.webhookSecretOverlapMs),
      );
      // strictly after the newest, so "newest first" never depends on clock ties
      const createdAt = newest && newest >= now ? new Date(newest.getTime() + 1) : now;
      const secret = await this.create(tx, communityId, endpointId, createdAt);
      const live = await this.store.liveIds(tx, communityId, endpointId, now);
      const retired = live.slice(this.config.WEBHOOK_MAX_LIVE_SECRETS);
      if (retired.length > 0) await this.store.expire(tx, communityId, endpointId, retired, now);
      return secret;
    });
  }

  /** Every live secret of the endpoint, decrypted, newest (the primary) first. */
  async liveSecrets(communityId: string, endpointId: string, now = new Date()): Promise<string[]> {
    return (await this.readLive(communityId, endpointId, now)).secrets;
  }

  /**
   * The live secrets with what a cache of them needs: their version (see LiveSecrets) and when the
   * first of them expires.
   */
  async readLive(communityId: string, endpointId: string, now = new Date()): Promise<LiveSecrets> {
    const rows = await this.liveReads.call({ communityId, endpointId, now });
    const expiries = rows.flatMap((row) => (row.expiresAt ? [row.expiresAt.getTime()] : []));
    return {
      secrets: rows.map((row) => this.cipher.decrypt(row)),
      // the newest secret never has an expiry, so it is always among the live ones
      version: rows[0]?.createdAt.getTime() ?? null,
      validUntil: expiries.length > 0 ? Math.min(...expiries) : null,
    };
  }

  /** An endpoint's custom headers sealed for storage by the newest key (null: none). */
  sealHeaders(headers: CustomHeaders): SealedHeaders | null {
    return sealHeaders(this.cipher, headers);
  }

  /** The stored headers, opened: only for sending them, and for a PATCH that keeps some. */
  openHeaders(sealed: SealedHeaders | null | undefined): CustomHeaders {
    return openHeaders(this.cipher, sealed);
  }

  /** The stored headers as every read shows them: names, and each value masked. */
  maskedHeaders(sealed: SealedHeaders | null | undefined): CustomHeaders {
    return maskHeaders(this.openHeaders(sealed));
  }

  /**
   * Checks the next `limit` endpoints with custom headers (id order, after `afterId`; of one community
   * when given) against today's rules (endpoint-headers.ts): those a rule added since they were stored
   * would refuse, and those that will not decrypt. `next`: where the following page starts, null at
   * the end. Only reads; the values never leave this method.
   */
  async checkStoredHeaders(
    communityId: string | null,
    afterId: string | null,
    limit: number,
  ): Promise<{ atFault: StoredHeadersAtFault[]; checked: number; next: string | null }> {
    const rows = await this.endpoints.pageWithHeaders(communityId, afterId, limit);
    const atFault: StoredHeadersAtFault[] = [];
    for (const row of rows) {
      const fault = { endpointId: row.id, communityId: row.community_id };
      let headers: CustomHeaders;
      try {
        headers = openHeaders(this.cipher, row.custom_headers);
      } catch {
        atFault.push({ ...fault, problems: [], undecryptable: true });
        continue;
      }
      const problems = customHeaderProblems(headers);
      if (problems.length > 0) atFault.push({ ...fault, problems, undecryptable: false });
    }
    return { atFault, checked: rows.length, next: rows.length < limit ? null : rows[rows.length - 1].id };
  }

  /**
   * Sealed values per encryption key, signing secrets, endpoints' header sets, client keys and OAuth
   * client secrets together (all are re-encrypted by the same run): the current key first, then the ring's order, then unknown keys.
   */
  async countByKey(): Promise<SecretsUnderKey[]> {
    const counts = await this.store.countByKey();
    for (const byKey of [await this.endpoints.countHeadersByKey(), await this.transport.countByKey()])
      for (const [keyId, count] of byKey) counts.set(keyId, (counts.get(keyId) ?? 0) + count);
    return standingOf(this.cipher, counts);
  }

  /** Stored secrets not sealed under the newest key (older keys of the ring and keys not in it). */
  async countNotUnderCurrentKey(): Promise<number> {
    let sealedOnEndpoints = 0;
    // custom header sets, then client keys and OAuth client secrets
    for (const byKey of [await this.endpoints.countHeadersByKey(), await this.transport.countByKey()]) {
      byKey.delete(this.cipher.currentKeyId);
      sealedOnEndpoints += [...byKey.values()].reduce((sum, count) => sum + count, 0);
    }
    return (await this.store.countNotUnderKey(this.cipher.currentKeyId)) + sealedOnEndpoints;
  }

  /**
   * Moves up to `batchSize` secrets (then endpoints' custom header sets, client keys and OAuth client secrets) sealed under older keys of the ring to the newest key, in one
   * short transaction. Rows another transaction holds (a rotation in progress) are skipped rather
   * than waited for, so the API and the worker never queue behind this; a later batch or run takes
   * them. `skip`: ids that failed to decrypt earlier in the run, so one bad row cannot stall it.
   */
  async reencryptBatch(batchSize: number, skip: string[] = []): Promise<ReencryptedBatch> {
    const olderKeyIds = this.cipher.keyIds.slice(1);
    if (olderKeyIds.length === 0) return { moved: 0, failed: [] };
    return this.prisma.$transaction(async (tx) => {
      const rows = await this.store.lockSealedUnder(tx, olderKeyIds, skip, batchSize);
      const result: ReencryptedBatch = { moved: 0, failed: [] };
      for (const row of rows) {
        let plaintext: string;
        try {
          plaintext = this.cipher.decrypt(row);
        } catch (err) {
          // a tampered row fails GCM authentication: leave it as it is and name it to the operator
          result.failed.push({ id: row.id, reason: (err as Error).message });
          continue;
        }
        await this.store.reseal(tx, row.id, this.cipher.encrypt(plaintext));
        result.moved += 1;
      }
      // the endpoints' custom headers share the ring: once no secret is left, the batch takes those
      const room = batchSize - rows.length;
      if (room <= 0) return result;
      for (const row of await this.endpoints.lockHeadersSealedUnder(tx, olderKeyIds, skip, room)) {
        let plaintext: string;
        try {
          plaintext = this.cipher.decrypt(toStoredSecret(row.custom_headers));
        } catch (err) {
          result.failed.push({ id: row.id, reason: `custom headers: ${(err as Error).message}` });
          continue;
        }
        await this.endpoints.resealHeaders(tx, row.id, sealHeaders(this.cipher, JSON.parse(plaintext))!);
        result.moved += 1;
      }
      // then the endpoints' client keys and OAuth client secrets
      const left = batchSize - result.moved - result.failed.length;
      if (left <= 0) return result;
      const transport = await reencryptTransport(tx, this.cipher, this.transport, olderKeyIds, skip, left);
      return { moved: result.moved + transport.moved, failed: [...result.failed, ...transport.failed] };
    });
  }
}
