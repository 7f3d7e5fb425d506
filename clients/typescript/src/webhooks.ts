import { Webhook as StandardWebhook } from 'standardwebhooks';
import type { AnyWebhookEvent, WebhookEventOf, WebhookEventType } from './types.js';

export type { AnyWebhookEvent, WebhookEventOf, WebhookEventType };

/**
 * The body of every delivery (`webhook-id` header = `id`): for one type `T`, that event with its typed
 * `data`; without `T`, the union of every event of the catalog (narrow it on `type`).
 */
export type WebhookEvent<T extends WebhookEventType = WebhookEventType> = { [K in T]: WebhookEventOf<K> }[T];

export type WebhookVerificationFailure =
  'missing-header' | 'invalid-timestamp' | 'stale-timestamp' | 'no-matching-signature' | 'invalid-body';

/** A delivery that must not be trusted; `reason` says why. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

export type WebhookHeaders =
  Headers | Record<string, string | string[] | undefined> | { get(name: string): string | null };

export interface VerifyWebhookOptions {
  /** How far the `webhook-timestamp` may be from now, either way. Default 300 s (Standard Webhooks). */
  toleranceSeconds?: number;
  /** The current time, for tests. */
  now?: Date | number;
}

/**
 * Checks a delivery's Standard Webhooks signature and returns its event. The service signs every
 * delivery with every live secret of the endpoint (one `v1,` entry each), so during a rotation pass
 * all secrets you hold: the delivery is accepted when any one matches. A timestamp outside the
 * tolerance is refused (replay protection). Throws WebhookVerificationError.
 *
 * `rawBody` must be the bytes as received, before any JSON parsing.
 */
export function verifyWebhook(
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): AnyWebhookEvent {
  const secretList = typeof secrets === 'string' ? [secrets] : [...secrets];
  if (secretList.length === 0) throw new TypeError('verifyWebhook needs at least one secret (whsec_...)');
  const id = header(headers, 'webhook-id');
  const timestampHeader = header(headers, 'webhook-timestamp');
  const signatureHeader = header(headers, 'webhook-signature');
  if (!id || !timestampHeader || !signatureHeader) {
    throw new WebhookVerificationError(
      'missing-header',
      'The webhook-id, webhook-timestamp and webhook-signature headers are all required',
    );
  }
  if (!/^\d{1,15}$/.test(timestampHeader)) {
    throw new WebhookVerificationError(
      'invalid-timestamp',
      `webhook-timestamp "${timestampHeader}" is not unix seconds`,
    );
  }
  const timestamp = Number(timestampHeader);
  const now = Math.floor(Number(options.now ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookVerificationError(
      'stale-timestamp',
      `webhook-timestamp is ${now - timestamp} s from now, beyond the ${tolerance} s tolerance`,
    );
  }
  let body: string;
  try {
    body = typeof rawBody === 'string' ? rawBody : new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
  } catch {
    throw new WebhookVerificationError('invalid-body', 'The body is not UTF-8');
  }
  const given = signatureHeader
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice(3));
  const signedAt = new Date(timestamp * 1000);
  const matches = secretList.some((secret) => {
    const expected = new StandardWebhook(secret).sign(id, signedAt, body).slice(3);
    return given.some((signature) => constantTimeEqual(signature, expected));
  });
  if (!matches) {
    throw new WebhookVerificationError(
      'no-matching-signature',
      'No signature matches any of the given secrets',
    );
  }
  try {
    return JSON.parse(body) as AnyWebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid-body', 'The signed body is not JSON');
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

/** Compares without stopping at the first difference, so timing reveals nothing of the signature. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
