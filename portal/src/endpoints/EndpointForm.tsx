import { useState } from 'preact/hooks';
import { ApiError, call, client, errorText, type Session } from '../api/client';
import type { CreatedWebhook, EventName, EventType, SavedWebhook, Webhook, WebhookBody } from '../api/types';
import { draftOf, FilterEditor, filterOfDraft, type FilterDraft } from '../filter/FilterEditor';
import { Alert } from '../shared/ui';
import { ClientCertificate } from './ClientCertificate';
import { DeliverySettings, settingsOf, type SettingsDraft } from './DeliverySettings';
import { destinationBody, DestinationFields, destinationOf, URL_HINTS } from './Destination';
import { type HeaderRow, headersOf, HeadersEditor, rowsOf } from './headers';
import { OAuthClient } from './OAuthClient';
import { authOfDraft, certificateDraftOf, oauthDraftOf, oauthErrorsOf, tlsOfDraft } from './transport-drafts';

/** The fields the form shows the API's messages beside (`events.0`, `headers.X-Key`, `filter.$and[1]…` included). */
const FORM_FIELDS = [
  'type',
  'exchange',
  'routingKey',
  'subject',
  'url',
  'description',
  'events',
  'headers',
  'rateLimit',
  'ordering',
  'retrySchedule',
  'timeoutMs',
  'filter',
  'tls',
  'auth',
];

