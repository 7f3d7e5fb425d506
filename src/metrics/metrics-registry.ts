import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's one Prometheus registry (one per Nest application, so tests that boot several apps
 * in one process keep them apart), with Node's default process metrics (CPU, memory, event-loop
 * lag, GC, handles). Metric classes register their series on `registry`.
 */
@Injectable()
export class MetricsRegistry {
  readonly registry = new Registry();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** The exposition text (runs every collect() callback: scrape-time gauges). */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
