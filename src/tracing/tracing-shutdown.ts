import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { flushTracing } from './tracer';

/**
 * Exports the spans still buffered when the process closes (the API on SIGTERM, the worker once its
 * deliveries have drained), so a restart loses none of the last seconds' spans. Nothing with tracing off.
 */
@Injectable()
export class TracingShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return flushTracing();
  }
}
