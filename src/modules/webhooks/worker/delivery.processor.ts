import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import { AppConfig } from '../../../config/app-config';
import type { AttemptClaim } from './attempt-claim';
import { DeliveryAttemptsStore } from './delivery-attempts.store';
import { FifoHeadStore, type SucceededAttempt } from './fifo-head.store';
import { type SendResult, WebhookSender } from '../core/delivery/webhook-sender.service';
import { DeliveryJobData } from '../core/delivery-job';
import { DeliveryQueue } from '../core/delivery-queue.service';
import { CachedLiveSecrets, DELIVERY_SENDER } from './cached-live-secrets';
import { type EarlyWork, EndpointSlots } from './endpoint-slots';
import { EndpointHealth } from './endpoint-health.service';
import { EndpointRateLimits } from './endpoint-rate-limits';
import { type NextAttempt, nextRetry } from './retry-policy';
import { WorkerMetrics } from './worker-metrics';
import { BODY_GONE } from './delivery-sweep.service';
import { endAttemptSpan, startAttemptSpan } from '../core/delivery/attempt-span';
import { scheduleFor } from '../core/delivery-settings';

/**
 * Sends an attempt held back by its endpoint's rate limit again after `waitMs`, at the start it was
 * given (`heldBack`); resolves once it is scheduled, or throws BullMQ's DelayedError for a
 * queued job, which BullMQ takes as "moved to delayed, not done, not failed".
 */
type ComeBack = (job: DeliveryJobData, waitMs: number) => Promise<void>;

/**
 * Records a claimed attempt's outcome (and writes its retry): false when its row was no longer
 * PENDING. A FIFO sender defers a success to its next claim (see sendFifo).
 */
type RecordOutcome = (deliveryId: string, result: SendResult, retry: NextAttempt | null) => Promise<boolean>;

/**
 * One delivery attempt (a `@nestjs/bullmq` WorkerHost: BullMQ calls `process` per job): claim the
 * attempt's PENDING row (one statement that also reads the endpoint), send it signed, then close the
 * row with the outcome and, on a failure with attempts left, write the next attempt's PENDING row in
 * the same statement; update the failure counter; queue the retry. A job whose row is already
 * claimed or closed does nothing, so a re-queued or re-run job never sends twice. A target's
 * failure never throws; only an infrastructure error does (BullMQ then re-runs the job, which finds
 * its row claimed: the sweep closes it as "worker stopped; outcome unknown" and schedules the next
 * attempt).
 *
 * Registered through deliveryProcessorProvider (delivery-processor.provider.ts), which applies the
 * configured worker options.
 */
export class DeliveryProcessor extends WorkerHost {
  private readonly logger = new Logger(DeliveryProcessor.name);
  private readonly scheduleMs: number[];
  /** How soon an attempt waiting for another of its message in flight asks again. */
  private readonly inFlightRecheckMs: number;
  /**
   * The FIFO endpoints this worker is sending the queue of now; `again` is set by a request that
   * arrived meanwhile, so the sender looks once more before it stops instead of two running here.
   */
  private readonly fifoSenders = new Map<string, { again: boolean }>();
  /** Set when the worker stops: a FIFO sender finishes its attempt and claims no next one. */
  private stopping = false;

  constructor(
    private readonly deliveries: DeliveryAttemptsStore,
    private readonly fifoHeads: FifoHeadStore,
    @Inject(DELIVERY_SENDER) private readonly sender: WebhookSender,
    private readonly secrets: CachedLiveSecrets,
    private readonly health: EndpointHealth,
    private readonly queue: DeliveryQueue,
    private readonly slots: EndpointSlots,
    private readonly metrics: WorkerMetrics,
    private readonly rateLimits: EndpointRateLimits,
    config: AppConfig,
  ) {
    super();
    this.scheduleMs = config.webhookRetryScheduleMs;
    // an attempt in flight ends within WEBHOOK_TIMEOUT: a few looks over that time, at most one a second
    this.inFlightRecheckMs = Math.min(1000, Math.max(50, config.webhookTimeoutMs / 4));
  }

  async process(job: Job<DeliveryJobData>, token?: string): Promise<void> {
    const comeBack: ComeBack = async (data, waitMs) => {
      await job.updateData(data);
      await job.moveToDelayed(Date.now() + waitMs, token);
      throw new DelayedError();
    };
    // a FIFO endpoint's job asks for its queue's head and holds no slot; one whose endpoint became
    // unordered since is an attempt like any other
    if (job.data.fifo && (await this.sendFifo(job.data, comeBack)) !== 'unordered') return;
    const { early, claim } = this.earlyClaim(job.data);
    // fairness between endpoints (README.md in this directory): the attempt's request runs holding
    // one of its endpoint's slots until the target answered
    return this.slots.run(job, token, (sent) => this.deliver(job.data, sent, claim(), comeBack), early);
  }

