/**
 * The drafts of the endpoint form's Client certificate and OAuth 2.0 sections (ClientCertificate.tsx,
 * OAuthClient.tsx) and what a save sends of them (docs/api.md#webhook-portal): pure, so tested without a DOM.
 */
import { localTime, type Webhook, type WebhookBody } from '../api/types';

export type TlsView = NonNullable<Webhook['tls']>;
type TlsInput = NonNullable<WebhookBody['tls']>;

/** How near its expiry a certificate is shown with a warning. */
const WARN_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * `keep`: the stored certificate as it is (or none); `edit`: a new one typed or uploaded (replacing the
 * stored one); `remove`: the stored one goes at the next save.
 */
export interface CertificateDraft {
  mode: 'keep' | 'edit' | 'remove';
  clientCertificate: string;
  clientKey: string;
  caCertificates: string;
}

export function certificateDraftOf(): CertificateDraft {
  return { mode: 'keep', clientCertificate: '', clientKey: '', caCertificates: '' };
}

/** The `tls` to send: undefined keeps what is stored (a create stores none), null removes it. */
export function tlsOfDraft(draft: CertificateDraft): TlsInput | null | undefined {
  if (draft.mode === 'remove') return null;
  if (draft.mode === 'keep') return undefined;
  return {
    clientCertificate: draft.clientCertificate,
    clientKey: draft.clientKey,
    caCertificates: draft.caCertificates.trim() === '' ? null : draft.caCertificates,
  };
}

/** Days until `notAfter` (negative once past), whole days rounded down. */
function daysLeft(notAfter: string, now = Date.now()): number {
  return Math.floor((new Date(notAfter).getTime() - now) / (24 * 60 * 60 * 1000));
}

/** A warning when the certificate expires within 30 days (or has expired), else nothing. */
export function expiryWarning(notAfter: string, now = Date.now()): string | null {
  const left = new Date(notAfter).getTime() - now;
  if (left <= 0) return `The client certificate expired on ${localTime(notAfter)}: replace it.`;
  if (left > WARN_BEFORE_MS) return null;
  const days = daysLeft(notAfter, now);
  const when = days === 0 ? 'today' : days === 1 ? 'in 1 day' : `in ${days} days`;
  return `The client certificate expires ${when} (${localTime(notAfter)}): replace it before then.`;
}

export type AuthView = NonNullable<Webhook['auth']>;
type AuthInput = NonNullable<WebhookBody['auth']>;

export interface OAuthDraft {
  /** whether the endpoint is to have OAuth after the save */
  enabled: boolean;
  tokenUrl: string;
  clientId: string;
  /** typed by the user; empty keeps the stored secret */
  clientSecret: string;
  scope: string;
  audience: string;
  /** the stored secret as reads mask it: sent back to keep it, never shown */
  storedMask: string | null;
}

export function oauthDraftOf(auth: AuthView | null | undefined): OAuthDraft {
  return {
    enabled: !!auth,
    tokenUrl: auth?.tokenUrl ?? '',
    clientId: auth?.clientId ?? '',
    clientSecret: '',
    scope: auth?.scope ?? '',
    audience: auth?.audience ?? '',
    storedMask: auth?.clientSecret ?? null,
  };
}

/**
 * The `auth` to send: undefined when nothing changed (a PATCH keeps the setting, and the token the workers
 * hold for it; a create stores none), null when turned off (removes it), else the whole setting, the stored
 * secret kept by sending its mask back when the box is empty.
 */
export function authOfDraft(draft: OAuthDraft, stored: AuthView | null): AuthInput | null | undefined {
  const optional = (text: string) => (text.trim() === '' ? null : text.trim());
  if (!draft.enabled) return stored ? null : undefined;
  const input: AuthInput = {
    type: 'oauth2_client_credentials',
    tokenUrl: draft.tokenUrl.trim(),
    clientId: draft.clientId,
    clientSecret:
      draft.clientSecret === '' && draft.storedMask !== null ? draft.storedMask : draft.clientSecret,
    scope: optional(draft.scope),
    audience: optional(draft.audience),
  };
  const unchanged =
    stored !== null &&
    draft.clientSecret === '' &&
    input.tokenUrl === stored.tokenUrl &&
    input.clientId === stored.clientId &&
    input.scope === stored.scope &&
    input.audience === stored.audience;
  return unchanged ? undefined : input;
}

/** The API's messages by field (`auth.tokenUrl`, …); one that names no known part shows under the section. */
export type OAuthErrors = Partial<
  Record<'tokenUrl' | 'clientId' | 'clientSecret' | 'scope' | 'audience' | 'auth', string>
>;

export function oauthErrorsOf(fields: Record<string, string>): OAuthErrors {
  const errors: OAuthErrors = {};
  for (const [field, message] of Object.entries(fields)) {
    if (field !== 'auth' && !field.startsWith('auth.')) continue;
    const part = field.slice('auth.'.length) as keyof OAuthErrors;
    const known = ['tokenUrl', 'clientId', 'clientSecret', 'scope', 'audience'].includes(part);
    errors[known ? part : 'auth'] ??= message;
  }
  return errors;
}
