import { useEffect, useState } from 'preact/hooks';
import { call, client, errorText, type Session } from '../api/client';
import type { Community } from '../api/types';
import { matchesPin } from '../app/page-state';
import { Alert } from '../shared/ui';

/** A password sign-in's choice of community, among those it manages webhooks in (the page's own only, if it names one). */
export function Picker({
  session,
  pin,
  onPick,
  onSignOut,
}: {
  session: Session;
  /** the community the page's URL names: the only one offered */
  pin: string | null;
  onPick: (c: Community) => void;
  onSignOut: () => void;
}) {
  const [communities, setCommunities] = useState<Community[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    call(session, (headers) => client.GET('/api/webhooks/manageable-communities', { headers }))
      .then((page) => setCommunities(page.items.filter((c) => matchesPin(pin, c))))
      .catch((err) => setError(errorText(err)));
  }, [session]);
  return (
    <main class="narrow">
      <header class="row spread">
        <h1>Choose a community</h1>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <Alert error={error} />
      {!communities && !error && <p aria-live="polite">Loading your communities…</p>}
      {communities?.length === 0 && (
        <p>You do not manage webhooks in {pin ? 'the community this page is for' : 'any community'}.</p>
      )}
      <ul class="plain">
        {communities?.map((community) => (
          <li key={community.id}>
            <button type="button" class="wide" onClick={() => onPick(community)}>
              {community.name}{' '}
              <span class="muted">
                ({community.slug}, {community.role.toLowerCase()})
              </span>
            </button>
          </li>
        ))}
      </ul>
    </main>
  );
}
