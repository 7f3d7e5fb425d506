import type { AppConfig } from '../../../config/app-config';
import { durationMs } from '../../../config/config-validation';

/*
 * An endpoint's own delivery settings (docs/api.md#webhooks, "Delivery settings"): `retrySchedule`, the
 * waits before attempts 2, 3, …, and `timeoutMs`, each send's timeout; null stands for the platform's
 * WEBHOOK_RETRY_SCHEDULE / WEBHOOK_TIMEOUT. The API checks and converts them here, the worker resolves
 * them here, so both read one rule.
 */

export const MIN_RETRY_DELAYS = 1;
export const MAX_RETRY_DELAYS = 20;
export const MIN_RETRY_DELAY_MS = 1_000;
export const MAX_RETRY_DELAY_MS = 24 * 3_600_000;
export const MIN_ENDPOINT_TIMEOUT_MS = 1_000;
export const MAX_ENDPOINT_TIMEOUT_MS = 30_000;

const DELAY_EXAMPLE = '"30s", "5m" or "2h"';

/**
 * Milliseconds of one delay as the platform's settings read durations (the same parser), or what is
 * wrong with it. A unit is required: the parser takes a bare number for milliseconds, which a person
 * writing `"30"` rarely means.
 */
function parseDelay(value: unknown, index: number): number | string {
  const name = `retrySchedule[${index}]`;
  const got = typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
  const shape = `${name} must be a delay with a unit such as ${DELAY_EXAMPLE}, got ${got}`;
  if (typeof value !== 'string' || !/[a-z]\s*$/i.test(value)) return shape;
  let ms: number;
  try {
    ms = Math.round(durationMs(value));
  } catch {
    return shape;
  }
  if (ms < MIN_RETRY_DELAY_MS || ms > MAX_RETRY_DELAY_MS)
    return `${name} must be between 1s and 24h, got ${got}`;
  return ms;
}

/** What is wrong with a `retrySchedule` as a request sent it (null: nothing), naming the first bad delay by index. */
export function retryScheduleProblem(value: unknown): string | null {
  if (!Array.isArray(value))
    return `retrySchedule must be a list of delays such as ${DELAY_EXAMPLE}, or null for the platform's schedule`;
  if (value.length < MIN_RETRY_DELAYS || value.length > MAX_RETRY_DELAYS)
    return `retrySchedule must hold ${MIN_RETRY_DELAYS} to ${MAX_RETRY_DELAYS} delays, got ${value.length}`;
  for (const [index, entry] of value.entries()) {
    const parsed = parseDelay(entry, index);
    if (typeof parsed === 'string') return parsed;
  }
  return null;
}

/** The delays of a schedule that retryScheduleProblem accepted, in milliseconds. */
export function retryScheduleMs(delays: readonly string[]): number[] {
  return delays.map((delay, index) => {
    const parsed = parseDelay(delay, index);
    if (typeof parsed === 'string') throw new Error(parsed);
    return parsed;
  });
}

/** A delay as reads show it: in the largest unit that states it whole (90000 → "90s", 7200000 → "2h"). */
export function formatDelay(ms: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * The stored schedule as reads show it. The column holds milliseconds, `{}` for none (a list column
 * cannot be null through Prisma), and reads show that as null: the platform's schedule.
 */
export function retryScheduleView(storedMs: readonly number[]): string[] | null {
  return storedMs.length === 0 ? null : storedMs.map(formatDelay);
}

/** The schedule an endpoint's attempts follow: its own, or the platform's when it has none. */
export function scheduleFor(
  endpointMs: readonly number[] | null | undefined,
  platformMs: number[],
): readonly number[] {
  return endpointMs && endpointMs.length > 0 ? endpointMs : platformMs;
}

/**
 * The longest any send may take: WEBHOOK_TIMEOUT, or the longest timeout an endpoint may set. What
 * must outlive a send without knowing its endpoint's timeout (the delivery client's connect limit, a
 * claim the sweep judges after its endpoint changed) allows this long.
 */
export function longestSendMs(config: Pick<AppConfig, 'webhookTimeoutMs'>): number {
  return Math.max(config.webhookTimeoutMs, MAX_ENDPOINT_TIMEOUT_MS);
}
