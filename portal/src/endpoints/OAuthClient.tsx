/**
 * An endpoint's OAuth 2.0 client credentials in the portal (docs/api.md#oauth-20-client-credentials): the
 * platform gets a token from the token URL and sends it as `Authorization: Bearer`. The client secret is
 * write-only: reads carry it masked, and a PATCH that sends the masked value back keeps the stored one. So
 * the form never shows it, only whether one is set; an empty box keeps it. The rules (the token URL's, the
 * lengths) are the API's; its 400 shows beside the field it names.
 */
import type { Webhook } from '../api/types';
import type { AuthView, OAuthDraft, OAuthErrors } from './transport-drafts';

function TextField({
  id,
  label,
  value,
  onInput,
  error,
  type = 'text',
  inputMode,
  placeholder,
}: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  error: string | undefined;
  type?: 'text' | 'password';
  inputMode?: 'url';
  placeholder?: string;
}) {
  return (
    <>
      <label for={id}>{label}</label>
      {/* a secret's box hides what is typed: someone beside the screen never reads it */}
      {type === 'password' ? (
        <input
          id={id}
          type="password"
          autoComplete="new-password"
          value={value}
          aria-invalid={!!error}
          aria-describedby={`${id}-error`}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      ) : (
        <input
          id={id}
          type="text"
          inputMode={inputMode}
          spellcheck={false}
          autoComplete="off"
          placeholder={placeholder}
          value={value}
          aria-invalid={!!error}
          aria-describedby={`${id}-error`}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      )}
      <p id={`${id}-error`} class="field-error">
        {error}
      </p>
    </>
  );
}

/** The endpoint form's part for OAuth 2.0 client credentials. */
export function OAuthClient({
  stored,
  draft,
  onChange,
  errors,
}: {
  /** what the endpoint has now (null: none, or a new endpoint) */
  stored: AuthView | null;
  draft: OAuthDraft;
  onChange: (draft: OAuthDraft) => void;
  errors: OAuthErrors;
}) {
  const set = (change: Partial<OAuthDraft>) => onChange({ ...draft, ...change });
  const secretSet = draft.storedMask !== null;
  return (
    <fieldset aria-describedby="oauth-hint oauth-error">
      <legend>OAuth 2.0</legend>
      <p id="oauth-hint" class="muted">
        For a receiver that demands an OAuth token: the platform gets one from the token URL with these client
        credentials (client_secret_basic), keeps it until shortly before it expires and sends it as{' '}
        <code>Authorization: Bearer</code>.
      </p>
      {!draft.enabled && stored && (
        <p class="warning" data-testid="oauth-removed">
          OAuth 2.0 will be removed when you save.
        </p>
      )}
      {draft.enabled && (
        <>
          <TextField
            id="oauth-token-url"
            label="Token URL"
            inputMode="url"
            placeholder="https://login.example.com/oauth2/token"
            value={draft.tokenUrl}
            onInput={(tokenUrl) => set({ tokenUrl })}
            error={errors.tokenUrl}
          />
          <TextField
            id="oauth-client-id"
            label="Client id"
            value={draft.clientId}
            onInput={(clientId) => set({ clientId })}
            error={errors.clientId}
          />
          <p class="muted" data-testid="oauth-secret-state">
            Client secret: {secretSet ? 'set' : 'not set'}
            {secretSet ? ' (leave the box empty to keep it, or type a new one)' : ''}
          </p>
          <TextField
            id="oauth-client-secret"
            label={secretSet ? 'New client secret' : 'Client secret'}
            type="password"
            value={draft.clientSecret}
            onInput={(clientSecret) => set({ clientSecret })}
            error={errors.clientSecret}
          />
          <TextField
            id="oauth-scope"
            label="Scope (optional)"
            value={draft.scope}
            onInput={(scope) => set({ scope })}
            error={errors.scope}
          />
          <TextField
            id="oauth-audience"
            label="Audience (optional; some providers require it)"
            value={draft.audience}
            onInput={(audience) => set({ audience })}
            error={errors.audience}
          />
        </>
      )}
      <div class="row">
        {!draft.enabled && (
          <button type="button" onClick={() => set({ enabled: true })}>
            {stored ? 'Keep OAuth 2.0' : 'Add OAuth 2.0'}
          </button>
        )}
        {draft.enabled && (
          <button type="button" class="danger" onClick={() => set({ enabled: false })}>
            {stored ? 'Remove OAuth 2.0' : 'No OAuth 2.0'}
          </button>
        )}
      </div>
      <p id="oauth-error" class="field-error">
        {errors.auth}
      </p>
    </fieldset>
  );
}

/** The card's line: the client id and token URL; never the secret, not even masked. */
export function OAuthLine({ auth }: { auth: Webhook['auth'] }) {
  if (!auth) return null;
  return (
    <p class="muted" data-testid="card-oauth">
      OAuth 2.0: client <code>{auth.clientId}</code> · token from <code>{auth.tokenUrl}</code>
      {auth.scope ? ` · scope ${auth.scope}` : ''} · client secret set
    </p>
  );
}
