import { Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import { LoggerModule } from './logging/logger.module';
import { MetricsModule } from './metrics/metrics.module';
import { PrismaModule } from './prisma/prisma.module';
import { DeliveryWorkerModule } from './modules/webhooks/worker/delivery-worker.module';
import { IdempotencyRetentionModule } from './modules/idempotency/idempotency-retention.module';
import { TracingShutdown } from './tracing/tracing-shutdown';

/**
 * The delivery worker: a Nest application context with no API (its only HTTP server is the
 * METRICS_PORT one: /metrics, /health/live, /health/ready). Only this module imports the job processors.
 */
@Module({
  imports: [
    ConfigModule,
    LoggerModule,
    MetricsModule.forProcess('worker'),
    PrismaModule,
    DeliveryWorkerModule,
    IdempotencyRetentionModule,
  ],
  providers: [TracingShutdown],
})
export class WorkerModule {}
