import { useState } from 'preact/hooks';
import { call, client, type Session } from '../api/client';

/**
 * Recover failed since a time, and with the checkbox also what was missed while paused or disabled; `act`
 * shows the answer (how many were queued, remain, are past retention) and follows the new attempts.
 */
export function RecoverForm({
  session,
  at,
  act,
}: {
  session: Session;
  at: { communityId: string; webhookId: string };
  act: (work: () => Promise<string>) => Promise<void>;
}) {
  const [since, setSince] = useState('');
  const [includeMissed, setIncludeMissed] = useState(false);
  return (
    <form
      class="row"
      onSubmit={(e) => {
        e.preventDefault();
        void act(async () => {
          const result = await call(session, (headers) =>
            client.POST('/api/communities/{communityId}/webhooks/{webhookId}/recover', {
              params: { path: at },
              body: {
                since: new Date(since).toISOString(),
                ...(includeMissed ? { include: ['failed', 'missed'] as ('failed' | 'missed')[] } : {}),
              },
              headers,
            }),
          );
          return [
            `${result.queued} event(s) queued again.`,
            result.remaining > 0 ? `${result.remaining} more: recover again to queue them.` : '',
            result.expired > 0
              ? `${result.expired} missed event(s) are past retention and cannot be sent.`
              : '',
          ]
            .filter(Boolean)
            .join(' ');
        });
      }}
    >
      <label for="recover-since">Recover failed since</label>
      <input
        id="recover-since"
        type="datetime-local"
        required
        value={since}
        onInput={(e) => setSince(e.currentTarget.value)}
      />
      <label class="check">
        <input
          type="checkbox"
          checked={includeMissed}
          onChange={(e) => setIncludeMissed(e.currentTarget.checked)}
        />
        <span>and events missed while paused or disabled</span>
      </label>
      <button type="submit">Recover</button>
    </form>
  );
}