  /** The worker is stopping: FIFO senders claim no further attempt (see fifoSenders). */
  stopTakingWork(): void {
    this.stopping = true;
  }

  /**
   * Sends a FIFO endpoint's queue (docs/api.md#webhooks, "Ordering") from its head, one attempt at a
   * time, while heads are due and nothing else of the endpoint is in flight: PostgreSQL picks each
   * head and allows one claim at a time across every worker (claimFifoHead), so this only has to
   * ask again after each attempt. Returns at once when this worker already sends that queue, when
   * the head is in flight elsewhere or not due (a failing head's retry job, or the sweep, asks again
   * when it is). Resolves 'unordered' when the endpoint is not FIFO (any more).
   */
  async sendFifo(
    request: Pick<DeliveryJobData, 'communityId' | 'endpointId'> & Partial<DeliveryJobData>,
    comeBack?: ComeBack,
  ): Promise<'sent' | 'unordered'> {
    const { communityId, endpointId } = request;
    const running = this.fifoSenders.get(endpointId);
    if (running) {
      running.again = true;
      return 'sent';
    }
    const sender = { again: true };
    this.fifoSenders.set(endpointId, sender);
    // a success is closed by the call that claims the next head (one round trip between two sends);
    // one still open when the sender stops or fails is closed on its own
    let succeeded: SucceededAttempt | undefined;
    const recordFifo: RecordOutcome = (deliveryId, result, retry) => {
      if (!result.ok || retry) return this.deliveries.finish(deliveryId, communityId, result, retry);
      succeeded = { id: deliveryId, result };
      return Promise.resolve(true);
    };
    try {
      while (sender.again && !this.stopping) {
        sender.again = false;
        for (;;) {
          if (this.stopping) break;
          const closing = succeeded;
          succeeded = undefined;
          const head = await this.fifoHeads
            .claimFifoHead(communityId, endpointId, closing)
            .catch((err: Error) => {
              succeeded = closing;
              throw err;
            });
          if (closing && head.finished === false)
            this.logger.warn({
              msg: 'delivery outcome arrived after its claim expired; not recorded',
              communityId,
              endpointId,
              deliveryId: closing.id,
            });
          if (head.outcome === 'unordered') return 'unordered';
          if (head.outcome === 'inactive' && head.endpoint) {
            // like an unordered endpoint's queued attempts: a paused or disabled endpoint gets nothing more
            const reason = head.endpoint.disabled_at ? 'endpoint disabled' : 'endpoint paused';
            await this.deliveries.cancelWaiting(communityId, endpointId, reason);
            this.logger.log({ msg: 'FIFO queue cancelled', communityId, endpointId, error: reason });
          }
          if (head.outcome !== 'claimed') break;
          const { claim, job } = head;
          if (job.payload === null) {
            await this.deliveries.failClaimed(claim.deliveryId!, communityId, BODY_GONE);
            continue;
          }
          // a head held back by the rate limit comes back with the start it was given
          const heldBack =
            request.heldBack && request.messageId === job.messageId && request.attempt === job.attempt;
          await this.deliver(
            { ...job, payload: job.payload, ...(heldBack ? { heldBack: true as const } : {}) },
            undefined,
            Promise.resolve(claim),
            comeBack,
            recordFifo,
          );
        }
      }
    } finally {
      try {
        if (succeeded) await this.deliveries.finish(succeeded.id, communityId, succeeded.result, null);
      } finally {
        this.fifoSenders.delete(endpointId);
      }
    }
    return 'sent';
  }

  /**
   * Runs an attempt this worker relayed itself, without its queue job, when a slot of its endpoint
   * is free right now (LocalDeliveries); false when none was and nothing was sent: queue it.
   */
  async runIfSlotFree(job: DeliveryJobData, claimed?: AttemptClaim): Promise<boolean> {
    if (job.fifo && (await this.sendFifo(job)) !== 'unordered') return true;
    const { early, claim } = claimed ? this.relayClaim(job, claimed) : this.earlyClaim(job);
    if (await this.slots.runIfFree(job.endpointId, (sent) => this.deliver(job, sent, claim()), early))
      return true;
    // no slot: a claim the relay made is given back before the job is queued (undo runs once)
    if (claimed) await early.undo();
    return false;
  }

