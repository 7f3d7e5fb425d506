import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import type { SecretKeyRing } from '../../../../common/crypto/secret-cipher';
import { openText, type SealedText, sealText } from './sealed-text';

/** What a create or PATCH sends as `tls` (docs/api.md#mutual-tls): PEM text. */
export interface TlsInput {
  clientCertificate: string;
  clientKey: string;
  /** one or more CA certificates; replaces the system roots for this endpoint */
  caCertificates?: string | null;
}

/** A certificate as reads show it. */
export interface CertificateSummary {
  subject: string;
  notAfter: string;
}

/** The `tls` field of a read: never the key. */
export interface TlsView {
  clientCertificate: CertificateSummary & { fingerprintSha256: string };
  /** null: the system's roots */
  caCertificates: CertificateSummary[] | null;
}

/** The `tls` column: the certificates as sent, the key sealed by the key ring, and what reads show. */
export interface StoredTls {
  clientCertificate: string;
  caCertificates: string | null;
  key: SealedText;
  view: TlsView;
}

/** The material a TLS connect takes (node:tls options). */
export interface TlsMaterial {
  cert: string;
  key: string;
  ca?: string;
}

/** A `tls` the platform refuses; the message names the part and why, never the key. */
export class TlsProblem extends Error {}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function certificates(pem: string, field: string): X509Certificate[] {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0)
    throw new TlsProblem(`tls.${field} must hold a PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return blocks.map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new TlsProblem(`tls.${field}: certificate ${index + 1} is not a valid PEM certificate`);
    }
  });
}

/** `CN=a\nO=b` (Node's form) as one line: `CN=a, O=b`. */
function subjectOf(cert: X509Certificate): string {
  return cert.subject.split('\n').join(', ');
}

function summary(cert: X509Certificate): CertificateSummary {
  return { subject: subjectOf(cert), notAfter: new Date(cert.validTo).toISOString() };
}

function privateKey(pem: string): KeyObject {
  try {
    return createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    // an encrypted key lands here too: the platform has no passphrase to open it with
    throw new TlsProblem('tls.clientKey must be an unencrypted PEM private key');
  }
}

/**
 * Checks a `tls` as sent and seals its key (docs/api.md#mutual-tls): the certificate (the first of a
 * chain) parses and has not expired, the key parses and is the certificate's, each CA certificate
 * parses. Throws TlsProblem otherwise. Returns the stored form and the certificate's notAfter.
 */
export function sealTls(
  ring: SecretKeyRing,
  input: TlsInput,
  now = new Date(),
): { stored: StoredTls; notAfter: Date } {
  const [leaf] = certificates(input.clientCertificate, 'clientCertificate');
  const notAfter = new Date(leaf.validTo);
  if (notAfter.getTime() <= now.getTime())
    throw new TlsProblem(`tls.clientCertificate expired on ${notAfter.toISOString()}`);
  const key = privateKey(input.clientKey);
  if (!leaf.checkPrivateKey(key)) throw new TlsProblem('tls.clientKey does not match tls.clientCertificate');
  const ca = input.caCertificates ? certificates(input.caCertificates, 'caCertificates') : null;
  return {
    stored: {
      clientCertificate: input.clientCertificate,
      caCertificates: input.caCertificates ?? null,
      key: sealText(ring, input.clientKey),
      view: {
        clientCertificate: { ...summary(leaf), fingerprintSha256: leaf.fingerprint256 },
        caCertificates: ca ? ca.map(summary) : null,
      },
    },
    notAfter,
  };
}

/** What the TLS connect takes; throws when the key will not open (its key left the ring). */
export function tlsMaterial(ring: SecretKeyRing, stored: StoredTls): TlsMaterial {
  return {
    cert: stored.clientCertificate,
    key: openText(ring, stored.key),
    ...(stored.caCertificates ? { ca: stored.caCertificates } : {}),
  };
}
