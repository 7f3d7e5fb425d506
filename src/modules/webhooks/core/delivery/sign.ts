import { createHmac } from 'node:crypto';

/** Standard Webhooks' secret prefix: what follows it is the base64 key. */
export const SECRET_PREFIX = 'whsec_';

/**
 * Standard Webhooks `v1` signature of one message under one secret: base64 HMAC-SHA256 of
 * "{id}.{unix seconds}.{body}" keyed by the base64-decoded secret. Node's HMAC instead of the
 * `standardwebhooks` package's pure-JS one (the unit spec proves both agree, and that the package
 * verifies what this produces).
 */
export function signV1(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
  const mac = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header: one `v1,<sig>` per live secret, space-separated. */
export function signatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets.map((secret) => signV1(secret, messageId, timestampSeconds, body)).join(' ');
}