function isFormField(field: string): boolean {
  return FORM_FIELDS.some(
    (name) => field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`),
  );
}

/** The first message of a field or of anything under it. */
function messageOf(fields: Record<string, string>, name: string): [string, string] | undefined {
  return Object.entries(fields).find(
    ([f]) => f === name || f.startsWith(`${name}.`) || f.startsWith(`${name}[`),
  );
}

const NOT_SAVED = 'Not saved: see the message beside the field above.';

export function EndpointForm({
  session,
  communityId,
  catalog,
  editing,
  onSaved,
  onCancel,
}: {
  session: Session;
  communityId: string;
  catalog: EventType[];
  editing: Webhook | null;
  onSaved: (webhook: SavedWebhook, secret?: string) => void;
  onCancel: () => void;
}) {
  const [destination, setDestination] = useState(() => destinationOf(editing));
  const [url, setUrl] = useState(editing?.url ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [events, setEvents] = useState<EventName[]>(editing?.events ?? []);
  const [headerRows, setHeaderRows] = useState<HeaderRow[]>(rowsOf(editing?.headers));
  const [rateLimit, setRateLimit] = useState(editing?.rateLimit?.toString() ?? '');
  const [ordering, setOrdering] = useState<Webhook['ordering']>(editing?.ordering ?? 'unordered');
  const [settings, setSettings] = useState<SettingsDraft>(settingsOf(editing));
  const [filter, setFilter] = useState<FilterDraft>(() => draftOf(editing?.filter));
  const [certificate, setCertificate] = useState(certificateDraftOf);
  const [oauth, setOAuth] = useState(() => oauthDraftOf(editing?.auth));
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const path = { communityId };
  const submit = async () => {
    setFields({});
    setError(null);
    const headers = headersOf(headerRows);
    const filterValue = filterOfDraft(filter);
    if ('problem' in headers || 'problem' in filterValue) {
      setFields({
        ...('problem' in headers ? { headers: headers.problem } : {}),
        ...('problem' in filterValue ? { filter: filterValue.problem } : {}),
      });
      setError(NOT_SAVED);
      return;
    }
    // every header row goes back, the untouched ones masked: the API keeps their stored values; an empty
    // box is no limit (or the platform's setting); anything else goes as typed, for the API to judge
    // a broker url goes back as read (its credentials masked): the API keeps the stored ones
    const body: WebhookBody = {
      ...destinationBody(destination),
      url,
      description,
      events,
      headers: headers.headers,
      rateLimit: rateLimit.trim() === '' ? null : Number(rateLimit),
      ordering,
      retrySchedule:
        settings.retrySchedule.trim() === '' ? null : settings.retrySchedule.split(',').map((d) => d.trim()),
      timeoutMs: settings.timeoutMs.trim() === '' ? null : Number(settings.timeoutMs),
      filter: filterValue.filter,
    };
    // left out when unchanged: a PATCH keeps the stored certificate (whose key the page never has) and
    // OAuth setting (and the token the workers hold for it)
    const tls = tlsOfDraft(certificate);
    if (tls !== undefined) body.tls = tls;
    const auth = authOfDraft(oauth, editing?.auth ?? null);
    if (auth !== undefined) body.auth = auth;
    try {
      if (editing) {
        const saved = await call(session, (h) =>
          client.PATCH('/api/communities/{communityId}/webhooks/{webhookId}', {
            params: { path: { ...path, webhookId: editing.id } },
            body,
            headers: h,
          }),
        );
        onSaved(saved);
      } else {
        const created: CreatedWebhook = await call(session, (h) =>
          client.POST('/api/communities/{communityId}/webhooks', { params: { path }, body, headers: h }),
        );
        onSaved(created, created.secret);
      }
    } catch (err) {
      const byField = err instanceof ApiError ? err.fieldMessages() : {};
      setFields(byField);
      // a message shown beside its field is not repeated here, only pointed at
      const besideFields = Object.keys(byField).length > 0 && Object.keys(byField).every(isFormField);
      setError(besideFields ? NOT_SAVED : errorText(err));
    }
  };
  const filterError = messageOf(fields, 'filter');
  return (
    <form
      class="card"
      aria-labelledby="form-title"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <h3 id="form-title">{editing ? 'Edit endpoint' : 'New endpoint'}</h3>
      <DestinationFields draft={destination} fixed={!!editing} onChange={setDestination} errors={fields} />
      <label for="url">URL ({URL_HINTS[destination.type]})</label>
      <input
        id="url"
        type="text"
        inputMode="url"
        required
        value={url}
        aria-invalid={!!fields.url}
        aria-describedby="url-error"
        onInput={(e) => setUrl(e.currentTarget.value)}
      />
      <p id="url-error" class="field-error">
        {fields.url}
      </p>
      <label for="description">Description</label>
      <input
        id="description"
        type="text"
        value={description}
        aria-describedby="description-error"
        onInput={(e) => setDescription(e.currentTarget.value)}
      />
      <p id="description-error" class="field-error">
        {fields.description}
      </p>
      <fieldset aria-describedby="events-error">
        <legend>Events</legend>
        {catalog.map((type) => (
          <label key={type.name} class="check">
            <input
              type="checkbox"
              checked={events.includes(type.name as EventName)}
              onChange={(e) =>
                setEvents(
                  e.currentTarget.checked
                    ? [...events, type.name as EventName]
                    : events.filter((n) => n !== type.name),
                )
              }
            />
            <span>
              <code class="event">{type.name}</code> <span class="muted">{type.description}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <p id="events-error" class="field-error">
        {messageOf(fields, 'events')?.[1]}
      </p>
      <label for="rate-limit">Rate limit (deliveries per second; empty for none)</label>
      <input
        id="rate-limit"
        type="number"
        min={1}
        max={10000}
        step={1}
        inputMode="numeric"
        value={rateLimit}
        aria-invalid={!!fields.rateLimit}
        aria-describedby="rate-limit-error"
        onInput={(e) => setRateLimit(e.currentTarget.value)}
      />
      <p id="rate-limit-error" class="field-error">
        {fields.rateLimit}
      </p>
      <label for="ordering">Ordering</label>
      <select
        id="ordering"
        value={ordering}
        aria-invalid={!!fields.ordering}
        aria-describedby="ordering-error"
        onChange={(e) => setOrdering(e.currentTarget.value as Webhook['ordering'])}
      >
        <option value="unordered">Unordered (parallel)</option>
        <option value="fifo">FIFO (one at a time, in order)</option>
      </select>
      <p id="ordering-error" class="field-error">
        {fields.ordering}
      </p>
      <DeliverySettings
        draft={settings}
        onChange={setSettings}
        errors={{ retrySchedule: messageOf(fields, 'retrySchedule')?.[1], timeoutMs: fields.timeoutMs }}
      />
      <ClientCertificate
        stored={editing?.tls ?? null}
        draft={certificate}
        onChange={setCertificate}
        error={messageOf(fields, 'tls')?.[1]}
      />
      <OAuthClient
        stored={editing?.auth ?? null}
        draft={oauth}
        onChange={setOAuth}
        errors={oauthErrorsOf(fields)}
      />
      <HeadersEditor rows={headerRows} onChange={setHeaderRows} error={messageOf(fields, 'headers')?.[1]} />
      <FilterEditor
        draft={filter}
        onChange={setFilter}
        errorPath={filterError?.[0] ?? null}
        error={filterError?.[1]}
      />
      <Alert error={error} />
      <div class="row">
        <button type="submit">{editing ? 'Save' : 'Create endpoint'}</button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