  /** The endpoints whose attempts runIfSlotFree would turn away now (EndpointSlots.fullEndpoints). */
  endpointsWithoutFreeSlot(): string[] {
    return this.slots.fullEndpoints();
  }

  /** A claim the relay statement made (LocalDeliveries): nothing to start; undone at most once. */
  private relayClaim(
    job: DeliveryJobData,
    claimed: AttemptClaim,
  ): { early: EarlyWork; claim: () => Promise<AttemptClaim> } {
    let undone: Promise<void> | undefined;
    const early: EarlyWork = {
      start: () => undefined,
      undo: () =>
        (undone ??= claimed.deliveryId
          ? this.deliveries.unclaim(claimed.deliveryId, job.communityId)
          : Promise.resolve()),
    };
    return { early, claim: () => Promise.resolve(claimed) };
  }

  /**
   * The claim goes out before the endpoint's slot is there when one is likely soon (see
   * EarlyWork): off the slot's hold, a busy endpoint's claims share statements instead of going
   * one per released slot, and an idle worker's claim and slot lease overlap. A job that parks
   * gives its claim back first.
   */
  private earlyClaim(job: DeliveryJobData): { early: EarlyWork; claim: () => Promise<AttemptClaim> } {
    let claim: Promise<AttemptClaim> | undefined;
    const start = () => {
      claim = this.deliveries.claim(job);
      claim.catch(() => undefined); // awaited by the work or by the undo; a failure surfaces there
      return claim;
    };
    const early: EarlyWork = {
      start: () => void start(),
      undo: async () => {
        const { deliveryId } = await (claim ?? start());
        if (deliveryId) await this.deliveries.unclaim(deliveryId, job.communityId);
      },
    };
    return { early, claim: () => claim ?? start() };
  }

