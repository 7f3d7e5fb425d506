import { DynamicModule, Module } from '@nestjs/common';
import { HttpMetrics } from './http-metrics';
import { MetricsRegistry } from './metrics-registry';
import { METRICS_PROCESS, MetricsProcess, MetricsServer } from './metrics-server';

/**
 * Prometheus metrics for one process: its registry, the METRICS_PORT server and the HTTP series.
 * Global, so a feature module can register its own series (the worker's delivery metrics) by
 * injecting MetricsRegistry and MetricsServer. Imports nothing from src/modules.
 */
@Module({})
export class MetricsModule {
  static forProcess(process: MetricsProcess): DynamicModule {
    return {
      module: MetricsModule,
      global: true,
      providers: [
        { provide: METRICS_PROCESS, useValue: process },
        MetricsRegistry,
        MetricsServer,
        HttpMetrics,
      ],
      exports: [MetricsRegistry, MetricsServer, HttpMetrics],
    };
  }
}
