import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { call, client, type Session } from '../api/client';
import { localTime, type Delivery, type Webhook } from '../api/types';
import { endpointFigures, endpointLog, href, paths } from '../app/routes';
import { DeliveryLog } from '../log/DeliveryLog';
import { TestResult } from '../log/AttemptDetail';
import { TEST_EVENT } from '../log/messages';
import { EventChip } from '../shared/ui';
import { CertificateLine } from './ClientCertificate';
import { settingsText } from './DeliverySettings';
import { HeadersList } from './headers';
import { OAuthLine } from './OAuthClient';
import { SecretOnce, type ShownSecret } from './SecretOnce';

function stateOf(webhook: Webhook): string {
  if (webhook.disabledAt) return `disabled at ${localTime(webhook.disabledAt)}`;
  return webhook.isActive ? 'active' : 'paused';
}

export function successRate(webhook: Webhook): string {
  const attempts = webhook.attempts24h ?? 0;
  if (attempts === 0) return 'no attempts in 24 h';
  return `${Math.round(((webhook.succeeded24h ?? 0) / attempts) * 100)} % of ${attempts} in 24 h`;
}

/** What the card's actions need from the list that holds it. */
export interface CardActions {
  /** runs a change, then reads the list again; its failure shows above the list */
  act: (work: () => Promise<unknown>) => Promise<void>;
  refresh: () => void;
  edit: () => void;
  sendTest: (eventType: string) => Promise<void>;
  testing: boolean;
  test: { delivery: Delivery; failure: string | null } | null;
  secret: ShownSecret | null;
  setSecret: (secret: ShownSecret | null) => void;
}

/** One endpoint: its settings, state, 24 h figures and actions, with its log open when the address says so. */
export function EndpointCard({
  session,
  communityId,
  webhook: w,
  rate,
  logOpen,
  actions,
}: {
  session: Session;
  communityId: string;
  webhook: Webhook;
  rate: string | undefined;
  logOpen: boolean;
  actions: CardActions;
}) {
  const [testType, setTestType] = useState(TEST_EVENT);
  const { route } = useLocation();
  const path = { communityId, webhookId: w.id };
  const patch = (isActive: boolean) =>
    actions.act(() =>
      call(session, (headers) =>
        client.PATCH('/api/communities/{communityId}/webhooks/{webhookId}', {
          params: { path },
          body: { isActive },
          headers,
        }),
      ),
    );
  return (
    <li class="card endpoint" data-endpoint={w.url}>
      <div class="row spread">
        <strong class="url">{w.url}</strong>
        <span class={`badge ${w.disabledAt ? 'failed' : w.isActive ? 'success' : 'pending'}`}>
          {stateOf(w)}
        </span>
      </div>
      {w.type !== 'http' && (
        <p class="muted">
          {w.type === 'rabbitmq'
            ? `RabbitMQ: exchange "${w.exchange}", routing key "${w.routingKey}"`
            : `NATS JetStream: subject "${w.subject}"`}
        </p>
      )}
      <p>{w.description || <span class="muted">No description</span>}</p>
      <div class="events">
        <span class="muted" id={`events-of-${w.id}`}>
          Events:
        </span>
        <ul class="plain chips" aria-labelledby={`events-of-${w.id}`}>
          {w.events.map((name) => (
            <li key={name}>
              <EventChip name={name} />
            </li>
          ))}
        </ul>
      </div>
      <p class="muted">
        Rate limit: {w.rateLimit === null ? 'none' : `${w.rateLimit} per second`} · Ordering:{' '}
        {w.ordering === 'fifo' ? 'FIFO' : 'unordered'} · Failures in a row: {w.consecutiveFailures} · Success
        rate: <span data-testid="success-rate">{rate ?? '…'}</span>
      </p>
      <p class="muted" data-testid="delivery-settings">
        {settingsText(w)}
      </p>
      {w.filter && (
        <details class="filter-shown">
          <summary>Filtered: only matching events are sent</summary>
          <pre data-testid="card-filter">{JSON.stringify(w.filter, null, 2)}</pre>
        </details>
      )}
      <HeadersList id={w.id} headers={w.headers} />
      <CertificateLine tls={w.tls} />
      <OAuthLine auth={w.auth} />
      <div class="row">
        {/* the open log is in the address (a reload keeps it open): the button opens or closes it there */}
        <button
          type="button"
          aria-expanded={logOpen}
          onClick={() => route(href(logOpen ? paths.endpoints : endpointLog(w.id)))}
        >
          Delivery log
        </button>
        <a class="button" href={href(endpointFigures(w.id))}>
          Figures
        </a>
        <button type="button" onClick={actions.edit}>
          Edit
        </button>
        {w.isActive && !w.disabledAt ? (
          <button type="button" onClick={() => patch(false)}>
            Pause
          </button>
        ) : (
          <button type="button" onClick={() => patch(true)}>
            {w.disabledAt ? 'Re-enable' : 'Resume'}
          </button>
        )}
        <span class="test-send">
          <select
            aria-label="Event the test sends"
            value={testType}
            onChange={(e) => setTestType(e.currentTarget.value)}
          >
            <option value={TEST_EVENT}>{TEST_EVENT}</option>
            {/* the subscribable types: webhook.test is never one of them */}
            {w.events.map((name) => (
              <option key={name} value={name}>
                {name} (example)
              </option>
            ))}
          </select>
          <button type="button" disabled={actions.testing} onClick={() => void actions.sendTest(testType)}>
            {actions.testing ? 'Sending test…' : 'Send test'}
          </button>
        </span>
        <button
          type="button"
          onClick={() =>
            actions.act(async () => {
              const rotated = await call(session, (headers) =>
                client.POST('/api/communities/{communityId}/webhooks/{webhookId}/rotate-secret', {
                  params: { path },
                  headers,
                }),
              );
              actions.setSecret({
                endpointId: w.id,
                secret: rotated.secret,
                previousSecretsExpireAt: rotated.previousSecretsExpireAt,
              });
            })
          }
        >
          Rotate secret
        </button>
        <button
          type="button"
          class="danger"
          onClick={() => {
            if (window.confirm(`Delete ${w.url} with its secrets and delivery log?`)) {
              void actions.act(() =>
                call(session, (headers) =>
                  client.DELETE('/api/communities/{communityId}/webhooks/{webhookId}', {
                    params: { path },
                    headers,
                  }),
                ),
              );
            }
          }}
        >
          Delete
        </button>
      </div>
      {actions.secret?.endpointId === w.id && (
        <SecretOnce shown={actions.secret} onDone={() => actions.setSecret(null)} />
      )}
      {actions.test && <TestResult delivery={actions.test.delivery} failure={actions.test.failure} />}
      {logOpen && (
        <DeliveryLog session={session} communityId={communityId} webhook={w} onLoaded={actions.refresh} />
      )}
    </li>
  );
}
