import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { DeliveryLogService } from '../delivery/delivery-log.service';
import { WebhookSender } from '../delivery/webhook-sender.service';
import { PrismaService } from '../../../prisma/prisma.service';
import type { DeliveryJobData } from './delivery-job';
import { DeliveryQueue } from './delivery-queue.service';
import { DELIVERY_SENDER } from './delivery-sender';
import { EndpointHealth } from './endpoint-health.service';
import { claimAttempt } from './attempt-claim';
import { nextRetry } from './retry-policy';
import { WorkerMetrics } from './worker-metrics';

/**
 * One delivery attempt: check the endpoint still wants deliveries and log the attempt as PENDING
 * (one statement: claimAttempt), send it signed, record the outcome, update the failure counter,
 * and schedule the next attempt (a new delayed job plus its PENDING row) when it failed. A target's failure never throws; only
 * an infrastructure error does (BullMQ then re-runs the job: at-least-once).
 */
@Injectable()
export class DeliveryProcessor {
  private readonly scheduleMs: number[];

  constructor(
    private readonly prisma: PrismaService,
    @Inject(DELIVERY_SENDER) private readonly sender: WebhookSender,
    private readonly log: DeliveryLogService,
    private readonly health: EndpointHealth,
    private readonly queue: DeliveryQueue,
    private readonly metrics: WorkerMetrics,
    config: AppConfig,
  ) {
    this.scheduleMs = config.webhookRetryScheduleMs;
  }

  async process(job: DeliveryJobData): Promise<void> {
    const { communityId, endpointId, messageId, eventType, attempt } = job;
    const { endpoint, deliveryId } = await claimAttempt(this.prisma, job);
    if (!endpoint || !deliveryId) {
      // a deleted endpoint took its log with it; a paused or disabled one gets nothing more
      const state = !endpoint ? 'deleted' : endpoint.disabled_at ? 'disabled' : 'paused';
      if (endpoint)
        await this.health.cancelAttempt(communityId, endpointId, messageId, attempt, `endpoint ${state}`);
      return;
    }

    const result = await this.sender.send({
      communityId,
      endpointId,
      url: endpoint.url,
      messageId,
      eventType,
      body: JSON.stringify(job.payload),
    });
    await this.log.finish(deliveryId, communityId, result);
    this.metrics.attemptFinished(job, result);

    if (result.ok) {
      if (this.health.successNeedsRecording(endpoint))
        await this.health.recordSuccess(communityId, endpointId);
      return;
    }
    const autoDisabled = await this.health.recordFailure(communityId, endpointId);
    if (result.gone) return this.health.disableGone(communityId, endpointId);
    if (autoDisabled) return;

    const retry = nextRetry(this.scheduleMs, attempt, result.retryAfterMs);
    if (!retry) return;
    // the PENDING row first: if the enqueue then fails, the job is re-run and both are idempotent
    await this.prisma.webhookDelivery.createMany({
      data: {
        communityId,
        endpointId,
        messageId,
        eventType,
        attempt: retry.attempt,
        status: 'PENDING',
        nextAttemptAt: new Date(Date.now() + retry.delayMs),
      },
      skipDuplicates: true,
    });
    await this.queue.addDelayed({ ...job, attempt: retry.attempt }, retry.delayMs);
  }
}
