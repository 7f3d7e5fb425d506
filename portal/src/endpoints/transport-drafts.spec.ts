import {
  authOfDraft,
  certificateDraftOf,
  expiryWarning,
  oauthDraftOf,
  oauthErrorsOf,
  tlsOfDraft,
  type AuthView,
} from './transport-drafts';

const DAY = 24 * 60 * 60 * 1000;

/** What the endpoint form sends of its Client certificate and OAuth 2.0 sections (docs/api.md#webhook-portal). */
describe("the endpoint form's certificate and OAuth drafts", () => {
  it('warns of a certificate that expires within 30 days or has expired, not of a later one', () => {
    const now = Date.parse('2026-12-06T12:00:00Z');
    const at = (ms: number) => new Date(now + ms).toISOString();
    expect(expiryWarning(at(31 * DAY), now)).toBeNull();
    expect(expiryWarning(at(30 * DAY), now)).toMatch(/expires in 30 days/);
    expect(expiryWarning(at(20 * DAY + 3_600_000), now)).toMatch(/expires in 20 days/);
    expect(expiryWarning(at(3_600_000), now)).toMatch(/expires today/);
    expect(expiryWarning(at(-DAY), now)).toMatch(/^The client certificate expired on/);
  });

  it('leaves tls out while the stored certificate is kept (the page never has its key), null to remove it', () => {
    const draft = certificateDraftOf();
    expect(tlsOfDraft(draft)).toBeUndefined();
    expect(tlsOfDraft({ ...draft, mode: 'remove' })).toBeNull();
    expect(
      tlsOfDraft({ mode: 'edit', clientCertificate: 'CERT', clientKey: 'KEY', caCertificates: '  ' }),
    ).toEqual({ clientCertificate: 'CERT', clientKey: 'KEY', caCertificates: null });
  });

  const stored: AuthView = {
    type: 'oauth2_client_credentials',
    tokenUrl: 'https://login.example/token',
    clientId: 'platform',
    clientSecret: '…2c4e',
    scope: 'hooks',
    audience: null,
  };

  it('leaves auth out while unchanged (the workers keep their token), and keeps the secret by its mask', () => {
    const draft = oauthDraftOf(stored);
    expect(draft.clientSecret).toBe('');
    expect(authOfDraft(draft, stored)).toBeUndefined();
    // another scope: the whole setting goes, the secret as the read masked it, which the API keeps
    expect(authOfDraft({ ...draft, scope: 'hooks.read' }, stored)).toEqual({
      type: 'oauth2_client_credentials',
      tokenUrl: 'https://login.example/token',
      clientId: 'platform',
      clientSecret: '…2c4e',
      scope: 'hooks.read',
      audience: null,
    });
    // a new secret typed: sent as typed
    expect(authOfDraft({ ...draft, clientSecret: 'new-secret' }, stored)?.clientSecret).toBe('new-secret');
    // turned off: null removes it; never set on a new endpoint: nothing sent
    expect(authOfDraft({ ...draft, enabled: false }, stored)).toBeNull();
    expect(authOfDraft(oauthDraftOf(null), null)).toBeUndefined();
  });

  it('puts the API’s messages beside their fields, and any other of auth under the section', () => {
    expect(
      oauthErrorsOf({
        'auth.tokenUrl': 'auth.tokenUrl must be https',
        'auth.type': 'auth.type must be oauth2_client_credentials',
        tls: 'tls.clientKey does not match',
        url: 'url must be https',
      }),
    ).toEqual({
      tokenUrl: 'auth.tokenUrl must be https',
      auth: 'auth.type must be oauth2_client_credentials',
    });
  });
});
