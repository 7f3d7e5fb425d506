import { startSpan, type TraceSpan } from '../../../../tracing/tracer';
import type { AttemptKey } from '../delivery-job';
import type { SendResult } from './webhook-sender.service';

/**
 * The span of one delivery attempt (docs/operations.md#tracing): a child of the span whose trace
 * context the attempt row carries, the API request that raised the event, so every attempt of an
 * event, retries and resends included, is a further child of that request in its trace. Undefined
 * when the attempt carries no trace context (tracing was off in the API, or the trace not sampled)
 * or tracing is off here: a null check is all an attempt pays then.
 *
 * Attributes name the attempt, never what it carried: no URL (it may hold a token), no header, no
 * body, no secret.
 */
export function startAttemptSpan(traceparent: string | null, attempt: AttemptKey): TraceSpan | undefined {
  if (traceparent === null) return undefined;
  return startSpan('webhook.attempt', {
    kind: 'client',
    parent: traceparent,
    attributes: {
      'webhook.message_id': attempt.messageId,
      'webhook.endpoint_id': attempt.endpointId,
      'webhook.event_type': attempt.eventType,
      'webhook.attempt': attempt.attempt,
      'app.community_id': attempt.communityId,
    },
  });
}

/** Ends an attempt's span with its outcome; a failure is the span's error, with the delivery log's text. */
export function endAttemptSpan(span: TraceSpan, result: SendResult, nextAttempt: number | null): void {
  span.setAttributes({
    'webhook.outcome': result.ok ? 'SUCCESS' : 'FAILED',
    'http.response.status_code': result.status,
    'webhook.duration_ms': result.durationMs,
    'webhook.next_attempt': nextAttempt,
  });
  span.end(result.ok ? null : (result.error ?? 'delivery failed'));
}
