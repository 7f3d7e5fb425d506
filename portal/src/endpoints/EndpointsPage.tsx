import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, client, errorText, type Session } from '../api/client';
import type { Delivery, EventName, EventType, Webhook } from '../api/types';
import { TEST_EVENT } from '../log/messages';
import { Alert } from '../shared/ui';
import { EndpointCard, successRate } from './EndpointCard';
import { EndpointForm } from './EndpointForm';
import type { ShownSecret } from './SecretOnce';

/** The community's endpoints; `logOf` is the endpoint whose log the address opens. */
export function EndpointsPage({
  session,
  communityId,
  catalog,
  logOf,
}: {
  session: Session;
  communityId: string;
  catalog: EventType[];
  logOf: string | null;
}) {
  const [webhooks, setWebhooks] = useState<Webhook[] | null>(null);
  const [rates, setRates] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState<{ editing: Webhook | null } | null>(null);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [test, setTest] = useState<{ endpointId: string; delivery: Delivery; failure: string | null } | null>(
    null,
  );
  const [testing, setTesting] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const path = { communityId };
  useEffect(() => {
    // the list is read again often (each load of a log): an older read answering last must not undo a
    // newer one, e.g. show an endpoint active again just after its Pause
    let current = true;
    call(session, (headers) =>
      client.GET('/api/communities/{communityId}/webhooks', { params: { path }, headers }),
    )
      .then((list) => {
        if (!current) return;
        setWebhooks(list.items);
        setRates(Object.fromEntries(list.items.map((w) => [w.id, successRate(w)])));
      })
      .catch((err) => current && setError(errorText(err)));
    return () => {
      current = false;
    };
  }, [reload, communityId, session]);
  const refresh = () => setReload((n) => n + 1);
  const act = async (work: () => Promise<unknown>) => {
    setError(null);
    try {
      await work();
      refresh();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const sendTest = async (endpointId: string, eventType: string) => {
    setError(null);
    setTest(null);
    setTesting(endpointId);
    try {
      const delivery = await call(session, (headers) =>
        client.POST('/api/communities/{communityId}/webhooks/{webhookId}/test', {
          params: { path: { communityId, webhookId: endpointId } },
          body: eventType === TEST_EVENT ? {} : { eventType: eventType as EventName },
          headers,
        }),
      );
      setTest({ endpointId, delivery, failure: null });
      refresh();
    } catch (err) {
      // a failed test was sent and logged: its answer carries the attempt, shown like a success's
      const attempt = err instanceof ApiError && err.code === 'WEBHOOK_TEST_FAILED' ? err.data : undefined;
      if (attempt && typeof attempt === 'object') {
        setTest({ endpointId, delivery: attempt as Delivery, failure: errorText(err) });
        refresh();
      } else {
        setError(errorText(err));
      }
    } finally {
      setTesting(null);
    }
  };
  return (
    <section aria-labelledby="endpoints-title">
      <div class="row spread">
        <h2 id="endpoints-title">Endpoints</h2>
        <button type="button" onClick={() => (setForm({ editing: null }), setSecret(null))}>
          Add endpoint
        </button>
      </div>
      {form && (
        <EndpointForm
          session={session}
          communityId={communityId}
          catalog={catalog}
          editing={form.editing}
          onCancel={() => setForm(null)}
          onSaved={(saved, newSecret) => {
            setForm(null);
            if (newSecret) setSecret({ endpointId: saved.id, secret: newSecret });
            refresh();
          }}
        />
      )}
      <Alert error={error} />
      {!webhooks && !error && <p aria-live="polite">Loading endpoints…</p>}
      {webhooks?.length === 0 && <p>No endpoints yet. Add one to start receiving events.</p>}
      <ul class="plain">
        {webhooks?.map((w) => (
          <EndpointCard
            key={w.id}
            session={session}
            communityId={communityId}
            webhook={w}
            rate={rates[w.id]}
            logOpen={logOf === w.id}
            actions={{
              act,
              refresh,
              edit: () => (setForm({ editing: w }), setSecret(null)),
              sendTest: (eventType) => sendTest(w.id, eventType),
              testing: testing === w.id,
              test: test?.endpointId === w.id ? test : null,
              secret,
              setSecret,
            }}
          />
        ))}
      </ul>
    </section>
  );
}
