import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../../prisma/prisma.service';
import { tracingEnabled } from '../../../tracing/tracer';
import type { SendResult } from '../core/delivery/webhook-sender.service';
import type { DeliveryJobData } from '../core/delivery-job';
import type { EndpointState } from '../core/webhook-endpoints.store';
import type { EventBody } from '../../events/event-body';
import type { AttemptClaim } from './attempt-claim';

/**
 * The claim of a FIFO endpoint's attempts, apart from the unordered claims of DeliveryAttemptsStore:
 * a FIFO attempt is only ever claimed as its endpoint's head, one at a time across every worker, by
 * the function webhook_claim_fifo_head (migration endpoint_fifo_ordering). The row states are those
 * of DeliveryAttemptsStore.
 */

/**
 * What claiming a FIFO endpoint's head found (webhook_claim_fifo_head, in the migration
 * endpoint_fifo_ordering): `claimed` with the head's attempt (its event body null when no longer
 * stored), or why nothing was claimed: an attempt in flight (`busy`), a head not due yet
 * (`waiting`), nothing waiting (`empty`), an endpoint that is no longer FIFO (`unordered`), paused
 * or disabled (`inactive`), or deleted (`gone`).
 */
export type FifoHead = (
  | {
      outcome: 'claimed';
      claim: AttemptClaim;
      job: Omit<DeliveryJobData, 'payload'> & { payload: EventBody | null };
    }
  | {
      outcome: 'busy' | 'waiting' | 'empty' | 'unordered' | 'inactive' | 'gone';
      endpoint: EndpointState | null;
    }
) & {
  /** whether the attempt given to close as SUCCESS was still PENDING (null when none was given) */
  finished: boolean | null;
};

/** A FIFO attempt that succeeded, closed by the call that claims the next head. */
export interface SucceededAttempt {
  id: string;
  result: SendResult;
}

interface FifoHeadRow extends EndpointState {
  finished: boolean | null;
  outcome: FifoHead['outcome'];
  delivery_id: string | null;
  message_id: string | null;
  event_type: string | null;
  attempt: number | null;
  request_id: string | null;
  /** read only while tracing is on (see claimFifoHead) */
  traceparent?: string | null;
  outbox_id: string | null;
  payload: EventBody | null;
  secrets_version: number | null;
}

/**
 * The claimed FIFO head's trace context, read beside webhook_claim_fifo_head's answer (which does not
 * return it) by the statement's own snapshot: the row was committed before the call, and a claim does
 * not change the column. Only while tracing is on; otherwise the statement is the same as before.
 */
const TRACEPARENT_OF_HEAD = `,
                    (SELECT d.traceparent FROM webhook_deliveries d WHERE d.id = f.delivery_id) AS traceparent`;
/**
 * The endpoint's delivery settings, read beside webhook_claim_fifo_head's answer (which predates them)
 * by the statement's own snapshot, taken as the call began: a PATCH committed before the claim is
 * seen, as by any claim (core/delivery-settings.ts). Its own names only: the function's columns
 * (url, is_active, …) stay unambiguous.
 */
const SETTINGS_OF_ENDPOINT = `
             LEFT JOIN (SELECT w.retry_schedule_ms, w.timeout_ms, w.transport_version FROM webhook_endpoints w
                        WHERE w.community_id = $1::uuid AND w.id = $2::uuid) settings ON true`;

@Injectable()
export class FifoHeadStore {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Claims the head of a FIFO endpoint's queue (its waiting attempt with the lowest place) when no
   * attempt of the endpoint is in flight and the head is due, and reads the endpoint and the head's
   * event body: one call of the function webhook_claim_fifo_head, which takes an advisory lock on
   * the endpoint for its transaction, so every worker's claims of one endpoint go one after another.
   * A failing head blocks the queue: its retry keeps its place and is `waiting` until due.
   *
   * `succeeded`, the attempt just sent with a 2xx, is closed as SUCCESS in the same call, before
   * the claim: one round trip and one commit between two sends instead of two.
   */
  async claimFifoHead(
    communityId: string,
    endpointId: string,
    succeeded?: SucceededAttempt,
  ): Promise<FifoHead> {
    const result = succeeded?.result;
    const traced = tracingEnabled();
    const { rows } = await this.prisma.pool.query<FifoHeadRow>({
      name: this.prisma.statementName(traced ? 'claim-fifo-head+trace' : 'claim-fifo-head'),
      text: `SELECT finished, outcome, delivery_id, message_id, event_type, attempt, request_id, outbox_id::text,
                    payload, url, is_active, disabled_at, consecutive_failures, failing_since, last_success_at,
                    custom_headers, rate_limit, ordering, secrets_version, retry_schedule_ms,
                    timeout_ms, transport_version${traced ? TRACEPARENT_OF_HEAD : ''}
             FROM webhook_claim_fifo_head($1::uuid, $2::uuid, $3::uuid, $4::int, $5::text, $6::int) f${SETTINGS_OF_ENDPOINT}`,
      values: [
        communityId,
        endpointId,
        succeeded?.id ?? null,
        result?.status ?? null,
        result?.responseBody ?? null,
        result?.durationMs ?? null,
      ],
    });
    const {
      finished,
      outcome,
      delivery_id,
      message_id,
      event_type,
      attempt,
      request_id,
      traceparent,
      outbox_id,
      payload,
      secrets_version,
      ...endpoint
    } = rows[0];
    if (outcome !== 'claimed') return { finished, outcome, endpoint: outcome === 'gone' ? null : endpoint };
    return {
      finished,
      outcome,
      claim: {
        endpoint,
        deliveryId: delivery_id,
        requestId: request_id,
        traceparent: traceparent ?? null,
        secretsVersion: secrets_version,
      },
      job: {
        communityId,
        endpointId,
        messageId: message_id!,
        eventType: event_type!,
        attempt: attempt!,
        outboxId: outbox_id ?? '',
        payload,
        fifo: true,
      },
    };
  }
}
