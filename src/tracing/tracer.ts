/**
 * What the rest of the code knows of tracing: a few functions that do nothing until
 * src/tracing/start-tracing.ts has started OpenTelemetry (only when an OTLP endpoint is configured).
 * No file but src/tracing/otel-tracing.ts imports an `@opentelemetry/` package, so with tracing off
 * none of the SDK is loaded, and each traced place costs one null check.
 */

/** An attribute value as OpenTelemetry takes it. */
export type SpanAttributes = Record<string, string | number | boolean | null | undefined>;

/** The kinds of span the service makes: an API request, a relay of an event, a delivery attempt. */
export type SpanKind = 'server' | 'internal' | 'client';

/** A started, sampled span. */
export interface TraceSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** this span's W3C trace context (`00-<trace id>-<span id>-01`): what is stored and sent on */
  readonly traceparent: string;
  setAttributes(attributes: SpanAttributes): void;
  /** ends the span; an `error` marks it failed, with that text as its status message */
  end(error?: string | null): void;
}

export interface SpanOptions {
  kind: SpanKind;
  /** a stored traceparent: the span continues that trace as its child; none: a trace of its own */
  parent?: string | null;
  attributes?: SpanAttributes;
  /** when the span began (epoch ms), if before now */
  startTime?: number;
}

/** The tracing behind these functions (OtelTracing), set once at start-up. */
export interface Tracing {
  /** undefined when the sampler drops the span (nothing then is stored, sent or logged of it) */
  startSpan(name: string, options: SpanOptions): TraceSpan | undefined;
  /** exports what is buffered and stops */
  shutdown(): Promise<void>;
}

let current: Tracing | null = null;

/** Called by startTracing only. */
export function useTracing(tracing: Tracing | null): void {
  current = tracing;
}

/** Whether tracing is on in this process. */
export function tracingEnabled(): boolean {
  return current !== null;
}

/** A span, or undefined when tracing is off or the sampler dropped it. */
export function startSpan(name: string, options: SpanOptions): TraceSpan | undefined {
  return current === null ? undefined : current.startSpan(name, options);
}

/** Exports the spans still buffered (at shutdown); nothing when tracing is off. */
export async function flushTracing(): Promise<void> {
  const tracing = current;
  current = null;
  await tracing?.shutdown();
}
