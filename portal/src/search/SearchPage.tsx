import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { call, client, errorText, type Session } from '../api/client';
import { localTime, type CommunityMessage, type Webhook } from '../api/types';
import { endpointLog, href, paths } from '../app/routes';
import { useLoad } from '../shared/use-load';
import { Alert, EventChip, StateBadge } from '../shared/ui';

/**
 * "What happened to the event for tweet X?": the community's messages about one resource, across its
 * endpoints (the community-wide messages route filtered by `subject`, docs/api.md#community-wide-messages).
 * The id searched is in the address (`?subject=`), so a reload or a shared link shows the same answer.
 */
export function SearchPage({ session, communityId }: { session: Session; communityId: string }) {
  const { query, route } = useLocation();
  const subject = query.subject ?? '';
  const [draft, setDraft] = useState(subject);
  return (
    <section aria-labelledby="search-title">
      <h2 id="search-title">Find by resource</h2>
      <form
        class="row"
        role="search"
        aria-label="Find messages by resource id"
        onSubmit={(e) => {
          e.preventDefault();
          route(href(paths.search, { subject: draft.trim() }));
        }}
      >
        <label for="subject">Resource id (a tweet's, a member's, …)</label>
        <input
          id="subject"
          type="search"
          spellcheck={false}
          autoComplete="off"
          required
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
        />
        <button type="submit">Find</button>
      </form>
      {/* one Results per subject: another search starts empty, never showing the last one's answer */}
      {subject && <Results key={subject} session={session} communityId={communityId} subject={subject} />}
    </section>
  );
}

/** The messages about one subject, newest first, each with its state at every endpoint it went to. */
function Results({
  session,
  communityId,
  subject,
}: {
  session: Session;
  communityId: string;
  subject: string;
}) {
  const [more, setMore] = useState<{ items: CommunityMessage[]; cursor: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const endpoints = useLoad(
    () =>
      call(session, (headers) =>
        client.GET('/api/communities/{communityId}/webhooks', { params: { path: { communityId } }, headers }),
      ),
    [session, communityId],
  );
  const read = (cursor?: string) =>
    call(session, (headers) =>
      client.GET('/api/communities/{communityId}/webhooks/messages', {
        params: { path: { communityId }, query: { subject, limit: 50, ...(cursor ? { cursor } : {}) } },
        headers,
      }),
    );
  const found = useLoad(() => read(), [session, communityId, subject]);
  const items = [...(found.value?.items ?? []), ...(more?.items ?? [])];
  const cursor = more ? more.cursor : (found.value?.nextCursor ?? null);
  const list: Webhook[] = endpoints.value?.items ?? [];
  const urlOf = (id: string) => list.find((e) => e.id === id)?.url ?? 'an endpoint since deleted';
  if (!found.value) return found.error ? <Alert error={found.error} /> : <p aria-live="polite">Searching…</p>;
  return (
    <div data-results-for={subject}>
      <Alert error={error} />
      {items.length === 0 && (
        <p data-testid="search-empty">No message about {subject} in this community's log.</p>
      )}
      <ul class="plain">
        {items.map((m) => (
          <li key={m.messageId} class="card" data-found={m.messageId}>
            <div class="row spread">
              <span>
                <EventChip name={m.eventType} /> <code class="message-id">{m.messageId}</code>
              </span>
              <span class="muted">raised {localTime(m.createdAt)}</span>
            </div>
            <ul class="plain">
              {m.endpoints.map((at) => (
                <li key={at.endpointId} class="row" data-found-at={urlOf(at.endpointId)}>
                  <StateBadge status={at.status} />
                  <span class="url">{urlOf(at.endpointId)}</span>
                  <span class="muted">
                    {at.attempts} attempt(s)
                    {at.lastResponseStatus === null ? '' : `, last answer ${at.lastResponseStatus}`}
                  </span>
                  <a href={href(endpointLog(at.endpointId))}>Open its log</a>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      {cursor && (
        <button
          type="button"
          onClick={() =>
            read(cursor).then(
              (page) => setMore({ items: [...(more?.items ?? []), ...page.items], cursor: page.nextCursor }),
              (err) => setError(errorText(err)),
            )
          }
        >
          Load more
        </button>
      )}
    </div>
  );
}
