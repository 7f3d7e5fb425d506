import { useState } from 'preact/hooks';
import { call, client, errorText, sessionFromPair, type Session } from '../api/client';
import { Alert } from '../shared/ui';

/** Sign-in: e-mail and password, or a portal link's token from the URL fragment. */
export function SignIn({
  onSession,
  linkError,
  notice,
  framed,
}: {
  onSession: (s: Session) => void;
  linkError: string | null;
  notice: string | null;
  /** inside another site's page: only a portal link opens the portal there, never a password */
  framed: boolean;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main class="narrow">
      <h1>Webhook portal</h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {linkError && (
        <section class="card" role="alert">
          <h2>This portal link cannot be used</h2>
          <p>{linkError}</p>
        </section>
      )}
      {framed ? (
        <p class="card">Open the webhook portal again from your app: it gives this page a new link.</p>
      ) : (
        <form
          class="card"
          onSubmit={async (event) => {
            event.preventDefault();
            setBusy(true);
            setError(null);
            try {
              const pair = await call(null, (headers) =>
                client.POST('/api/auth/login', { body: { email, password }, headers }),
              );
              onSession(sessionFromPair(pair));
            } catch (err) {
              setError(errorText(err));
            } finally {
              setBusy(false);
            }
          }}
        >
          <h2>Sign in</h2>
          <label for="email">E-mail</label>
          <input
            id="email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
          <label for="password">Password</label>
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <Alert error={error} />
          <button type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      )}
    </main>
  );
}
