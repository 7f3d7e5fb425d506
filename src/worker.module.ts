import { Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import { LoggerModule } from './logging/logger.module';
import { PrismaModule } from './prisma/prisma.module';
import { DeliveryWorkerModule } from './modules/webhooks/worker/delivery-worker.module';

/**
 * The delivery worker: a Nest application context with no HTTP server. Only this module imports
 * the job processors.
 */
@Module({ imports: [ConfigModule, LoggerModule, PrismaModule, DeliveryWorkerModule] })
export class WorkerModule {}
