import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { PrismaService } from '../../../prisma/prisma.service';

/** The endpoint row as a delivery attempt reads it before sending. */
export interface EndpointState {
  url: string;
  is_active: boolean;
  disabled_at: Date | null;
  consecutive_failures: number;
  failing_since: Date | null;
  last_success_at: Date | null;
}

/** last_success_at is kept to this precision, so a busy healthy endpoint is not written on every delivery. */
const LAST_SUCCESS_PRECISION_MS = 1_000;

/**
 * The failure counter and auto-disable of contract §5, as atomic SQL on the endpoint row (many
 * attempts of one endpoint finish concurrently, so read-modify-write would lose counts).
 */
@Injectable()
export class EndpointHealth {
  private readonly logger = new Logger(EndpointHealth.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly config: AppConfig,
  ) {}

  /**
   * Whether a success changes anything, judged from the row read before the send: the common case
   * (a healthy endpoint, recently successful) skips the write and the row lock altogether. A failure
   * recorded concurrently after that read is reset by the next success that sees it.
   */
  successNeedsRecording(before: EndpointState, now = Date.now()): boolean {
    return (
      before.consecutive_failures !== 0 ||
      before.failing_since !== null ||
      before.last_success_at === null ||
      now - before.last_success_at.getTime() >= LAST_SUCCESS_PRECISION_MS
    );
  }

  /** Resets the counter and notes the success (atomic; a no-op when another success just did). */
  async recordSuccess(communityId: string, endpointId: string): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE webhook_endpoints
      SET consecutive_failures = 0, failing_since = NULL, last_success_at = now()
      WHERE community_id = ${communityId}::uuid AND id = ${endpointId}::uuid
        AND (consecutive_failures <> 0 OR failing_since IS NOT NULL
             OR last_success_at IS NULL OR last_success_at < now() - ${LAST_SUCCESS_PRECISION_MS} * interval '1 millisecond')`;
  }

  /**
   * Counts the failure and auto-disables the endpoint when the streak has reached
   * WEBHOOK_AUTO_DISABLE_MIN_FAILURES and lasted WEBHOOK_AUTO_DISABLE_AFTER (a short outage of a
   * busy receiver piles up failures quickly but must not disable it). Returns whether this call
   * disabled it.
   */
  async recordFailure(communityId: string, endpointId: string): Promise<boolean> {
    await this.prisma.$executeRaw`
      UPDATE webhook_endpoints
      SET consecutive_failures = consecutive_failures + 1, failing_since = COALESCE(failing_since, now())
      WHERE community_id = ${communityId}::uuid AND id = ${endpointId}::uuid`;
    const minFailures = this.config.WEBHOOK_AUTO_DISABLE_MIN_FAILURES;
    const afterMs = this.config.webhookAutoDisableAfterMs;
    const disabled = await this.prisma.$queryRaw<{ consecutive_failures: number }[]>`
      UPDATE webhook_endpoints
      SET is_active = false, disabled_at = now(), updated_at = now()
      WHERE community_id = ${communityId}::uuid AND id = ${endpointId}::uuid
        AND is_active AND disabled_at IS NULL
        AND consecutive_failures >= ${minFailures}
        AND failing_since <= now() - ${afterMs} * interval '1 millisecond'
      RETURNING consecutive_failures`;
    if (disabled.length === 0) return false;
    const failures = disabled[0].consecutive_failures;
    this.logger.warn(`webhook endpoint ${endpointId} auto-disabled after ${failures} consecutive failures`);
    await this.cancelPendingRetries(
      communityId,
      endpointId,
      `cancelled: endpoint auto-disabled after ${failures} consecutive failures and no success for ${this.config.WEBHOOK_AUTO_DISABLE_AFTER}`,
    );
    return true;
  }

  /** A 410 Gone: the receiver says the endpoint no longer exists, so stop at once. */
  async disableGone(communityId: string, endpointId: string): Promise<void> {
    await this.prisma.$executeRaw`
      UPDATE webhook_endpoints SET is_active = false, disabled_at = now(), updated_at = now()
      WHERE community_id = ${communityId}::uuid AND id = ${endpointId}::uuid AND disabled_at IS NULL`;
    this.logger.warn(`webhook endpoint ${endpointId} disabled: the target answered 410 Gone`);
    await this.cancelPendingRetries(
      communityId,
      endpointId,
      'cancelled: endpoint disabled, the target answered 410 Gone',
    );
  }

  /** Pending retries of the endpoint become FAILED, saying why (their queued jobs then find nothing to do). */
  async cancelPendingRetries(communityId: string, endpointId: string, reason: string): Promise<void> {
    await this.prisma.webhookDelivery.updateMany({
      where: { communityId, endpointId, status: 'PENDING' },
      data: { status: 'FAILED', error: reason, nextAttemptAt: null },
    });
  }

  /** A queued attempt whose endpoint was paused, disabled or deleted meanwhile: its PENDING row (if any) says so. */
  async cancelAttempt(
    communityId: string,
    endpointId: string,
    messageId: string,
    attempt: number,
    reason: string,
  ): Promise<void> {
    await this.prisma.webhookDelivery.updateMany({
      where: { communityId, endpointId, messageId, attempt, status: 'PENDING' },
      data: { status: 'FAILED', error: reason, nextAttemptAt: null },
    });
  }
}
