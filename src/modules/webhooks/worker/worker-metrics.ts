import { Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { AppConfig } from '../../../config/app-config';
import { MetricsRegistry } from '../../../metrics/metrics-registry';
import { MetricsServer } from '../../../metrics/metrics-server';
import { PrismaService } from '../../../prisma/prisma.service';
import { WebhookEndpointsStore } from '../core/webhook-endpoints.store';
import type { SendResult } from '../core/delivery/webhook-sender.service';
import type { DeliveryJobData } from '../core/delivery-job';
import { DeliveryQueue } from '../core/delivery-queue.service';
import { DeliverySweepStore } from './delivery-sweep.store';
import { WorkerOutboxStore } from './outbox.store';
import { BrokerTransports } from '../core/broker-transport/broker-transports.service';

/** How a delivery attempt ended: a short fixed list, so the label stays bounded. */
export type AttemptOutcome = 'success' | 'http_error' | 'timeout' | 'network_error' | 'gone';

/** A PENDING delivery due longer ago than this (or WEBHOOK_TIMEOUT × 2 when longer) counts as overdue. */
export const OVERDUE_GRACE_MS = 2 * 60_000;

export function attemptOutcome(result: SendResult): AttemptOutcome {
  if (result.ok) return 'success';
  if (result.gone) return 'gone';
  if (result.status !== null) return 'http_error';
  return result.error?.startsWith('timeout') ? 'timeout' : 'network_error';
}

/**
 * The worker's delivery series. Attempts are counted where they end (one call from the processor);
 * everything state-like (queue depth, outbox lag, overdue deliveries, disabled endpoints) is read
 * from BullMQ and PostgreSQL when Prometheus scrapes, so no other code has to keep a gauge right.
 * Labels are event types and outcomes only: never a community or endpoint id. Also gives the
 * metrics server its readiness checks (database and Redis answer).
 */
@Injectable()
export class WorkerMetrics {
  private readonly logger = new Logger(WorkerMetrics.name);
  private readonly attempts: Counter<'outcome' | 'event_type'>;
  private readonly latency: Histogram<'attempt'>;
  private readonly heldBackSends: Counter<'reason'>;
  private readonly lapsedSlotLeases: Counter;

  constructor(
    { registry }: MetricsRegistry,
    server: MetricsServer,
    private readonly prisma: PrismaService,
    private readonly queue: DeliveryQueue,
    outbox: WorkerOutboxStore,
    sweep: DeliverySweepStore,
    endpoints: WebhookEndpointsStore,
    config: AppConfig,
    brokers: BrokerTransports,
  ) {
    const registers = [registry];
    this.attempts = new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts that ended, by outcome and event type',
      labelNames: ['outcome', 'event_type'],
      registers,
    });
    this.latency = new Histogram({
      name: 'webhook_delivery_latency_seconds',
      help: "From the event's commit (its outbox row) to the end of a delivery attempt; attempt: first or retry",
      labelNames: ['attempt'],
      // first attempts take milliseconds to seconds; retries follow the schedule up to about a day
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000, 108000],
      registers,
    });

    this.heldBackSends = new Counter({
      name: 'webhook_deliveries_held_back_total',
      help: 'Delivery attempts made to wait instead of being sent (not failures), by reason: rate_limit',
      labelNames: ['reason'],
      registers,
    });

    this.lapsedSlotLeases = new Counter({
      name: 'webhook_endpoint_slot_leases_lapsed_total',
      help: 'Endpoint slot leases found gone while their request ran (not renewed within WEBHOOK_SLOT_LEASE): the endpoint may have had one request more than its cap in flight',
      registers,
    });

    const logger = this.logger;
    /**
     * A gauge computed at scrape time over the label sets it writes (one empty set when unlabelled).
     * A failed read sets them to NaN, "unknown", rather than keeping a stale or zero value, and is logged.
     */
    const scraped = <L extends string>(
      name: string,
      help: string,
      series: Record<L, string>[],
      read: (gauge: Gauge<L>) => Promise<void>,
    ) =>
      new Gauge<L>({
        name,
        help,
        labelNames: Object.keys(series[0]) as L[],
        registers,
        async collect() {
          try {
            await read(this);
          } catch (err) {
            logger.warn(`metric ${name} unknown: ${(err as Error).message}`);
            for (const labels of series) this.set(labels as Partial<Record<L, string>>, NaN);
          }
        },
      });

    const states = ['waiting', 'delayed', 'active'] as const;
    scraped(
      'webhook_queue_jobs',
      'Jobs in the delivery queue, by state',
      states.map((state) => ({ state })),
      async (gauge) => {
        const counts = await this.queue.queue.getJobCounts(...states);
        for (const state of states) gauge.set({ state }, counts[state] ?? 0);
      },
    );
    scraped(
      'outbox_lag_seconds',
      'Age of the oldest outbox event not yet relayed to the queue (0 when none)',
      [{}],
      async (gauge) => gauge.set(await outbox.relayLagSeconds()),
    );
    const overdueGraceMs = Math.max(OVERDUE_GRACE_MS, 2 * config.webhookTimeoutMs);
    scraped(
      'webhook_deliveries_overdue',
      `PENDING deliveries due more than ${overdueGraceMs / 1000}s ago: lost from the queue (the sweep re-enqueues them) or a queue backlog`,
      [{}],
      async (gauge) => gauge.set(await sweep.countOverdue(overdueGraceMs)),
    );
    // both FIFO gauges are collected in the same scrape, at once: one read of the queues serves both
    let backlog: ReturnType<typeof sweep.fifoBacklog> | undefined;
    const fifoBacklog = () =>
      (backlog ??= sweep.fifoBacklog().finally(() => {
        backlog = undefined;
      }));
    scraped(
      'webhook_fifo_endpoints_blocked',
      'FIFO endpoints whose oldest delivery failed and waits for its retry, holding back the ones behind it',
      [{}],
      async (gauge) => gauge.set((await fifoBacklog()).blockedEndpoints),
    );
    scraped(
      'webhook_fifo_deliveries_waiting',
      'Deliveries waiting behind the head of a FIFO endpoint (sent one at a time, in commit order)',
      [{}],
      async (gauge) => gauge.set((await fifoBacklog()).waitingBehindHeads),
    );
    scraped(
      'webhook_endpoints_disabled',
      'Webhook endpoints disabled (410 Gone or failing too long), waiting for their owner to re-enable them',
      [{}],
      async (gauge) => gauge.set(await endpoints.countDisabled()),
    );

    const brokerTypes = ['rabbitmq', 'nats'] as const;
    scraped(
      'webhook_broker_connections',
      "Connections this worker holds to broker destinations (one per endpoint it delivered to), by broker; an endpoint's close when it is paused, disabled or deleted",
      brokerTypes.map((broker) => ({ broker })),
      async (gauge) => {
        const counts = brokers.openByBroker();
        for (const broker of brokerTypes) gauge.set({ broker }, counts[broker]);
      },
    );

    server.addReadinessCheck('database', () => this.prisma.$queryRaw`SELECT 1`);
    // one LLEN through the queue's own (fail-fast) connection: Redis answers and the queue is reachable
    server.addReadinessCheck('redis', () => this.queue.queue.getJobCounts('active'));
  }

  /** An attempt waits instead of being sent: its endpoint's rate limit held it back. */
  heldBack(reason: 'rate_limit'): void {
    this.heldBackSends.inc({ reason });
  }

  /** A renewal found an endpoint slot's lease gone while its request ran (EndpointSlots). */
  slotLeaseLapsed(): void {
    this.lapsedSlotLeases.inc();
  }

  /** One call from the processor when an attempt has been sent and recorded. */
  attemptFinished(job: DeliveryJobData, result: SendResult): void {
    this.attempts.inc({ outcome: attemptOutcome(result), event_type: job.eventType });
    // the body's timestamp is taken in the transaction that writes the outbox row
    const committedAt = Date.parse(job.payload.timestamp);
    if (Number.isFinite(committedAt))
      this.latency.observe(
        { attempt: job.attempt === 1 ? 'first' : 'retry' },
        Math.max(0, (Date.now() - committedAt) / 1000),
      );
  }
}
