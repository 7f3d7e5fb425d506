/**
 * The one file that imports OpenTelemetry. Loaded by startTracing only when an OTLP endpoint is
 * configured (a require() behind that check), so a process without one never loads any of it.
 *
 * Spans are made by hand where the service knows what they mean (the API request that changed data,
 * the relay of its event, each delivery attempt) rather than by instrumentation libraries, which
 * would patch node:http, pg and undici and make a span of every query and read. No context manager
 * either: the API keeps its request's span in the request scope it already has (src/logging/request-id.ts),
 * and the worker carries the trace context in the outbox and attempt rows.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanOptions, TraceSpan, Tracing } from './tracer';

const KINDS: Record<SpanOptions['kind'], SpanKind> = {
  server: SpanKind.SERVER,
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
};

/**
 * The SDK as the standard variables configure it: the exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT,
 * _HEADERS and _TIMEOUT, the provider OTEL_TRACES_SAMPLER(_ARG) and the span limits, the batch processor
 * OTEL_BSP_*, the resource OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; `defaultServiceName` applies
 * when OTEL_SERVICE_NAME is unset.
 */
export function createOtelTracing(defaultServiceName: string): Tracing {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': defaultServiceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  return new OtelTracing(provider.getTracer('community-platform'), provider);
}

class OtelTracing implements Tracing {
  constructor(
    private readonly tracer: Tracer,
    private readonly provider: BasicTracerProvider,
  ) {}

  startSpan(name: string, options: SpanOptions): TraceSpan | undefined {
    let parent = ROOT_CONTEXT;
    if (options.parent) {
      const stored = parseTraceParent(options.parent);
      // a malformed stored value starts no span: it is never a reason to fail a delivery
      if (!stored) return undefined;
      parent = trace.setSpanContext(ROOT_CONTEXT, { ...stored, isRemote: true });
    }
    const span = this.tracer.startSpan(
      name,
      { kind: KINDS[options.kind], attributes: defined(options.attributes), startTime: options.startTime },
      parent,
    );
    const { traceId, spanId, traceFlags } = span.spanContext();
    // a span the sampler dropped is neither stored nor sent on: nobody could look it up
    if ((traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
    return {
      traceId,
      spanId,
      traceparent: `00-${traceId}-${spanId}-01`,
      setAttributes: (attributes) => span.setAttributes(defined(attributes)),
      end: (error) => {
        if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
        span.end();
      },
    };
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}

/** OpenTelemetry refuses null and undefined attribute values: they are left out. */
function defined(attributes: SpanOptions['attributes']): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(attributes ?? {}))
    if (value !== null && value !== undefined) out[name] = value;
  return out;
}
