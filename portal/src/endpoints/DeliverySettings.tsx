import type { Webhook } from '../api/types';

/** The form's delivery settings as typed; empty is the platform's setting (docs/api.md#webhooks, "Delivery settings"). */
export interface SettingsDraft {
  /** delays before attempts 2, 3, …, comma-separated, each with its unit ("30s, 5m, 2h") */
  retrySchedule: string;
  timeoutMs: string;
}

export function settingsOf(webhook: Webhook | null): SettingsDraft {
  return {
    retrySchedule: webhook?.retrySchedule?.join(', ') ?? '',
    timeoutMs: webhook?.timeoutMs?.toString() ?? '',
  };
}

/** How the card says an endpoint's delivery settings. */
export function settingsText(webhook: Webhook): string {
  const retries = webhook.retrySchedule ? webhook.retrySchedule.join(', ') : "the platform's";
  const timeout = webhook.timeoutMs === null ? "the platform's" : `${webhook.timeoutMs} ms`;
  return `Retries after: ${retries} · Timeout: ${timeout}`;
}

/** The endpoint form's part for the retry schedule and the timeout; the rules and their messages are the API's. */
export function DeliverySettings({
  draft,
  onChange,
  errors,
}: {
  draft: SettingsDraft;
  onChange: (draft: SettingsDraft) => void;
  errors: { retrySchedule?: string; timeoutMs?: string };
}) {
  return (
    <fieldset aria-describedby="settings-hint">
      <legend>Delivery settings</legend>
      <p id="settings-hint" class="muted">
        Empty: the platform's. A change applies from the next attempt sent.
      </p>
      <label for="retry-schedule">Retry schedule (waits before each retry, e.g. 30s, 5m, 2h)</label>
      <input
        id="retry-schedule"
        type="text"
        spellcheck={false}
        autoComplete="off"
        value={draft.retrySchedule}
        aria-invalid={!!errors.retrySchedule}
        aria-describedby="retry-schedule-error"
        onInput={(e) => onChange({ ...draft, retrySchedule: e.currentTarget.value })}
      />
      <p id="retry-schedule-error" class="field-error">
        {errors.retrySchedule}
      </p>
      <label for="timeout-ms">Timeout of each send (milliseconds, 1000–30000)</label>
      <input
        id="timeout-ms"
        type="number"
        min={1000}
        max={30000}
        step={1}
        inputMode="numeric"
        value={draft.timeoutMs}
        aria-invalid={!!errors.timeoutMs}
        aria-describedby="timeout-ms-error"
        onInput={(e) => onChange({ ...draft, timeoutMs: e.currentTarget.value })}
      />
      <p id="timeout-ms-error" class="field-error">
        {errors.timeoutMs}
      </p>
    </fieldset>
  );
}
