import { localTime, type Delivery } from '../api/types';
import { CopyButton } from '../shared/ui';
import { sentText } from './message-times';

/** What a test shows of the target's answer: its beginning, the log keeps the rest. */
const BODY_PREVIEW_CHARS = 300;

function bodyPreview(body: string): string {
  return body.length > BODY_PREVIEW_CHARS
    ? `${body.slice(0, BODY_PREVIEW_CHARS)}… (${body.length} characters in all)`
    : body;
}

/** An attempt in full (the log's Details); `brief` keeps what a test's outcome needs and the body's beginning. */
export function AttemptDetail({ delivery, brief = false }: { delivery: Delivery; brief?: boolean }) {
  const body = delivery.responseBody;
  return (
    <dl class="detail">
      <dt>Status</dt>
      <dd>{delivery.status}</dd>
      <dt>Response status</dt>
      <dd>{delivery.responseStatus ?? '—'}</dd>
      <dt>Error</dt>
      <dd>{delivery.error ?? '—'}</dd>
      <dt>Duration</dt>
      <dd>{delivery.durationMs === null ? '—' : `${delivery.durationMs} ms`}</dd>
      <dt>{brief ? 'Response body (beginning)' : 'Response body'}</dt>
      <dd>
        <pre>{body === null || body === '' ? '—' : brief ? bodyPreview(body) : body}</pre>
      </dd>
      <dt>Message</dt>
      <dd class="row">
        <code data-testid="message-id">{delivery.messageId}</code>
        <CopyButton text={delivery.messageId} label="Copy message id" />
      </dd>
      <dt>Sent</dt>
      <dd>{sentText(delivery.sentAt, localTime)}</dd>
      {!brief && (
        <>
          <dt>Attempt</dt>
          <dd>
            {delivery.attempt} <span class="muted">({delivery.trigger})</span>
          </dd>
          <dt>Logged</dt>
          <dd>
            {localTime(delivery.createdAt)}
            {delivery.attempt > 1 && <span class="muted"> (when the attempt before it failed)</span>}
          </dd>
          <dt>Next attempt</dt>
          <dd>{localTime(delivery.nextAttemptAt)}</dd>
          <dt>Event body</dt>
          <dd>
            <pre>{delivery.payload ? JSON.stringify(delivery.payload, null, 2) : '— (no longer kept)'}</pre>
          </dd>
        </>
      )}
    </dl>
  );
}

/** A test's outcome in its card: a failed one with what the target answered, not only a line. */
export function TestResult({ delivery, failure }: { delivery: Delivery; failure: string | null }) {
  return (
    <div
      class={`card test-result${failure ? ' failed' : ''}`}
      data-testid="test-result"
      role={failure ? undefined : 'status'}
    >
      <h3>
        Test delivery: <code>{delivery.eventType}</code>
      </h3>
      {failure && (
        <p class="error" role="alert">
          {failure}
        </p>
      )}
      <AttemptDetail delivery={delivery} brief />
    </div>
  );
}
