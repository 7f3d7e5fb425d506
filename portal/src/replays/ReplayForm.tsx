import { useState } from 'preact/hooks';
import { call, client, errorText, type Session } from '../api/client';
import type { ReplayDryRun, Webhook } from '../api/types';
import { Alert } from '../shared/ui';
import { NEW_REPLAY, replayRequest, type ReplayDraft } from './replay-request';

/**
 * A new replay: its selection, then a dry run that counts what it would queue per endpoint, then Start.
 * A change to the selection after the dry run asks for another, so what starts is what was counted.
 */
export function ReplayForm({
  session,
  communityId,
  endpoints,
  onStarted,
}: {
  session: Session;
  communityId: string;
  endpoints: Webhook[];
  onStarted: (message: string) => void;
}) {
  const [draft, setDraft] = useState<ReplayDraft>(NEW_REPLAY);
  const [preview, setPreview] = useState<ReplayDryRun | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const change = (next: Partial<ReplayDraft>) => {
    setDraft({ ...draft, ...next });
    setPreview(null);
  };
  const send = async (dryRun: boolean) => {
    setError(null);
    setBusy(true);
    try {
      const answer = await call(session, (headers) =>
        client.POST('/api/communities/{communityId}/webhooks/replays', {
          params: { path: { communityId } },
          body: replayRequest(draft, dryRun),
          headers,
        }),
      );
      if ('byEndpoint' in answer) setPreview(answer);
      else {
        setPreview(null);
        setDraft(NEW_REPLAY);
        onStarted(`Replay started: ${answer.total} message(s) to queue.`);
      }
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const urlOf = (id: string) => endpoints.find((e) => e.id === id)?.url ?? id;
  const eventTypes = [...new Set(endpoints.flatMap((e) => e.events))].sort();
  return (
    <form
      class="card"
      aria-labelledby="new-replay-title"
      onSubmit={(e) => {
        e.preventDefault();
        void send(true);
      }}
    >
      <h3 id="new-replay-title">New replay</h3>
      <p class="muted">
        Sends again the messages raised in a window whose latest attempt matches, in the background. Count
        them first.
      </p>
      <label for="replay-since">Raised since</label>
      <input
        id="replay-since"
        type="datetime-local"
        required
        value={draft.since}
        onInput={(e) => change({ since: e.currentTarget.value })}
      />
      <label for="replay-until">Raised before (empty: now)</label>
      <input
        id="replay-until"
        type="datetime-local"
        value={draft.until}
        onInput={(e) => change({ until: e.currentTarget.value })}
      />
      <fieldset>
        <legend>Endpoints (none chosen: every endpoint)</legend>
        {endpoints.map((endpoint) => (
          <label key={endpoint.id} class="check">
            <input
              type="checkbox"
              checked={draft.endpointIds.includes(endpoint.id)}
              onChange={(e) =>
                change({
                  endpointIds: e.currentTarget.checked
                    ? [...draft.endpointIds, endpoint.id]
                    : draft.endpointIds.filter((id) => id !== endpoint.id),
                })
              }
            />
            <span class="url">{endpoint.url}</span>
          </label>
        ))}
      </fieldset>
      <label for="replay-event-type">Event type</label>
      <select
        id="replay-event-type"
        value={draft.eventType}
        onChange={(e) => change({ eventType: e.currentTarget.value })}
      >
        <option value="">All</option>
        {eventTypes.map((type) => (
          <option key={type} value={type}>
            {type}
          </option>
        ))}
      </select>
      <label for="replay-status">Latest attempt</label>
      <select
        id="replay-status"
        value={draft.status}
        onChange={(e) => change({ status: e.currentTarget.value as ReplayDraft['status'] })}
      >
        <option value="FAILED">Failed</option>
        <option value="SUCCESS">Succeeded</option>
        <option value="ANY">Any finished</option>
      </select>
      <label for="replay-response">Answered (codes, classes or network, comma-separated; empty: any)</label>
      <input
        id="replay-response"
        type="text"
        placeholder="503, 4xx, network"
        spellcheck={false}
        value={draft.responseStatus}
        onInput={(e) => change({ responseStatus: e.currentTarget.value })}
      />
      <Alert error={error} />
      {preview && (
        <div class="card" role="status" data-testid="replay-preview">
          <p>
            <strong>{preview.count}</strong> message(s) would be sent again.
          </p>
          {preview.count > 0 && (
            <table>
              <caption class="sr-only">Messages per endpoint</caption>
              <thead>
                <tr>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Messages</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(preview.byEndpoint).map(([id, count]) => (
                  <tr key={id} data-endpoint-count={urlOf(id)}>
                    <td class="url">{urlOf(id)}</td>
                    <td>{count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
      <div class="row">
        <button type="submit" disabled={busy}>
          Count (dry run)
        </button>
        <button
          type="button"
          disabled={busy || !preview || preview.count === 0}
          onClick={() => void send(false)}
        >
          Start replay
        </button>
      </div>
    </form>
  );
}
