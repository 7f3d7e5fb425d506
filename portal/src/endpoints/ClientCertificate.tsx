/**
 * An endpoint's client certificate in the portal (docs/api.md#mutual-tls): the PEM certificate and key the
 * platform presents to a receiver that demands one, and optionally the CA certificates that replace the
 * system roots for it. Reads never carry the key, only the certificate's subject, fingerprint and expiry, so
 * the form shows those and offers to replace or remove the whole setting; a PATCH without `tls` keeps it.
 * The rules (the key matches, not expired, valid PEM, https only) are the API's; its 400 shows here.
 */
import type { ComponentChildren } from 'preact';
import type { Webhook } from '../api/types';
import { localTime } from '../api/types';
import { type CertificateDraft, certificateDraftOf, expiryWarning, type TlsView } from './transport-drafts';

/** What a read says of the certificate: subject, fingerprint, expiry (with its warning) and the CAs. */
export function CertificateSummary({ tls, id }: { tls: TlsView; id: string }) {
  const { clientCertificate: cert, caCertificates } = tls;
  const warning = expiryWarning(cert.notAfter);
  return (
    <div class="certificate" data-testid="certificate-summary">
      <dl class="facts">
        <dt>Subject</dt>
        <dd data-testid="certificate-subject">{cert.subject}</dd>
        <dt>SHA-256 fingerprint</dt>
        <dd>
          <code class="fingerprint" data-testid="certificate-fingerprint">
            {cert.fingerprintSha256}
          </code>
        </dd>
        <dt>Expires</dt>
        <dd data-testid="certificate-expiry">{localTime(cert.notAfter)}</dd>
        <dt>Server certificate checked against</dt>
        <dd id={`ca-of-${id}`}>
          {caCertificates === null
            ? "the system's root certificates"
            : caCertificates.map((ca) => `${ca.subject} (until ${localTime(ca.notAfter)})`).join('; ')}
        </dd>
      </dl>
      {warning && (
        <p class="warning" role="status" data-testid="certificate-warning">
          {warning}
        </p>
      )}
    </div>
  );
}

/** A PEM text box with a button that reads a file into it. */
function PemField({
  id,
  label,
  value,
  onChange,
  placeholder,
  describedBy,
}: {
  id: string;
  label: ComponentChildren;
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  describedBy: string;
}) {
  return (
    <div class="pem">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        rows={4}
        spellcheck={false}
        autoComplete="off"
        placeholder={placeholder}
        value={value}
        aria-describedby={describedBy}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
      <label class="file">
        <span>
          Or upload a file<span class="sr-only"> for {label}</span>:{' '}
        </span>
        <input
          type="file"
          accept=".pem,.crt,.cer,.key,text/plain,application/x-pem-file"
          onChange={async (e) => {
            const file = e.currentTarget.files?.[0];
            if (file) onChange(await file.text());
            // the same file chosen again after an edit still loads
            e.currentTarget.value = '';
          }}
        />
      </label>
    </div>
  );
}

/** The endpoint form's part for the client certificate. */
export function ClientCertificate({
  stored,
  draft,
  onChange,
  error,
}: {
  /** the certificate the endpoint has now (null: none, or a new endpoint) */
  stored: TlsView | null;
  draft: CertificateDraft;
  onChange: (draft: CertificateDraft) => void;
  error: string | undefined;
}) {
  const set = (change: Partial<CertificateDraft>) => onChange({ ...draft, ...change });
  return (
    <fieldset aria-describedby="tls-hint tls-error">
      <legend>Client certificate</legend>
      <p id="tls-hint" class="muted">
        For a receiver that demands a client certificate (mutual TLS, https only): the platform presents it
        with every delivery and test. The key is stored encrypted and never shown again.
      </p>
      {stored && draft.mode !== 'edit' && <CertificateSummary tls={stored} id="form" />}
      {draft.mode === 'remove' && (
        <p class="warning" data-testid="certificate-removed">
          The client certificate will be removed when you save.
        </p>
      )}
      {draft.mode === 'edit' && (
        <>
          {stored && <p class="muted">The new certificate and key replace the stored ones when you save.</p>}
          <PemField
            id="tls-certificate"
            label="Certificate (PEM, optionally followed by its intermediates)"
            value={draft.clientCertificate}
            onChange={(clientCertificate) => set({ clientCertificate })}
            placeholder="-----BEGIN CERTIFICATE-----"
            describedBy="tls-error"
          />
          <PemField
            id="tls-key"
            label="Private key (PEM, unencrypted)"
            value={draft.clientKey}
            onChange={(clientKey) => set({ clientKey })}
            placeholder="-----BEGIN PRIVATE KEY-----"
            describedBy="tls-error"
          />
          <PemField
            id="tls-ca"
            label="CA certificates for the receiver's server certificate (optional; empty: the system's roots)"
            value={draft.caCertificates}
            onChange={(caCertificates) => set({ caCertificates })}
            placeholder="-----BEGIN CERTIFICATE-----"
            describedBy="tls-error"
          />
        </>
      )}
      <div class="row">
        {draft.mode !== 'edit' && (
          <button type="button" onClick={() => set({ mode: 'edit' })}>
            {stored ? 'Replace certificate' : 'Add client certificate'}
          </button>
        )}
        {draft.mode === 'edit' && (
          <button type="button" onClick={() => onChange(certificateDraftOf())}>
            {stored ? 'Keep the stored certificate' : 'No client certificate'}
          </button>
        )}
        {stored && draft.mode !== 'remove' && (
          <button type="button" class="danger" onClick={() => set({ mode: 'remove' })}>
            Remove certificate
          </button>
        )}
        {draft.mode === 'remove' && (
          <button type="button" onClick={() => onChange(certificateDraftOf())}>
            Keep it
          </button>
        )}
      </div>
      <p id="tls-error" class="field-error">
        {error}
      </p>
    </fieldset>
  );
}

/** The card's line: the certificate's subject and expiry, with the warning near it; nothing without one. */
export function CertificateLine({ tls }: { tls: Webhook['tls'] }) {
  if (!tls) return null;
  const warning = expiryWarning(tls.clientCertificate.notAfter);
  return (
    <div class="certificate-line">
      <p class="muted" data-testid="card-certificate">
        Client certificate: {tls.clientCertificate.subject} · expires{' '}
        {localTime(tls.clientCertificate.notAfter)}
      </p>
      {warning && (
        <p class="warning" data-testid="card-certificate-warning">
          {warning}
        </p>
      )}
    </div>
  );
}
