import { useTracing } from './tracer';

/**
 * Tracing is on when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), unless OTEL_SDK_DISABLED=true: the standard variables, read
 * by the SDK itself; the service adds none of its own (docs/operations.md#tracing).
 */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

/**
 * The exporter speaks OTLP over HTTP with JSON bodies only: a line saying so when the standard
 * protocol variable asks for another (every collector also takes http/json on port 4318). Null when fine.
 */
export function protocolWarning(env: NodeJS.ProcessEnv): string | null {
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (!protocol || protocol === 'http/json') return null;
  return `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: spans are sent as http/json`;
}

/**
 * Starts tracing in this process when it is configured; called by src/main.ts and src/worker.ts once
 * `.env` is loaded (preflight), before Nest starts. The SDK is required only here, behind the check,
 * so a process without an endpoint never loads it. `role` names the service when OTEL_SERVICE_NAME
 * does not.
 */
export function startTracing(role: 'api' | 'worker', env: NodeJS.ProcessEnv = process.env): boolean {
  if (!tracingConfigured(env)) return false;
  const warning = protocolWarning(env);
  if (warning) process.stderr.write(`[${role}] ${warning}\n`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createOtelTracing } = require('./otel-tracing') as typeof import('./otel-tracing');
  useTracing(createOtelTracing(`community-platform-${role}`));
  return true;
}
