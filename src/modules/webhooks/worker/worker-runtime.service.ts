import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DeliveryQueue } from '../core/delivery-queue.service';
import { DeliverySweep } from './delivery-sweep.service';
import { DeliveryWorker } from './delivery-worker.service';
import { LocalDeliveries } from './local-deliveries';
import { AppConfig } from '../../../config/app-config';
import { OutboxRelay } from './outbox-relay.service';
import { DeliveryLogRetention } from './delivery-log-retention.service';
import { OutboxRetention } from './outbox-retention.service';
import { ReplayRunner } from './replay-runner.service';
import { CertificateExpiry } from './certificate-expiry.service';

/**
 * Starts the relay, the job consumer and the sweep with the application context, and stops them in
 * the order that loses nothing: stop relaying and sweeping, drain in-flight jobs, then close the queue. Callers
 * that shut down (worker.ts on SIGTERM, tests) call stop() BEFORE app.close(), because Nest may
 * close Prisma before this module's destroy hook runs.
 */
@Injectable()
export class WorkerRuntime implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WorkerRuntime.name);
  private stopping?: Promise<void>;

  constructor(
    private readonly relay: OutboxRelay,
    private readonly worker: DeliveryWorker,
    private readonly queue: DeliveryQueue,
    private readonly retention: OutboxRetention,
    private readonly logRetention: DeliveryLogRetention,
    private readonly sweep: DeliverySweep,
    private readonly local: LocalDeliveries,
    private readonly config: AppConfig,
    private readonly replays: ReplayRunner,
    private readonly certificates: CertificateExpiry,
  ) {}

  onApplicationBootstrap(): void {
    this.worker.start();
    this.relay.start();
    this.retention.start();
    this.logRetention.start();
    this.sweep.start();
    this.replays.start();
    this.certificates.start();
    this.logger.log('delivery worker started: relaying the outbox, processing and sweeping deliveries');
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.relay.stop();
      await this.retention.stop();
      await this.logRetention.stop();
      await this.sweep.stop();
      await this.replays.stop();
      await this.certificates.stop();
      // the attempts the relay ran here finish and are recorded beside the queue's jobs in flight
      await Promise.all([this.local.stop(this.config.workerShutdownTimeoutMs), this.worker.stop()]);
      await this.queue.close();
      this.logger.log('delivery worker stopped');
    })();
    return this.stopping;
  }

  onModuleDestroy(): Promise<void> {
    return this.stop();
  }
}
