import { useEffect, useState } from 'preact/hooks';
import { call, client, errorText, type Session } from '../api/client';
import { localTime, type Replay, type Webhook } from '../api/types';
import { useLoad } from '../shared/use-load';
import { Alert, Notice } from '../shared/ui';
import { ReplayForm } from './ReplayForm';

/** While a replay is queued or running its progress is read again this often. */
const PROGRESS_EVERY_MS = 2_000;

function isActive(replay: Replay): boolean {
  return replay.state === 'queued' || replay.state === 'running';
}

/** What a replay selects, in words. */
function selectionText(replay: Replay, urlOf: (id: string) => string): string {
  const parts = [
    `raised ${localTime(replay.since)} – ${localTime(replay.until)}`,
    replay.status === 'ANY' ? 'latest attempt finished' : `latest attempt ${replay.status.toLowerCase()}`,
    replay.eventTypes ? replay.eventTypes.join(', ') : 'every event type',
    replay.responseStatus ? `answered ${replay.responseStatus.join(', ')}` : '',
    `to ${replay.endpointIds.map(urlOf).join(', ') || 'no endpoint'}`,
  ];
  return parts.filter(Boolean).join(' · ');
}

/** The community's bulk replays (docs/api.md#bulk-replay): a new one after its dry run; each one's progress; cancel. */
export function ReplaysPage({ session, communityId }: { session: Session; communityId: string }) {
  const path = { communityId };
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const endpoints = useLoad(
    () =>
      call(session, (headers) =>
        client.GET('/api/communities/{communityId}/webhooks', { params: { path }, headers }),
      ),
    [session, communityId],
  );
  const replays = useLoad(
    () =>
      call(session, (headers) =>
        client.GET('/api/communities/{communityId}/webhooks/replays', {
          params: { path, query: { page: 1, limit: 20 } },
          headers,
        }),
      ),
    [session, communityId],
  );
  const items = replays.value?.items ?? [];
  const following = items.some(isActive);
  useEffect(() => {
    if (!following) return;
    const timer = setTimeout(replays.reload, PROGRESS_EVERY_MS);
    return () => clearTimeout(timer);
  }, [replays.value, following]);
  const list: Webhook[] = endpoints.value?.items ?? [];
  const urlOf = (id: string) => list.find((e) => e.id === id)?.url ?? id;
  const cancel = async (replay: Replay) => {
    setError(null);
    try {
      await call(session, (headers) =>
        client.POST('/api/communities/{communityId}/webhooks/replays/{replayId}/cancel', {
          params: { path: { communityId, replayId: replay.id } },
          headers,
        }),
      );
      setNotice('Replay cancelled: what it had queued is still sent.');
      replays.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <section aria-labelledby="replays-title">
      <h2 id="replays-title">Replays</h2>
      <ReplayForm
        session={session}
        communityId={communityId}
        endpoints={list}
        onStarted={(message) => {
          setNotice(message);
          replays.reload();
        }}
      />
      <Notice text={notice} />
      <Alert error={error ?? replays.error ?? endpoints.error} />
      {!replays.value && !replays.error && <p aria-live="polite">Loading replays…</p>}
      {replays.value && items.length === 0 && <p>No replays yet.</p>}
      <ul class="plain">
        {items.map((replay) => {
          const done = replay.queued + replay.skipped;
          return (
            <li key={replay.id} class="card" data-replay={replay.id} data-state={replay.state}>
              <div class="row spread">
                <strong>Replay of {localTime(replay.createdAt)}</strong>
                <span
                  class={`badge ${replay.state === 'done' ? 'success' : replay.state === 'cancelled' ? 'failed' : 'pending'}`}
                >
                  {replay.state}
                </span>
              </div>
              <p class="muted">{selectionText(replay, urlOf)}</p>
              <p class="row">
                <progress
                  max={Math.max(replay.total, 1)}
                  value={replay.total === 0 ? 1 : done}
                  aria-label="Progress"
                />
                <span data-testid="replay-progress">
                  {done} of {replay.total} taken: {replay.queued} queued, {replay.skipped} skipped
                </span>
              </p>
              {replay.finishedAt && <p class="muted">Finished {localTime(replay.finishedAt)}</p>}
              {isActive(replay) && (
                <button type="button" class="danger" onClick={() => void cancel(replay)}>
                  Cancel replay
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
