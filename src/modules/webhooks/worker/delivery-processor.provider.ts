import { Processor } from '@nestjs/bullmq';
import type { WorkerOptions } from 'bullmq';
import { AppConfig } from '../../../config/app-config';
import { queuePrefix } from '../../../redis/redis-client';
import { DELIVERY_JOB_OPTIONS, DELIVERY_QUEUE } from '../core/delivery-job';
import { DELIVERY_SENDER, CachedLiveSecrets } from './cached-live-secrets';
import { workerConnection } from '../core/redis-connections';
import { DeliveryAttemptsStore } from './delivery-attempts.store';
import { DeliveryProcessor } from './delivery.processor';
import { DeliveryQueue } from '../core/delivery-queue.service';
import { EndpointHealth } from './endpoint-health.service';
import { EndpointRateLimits } from './endpoint-rate-limits';
import { EndpointSlots } from './endpoint-slots';
import { FifoHeadStore } from './fifo-head.store';
import { WorkerMetrics } from './worker-metrics';

/** Taken over this often at most; past that it fails (a job that kills its worker every time). */
const MAX_STALLED_COUNT = 3;

/** The BullMQ worker options from the configuration (a decorator's options are static, these are not). */
export function deliveryWorkerOptions(config: AppConfig): WorkerOptions {
  return {
    connection: workerConnection(config),
    prefix: queuePrefix(config),
    concurrency: config.WORKER_CONCURRENCY,
    // started by WorkerRuntime, after the application context is up
    autorun: false,
    // a job whose worker died (lock expired) is taken over by the next stalled check
    stalledInterval: config.workerStalledIntervalMs,
    maxStalledCount: MAX_STALLED_COUNT,
    // renewed every half of this while the job runs, so a send longer than it (an endpoint's own
    // timeoutMs) keeps the lock as long as its worker lives
    lockDuration: Math.max(config.workerStalledIntervalMs, config.webhookTimeoutMs * 2),
    removeOnComplete: DELIVERY_JOB_OPTIONS.removeOnComplete as { age: number; count: number },
    removeOnFail: DELIVERY_JOB_OPTIONS.removeOnFail as { age: number; count: number },
  };
}

/**
 * Registers DeliveryProcessor as the queue's @Processor with options read from AppConfig: the
 * decorator is applied to a subclass made per configuration (@nestjs/bullmq reads a factory
 * provider's options from the instance's class), so concurrency, lock and stall settings come from
 * the environment.
 */
export const deliveryProcessorProvider = {
  provide: DeliveryProcessor,
  // the constructor's parameters, in its order
  inject: [
    DeliveryAttemptsStore,
    FifoHeadStore,
    DELIVERY_SENDER,
    CachedLiveSecrets,
    EndpointHealth,
    DeliveryQueue,
    EndpointSlots,
    WorkerMetrics,
    EndpointRateLimits,
    AppConfig,
  ],
  useFactory: (...deps: ConstructorParameters<typeof DeliveryProcessor>): DeliveryProcessor => {
    const config = deps[deps.length - 1] as AppConfig;
    @Processor(DELIVERY_QUEUE, deliveryWorkerOptions(config))
    class ConfiguredDeliveryProcessor extends DeliveryProcessor {}
    return new ConfiguredDeliveryProcessor(...deps);
  },
};