  /**
   * `sent` is called once the target answered (or the request failed): the endpoint's slot is then
   * free. `claimed` is the attempt's claim when process() started it already. `comeBack` schedules
   * the attempt again when its endpoint's rate limit holds it back: by default as a delayed job, for
   * an attempt run without one (LocalDeliveries).
   */
  async deliver(
    job: DeliveryJobData,
    sent: () => void = () => undefined,
    claimed: Promise<AttemptClaim> = this.deliveries.claim(job),
    comeBack: ComeBack = (data, waitMs) => this.queue.addDelayed(data, waitMs),
    record: RecordOutcome = (deliveryId, result, retry) =>
      this.deliveries.finish(deliveryId, job.communityId, result, retry),
  ): Promise<void> {
    const { communityId, endpointId, messageId, eventType, attempt } = job;
    const claim = await claimed;
    const { endpoint, deliveryId, requestId, traceparent } = claim;
    const fields = { messageId, endpointId, communityId, attempt, requestId };
    if (endpoint?.ordering === 'fifo' && !deliveryId && endpoint.is_active && !endpoint.disabled_at) {
      // the endpoint became FIFO after this attempt was queued: it goes out as its queue's head
      sent();
      await this.sendFifo(job, comeBack);
      return;
    }
    if (claim.waitsForAttemptInFlight) {
      // a resend while an attempt of its message is being sent: asked again shortly, holding no slot
      sent();
      this.logger.debug({ msg: 'delivery attempt waits for the one in flight', ...fields });
      return comeBack(job, this.inFlightRecheckMs);
    }
    if (!endpoint || !deliveryId) {
      if (endpoint && (!endpoint.is_active || endpoint.disabled_at)) {
        // a paused or disabled endpoint gets nothing more; its waiting row says why
        const reason = endpoint.disabled_at ? 'endpoint disabled' : 'endpoint paused';
        await this.deliveries.cancelAttempt(job, reason);
        this.logger.log({
          msg: 'delivery attempt cancelled',
          ...fields,
          outcome: 'cancelled',
          error: reason,
        });
      } else {
        // a deleted endpoint took its log with it; an attempt already claimed or closed is not sent again
        this.logger.debug({
          msg: 'delivery attempt skipped',
          ...fields,
          outcome: endpoint ? 'claimed' : 'deleted',
        });
      }
      return;
    }

    // the sender signs with the cached secrets: a copy older than the claim's version is read again
    // (before the rate limit's start is taken, so that nothing awaited lies between that start and the send)
    await this.secrets.atLeast(communityId, endpointId, claim.secretsVersion);
    let rateStart: string | undefined;
    if (endpoint.rate_limit !== null) {
      const { startId, waitMs } = await this.rateLimits.take(
        endpointId,
        endpoint.rate_limit,
        job.heldBack === true,
      );
      rateStart = startId;
      if (waitMs !== undefined) {
        // held back, not failed: the slot is free again at once (no request), and the row waits (the
        // log shows until when)
        sent();
        await this.deliveries.holdBack(deliveryId, communityId, waitMs);
        this.metrics.heldBack('rate_limit');
        this.logger.debug({ msg: 'delivery attempt held back by its rate limit', ...fields, waitMs });
        return comeBack({ ...job, heldBack: true }, waitMs);
      }
    }

    // the attempt's span (tracing on and the event's trace sampled), whose context the receiver gets;
    // the lines about the attempt from here on name it
    const span = startAttemptSpan(traceparent, job);
    const traced = span ? { ...fields, traceId: span.traceId, spanId: span.spanId } : fields;
    const result = await this.sender
      .send({
        communityId,
        endpointId,
        url: endpoint.url,
        messageId,
        eventType,
        body: JSON.stringify(job.payload),
        customHeaders: endpoint.custom_headers,
        traceparent: span?.traceparent,
        // the endpoint's own, as the claim read it; null: WEBHOOK_TIMEOUT
        timeoutMs: endpoint.timeout_ms ?? undefined,
        // its client certificate and OAuth client, loaded once per version by the transport
        transport: { version: endpoint.transport_version ?? 0 },
      })
      .finally(() => {
        // the rate limit counts this send until a window after now, when its request has certainly
        // arrived (or never will); not awaited: until it is marked, the send counts longer, never less
        if (rateStart !== undefined) void this.rateLimits.ended(endpointId, rateStart);
      });
    sent();
    // on a rate-limited endpoint a 429's Retry-After holds back its other sends too, across workers;
    // before the outcome is recorded, so that whoever sees the FAILED row sees the hold
    if (result.status === 429 && result.retryAfterMs && endpoint.rate_limit !== null)
      await this.rateLimits.hold(endpointId, result.retryAfterMs).catch((err: Error) =>
        this.logger.warn({
          msg: "could not hold the endpoint's sends for its 429",
          ...traced,
          error: err.message,
        }),
      );

    // the endpoint's schedule as the claim read it: a change applies from the next attempt sent
    // (docs/product-decisions.md#5-webhooks, "Delivery settings per endpoint")
    const schedule = scheduleFor(endpoint.retry_schedule_ms, this.scheduleMs);
    const retry = result.ok || result.gone ? null : nextRetry(schedule, attempt, result.retryAfterMs);
    if (span) endAttemptSpan(span, result, retry?.attempt ?? null);
    const recorded = await record(deliveryId, result, retry);
    this.metrics.attemptFinished(job, result);
    const outcome = {
      ...traced,
      durationMs: result.durationMs,
      outcome: result.ok ? 'SUCCESS' : 'FAILED',
      responseStatus: result.status,
      error: result.error,
      nextAttempt: retry?.attempt ?? null,
    };
    if (!recorded) {
      // the sweep took the claim for a dead worker's and already logged the attempt and its retry
      this.logger.warn({ msg: 'delivery outcome arrived after its claim expired; not recorded', ...outcome });
      return;
    }
    if (result.ok) {
      this.logger.debug({ msg: 'delivery attempt', ...outcome });
      if (this.health.successNeedsRecording(endpoint))
        await this.health.recordSuccess(communityId, endpointId);
      // only a resend succeeds above a retry still waiting: that retry must not send the message again
      if (attempt > 1) {
        const superseded = await this.deliveries.closeSuperseded(job);
        if (superseded > 0)
          this.logger.log({ msg: 'waiting retries closed: a resend succeeded', ...traced, superseded });
      }
      return;
    }
    this.logger.log({ msg: 'delivery attempt', ...outcome });
    // no retry left (and not a 410, which disables instead): the message is exhausted on this endpoint
    const exhausted = !retry && !result.gone ? { messageId, eventType, attempts: attempt } : null;
    const autoDisabled = await this.health.recordFailure(communityId, endpointId, exhausted);
    if (result.gone) return this.health.disableGone(communityId, endpointId);
    // auto-disable cancelled the retry row written above; otherwise queue it (the sweep covers a failed add)
    if (!retry || autoDisabled) return;
    // the retry asks its endpoint's rate limit afresh: a start given to this attempt is spent
    // (a FIFO endpoint's retry job asks for its queue's head when due, which is this retry)
    const { heldBack: _spent, ...retryJob } = job;
    await this.queue.addDelayed({ ...retryJob, attempt: retry.attempt }, retry.delayMs).catch((err: Error) =>
      this.logger.warn({
        msg: 'retry not queued; the sweep will queue it when due',
        ...traced,
        error: err.message,
      }),
    );
  }
}
