import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  api,
  ApiError,
  type Branding,
  type Community,
  type Delivery,
  type EventType,
  exchangePortalLink,
  forgetPortalSession,
  localTime,
  type Message,
  type MessagePage,
  restorePortalSession,
  type RotatedSecret,
  type Session,
  sessionFromPair,
  signOut,
  storePortalSession,
  type StoredPortalSession,
  type TokenPair,
  type Webhook,
} from './api';
import { brandPalette } from './contrast';
import { EndpointFigures } from './endpoint-figures';
import { type HeaderRow, headersOf, HeadersEditor, HeadersList, rowsOf } from './headers';
import './styles.css';

type View = 'endpoints' | 'catalog' | 'verify';

function errorText(err: unknown): string {
  return err instanceof ApiError ? err.message : 'Something went wrong. Please try again.';
}

function Alert({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(text);
        setCopied(true);
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

/** A secret just created or rotated, for the endpoint it belongs to. */
interface ShownSecret {
  endpointId: string;
  secret: string;
  /** after a rotation: until when the earlier secrets keep signing */
  previousSecretsExpireAt?: string;
}

/**
 * The secret, once, inside its endpoint's card: with several endpoints a secret at the top of the page
 * could be saved as another endpoint's. It takes the focus (and so scrolls into view) when it appears,
 * since the card may be far down the page.
 */
function SecretOnce({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [shown]);
  const titleId = `secret-title-${shown.endpointId}`;
  const until = shown.previousSecretsExpireAt;
  return (
    <section class="card secret" aria-labelledby={titleId}>
      <h3 id={titleId} tabIndex={-1} ref={heading}>
        {until ? 'New signing secret' : 'Signing secret'}
      </h3>
      <p class="warning">
        Copy it now: it will not be shown again. Anyone who has it can sign requests as this service.
      </p>
      <code data-testid="secret">{shown.secret}</code>
      {until && (
        <p data-testid="secret-overlap">
          The previous secret keeps signing until <time dateTime={until}>{localTime(until)}</time>: until then
          every delivery carries a signature made with each, so your receiver must accept either. Switch it to
          this secret before then.
        </p>
      )}
      <div class="row">
        <CopyButton text={shown.secret} label="Copy secret" />
        <button type="button" onClick={onDone}>
          I have saved it
        </button>
      </div>
    </section>
  );
}

/** Sign-in: e-mail and password, or a portal link's token from the URL fragment. */
function SignIn({
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
              const pair = await api<TokenPair>(null, 'POST', '/auth/login', { email, password });
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

function Picker({
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
    api<{ items: Community[] }>(session, 'GET', '/webhooks/manageable-communities')
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

function stateOf(webhook: Webhook): string {
  if (webhook.disabledAt) return `disabled at ${localTime(webhook.disabledAt)}`;
  return webhook.isActive ? 'active' : 'paused';
}

/** The fields the endpoint form shows the API's messages beside (`events.0`, `headers.X-Key` included). */
function isFormField(field: string): boolean {
  return ['url', 'description', 'events', 'headers', 'rateLimit', 'ordering'].some(
    (name) => field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`),
  );
}

function EndpointForm({
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
  onSaved: (webhook: Webhook, secret?: string) => void;
  onCancel: () => void;
}) {
  const [url, setUrl] = useState(editing?.url ?? '');
  const [description, setDescription] = useState(editing?.description ?? '');
  const [events, setEvents] = useState<string[]>(editing?.events ?? []);
  const [headerRows, setHeaderRows] = useState<HeaderRow[]>(rowsOf(editing?.headers));
  const [rateLimit, setRateLimit] = useState(editing?.rateLimit?.toString() ?? '');
  const [ordering, setOrdering] = useState<Webhook['ordering']>(editing?.ordering ?? 'unordered');
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const base = `/communities/${communityId}/webhooks`;
  return (
    <form
      class="card"
      aria-labelledby="form-title"
      onSubmit={async (event) => {
        event.preventDefault();
        setFields({});
        setError(null);
        const headers = headersOf(headerRows);
        if ('problem' in headers) {
          setFields({ headers: headers.problem });
          setError('Not saved: see the message beside the field above.');
          return;
        }
        try {
          // every row goes back, the untouched ones masked: the API keeps their stored values
          // an empty box is no limit; anything else goes as typed, for the API to judge
          const limit = rateLimit.trim() === '' ? null : Number(rateLimit);
          const body = { url, description, events, headers: headers.headers, rateLimit: limit, ordering };
          const saved = editing
            ? await api<Webhook>(session, 'PATCH', `${base}/${editing.id}`, body)
            : await api<Webhook & { secret: string }>(session, 'POST', base, body);
          onSaved(saved, 'secret' in saved ? (saved as { secret: string }).secret : undefined);
        } catch (err) {
          const byField = err instanceof ApiError ? err.fieldMessages() : {};
          setFields(byField);
          // a message shown beside its field is not repeated here, only pointed at
          const besideFields = Object.keys(byField).length > 0 && Object.keys(byField).every(isFormField);
          setError(besideFields ? 'Not saved: see the message beside the field above.' : errorText(err));
        }
      }}
    >
      <h3 id="form-title">{editing ? 'Edit endpoint' : 'New endpoint'}</h3>
      <label for="url">URL</label>
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
              checked={events.includes(type.name)}
              onChange={(e) =>
                setEvents(
                  e.currentTarget.checked ? [...events, type.name] : events.filter((n) => n !== type.name),
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
        {fields.events ?? Object.entries(fields).find(([f]) => f.startsWith('events'))?.[1]}
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
      <HeadersEditor
        rows={headerRows}
        onChange={setHeaderRows}
        error={fields.headers ?? Object.entries(fields).find(([f]) => f.startsWith('headers'))?.[1]}
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

function successRate(webhook: Webhook): string {
  const attempts = webhook.attempts24h ?? 0;
  if (attempts === 0) return 'no attempts in 24 h';
  return `${Math.round(((webhook.succeeded24h ?? 0) / attempts) * 100)} % of ${attempts} in 24 h`;
}

/** An event's name as a chip: it wraps as a whole, between chips, never inside the name. */
function EventChip({ name }: { name: string }) {
  return <code class="event chip">{name}</code>;
}

/**
 * A message id (msg_ + a ULID) short enough for a column: the ULID's first characters are its time, alike
 * for neighbouring messages, so its last ones are kept. The whole id is in the title and the attempt's detail.
 */
function shortMessageId(id: string): string {
  return id.length > 16 ? `${id.slice(0, 4)}…${id.slice(-8)}` : id;
}

/** When the attempt went out, or that it has not yet. */
function sentText(delivery: Delivery): string {
  return delivery.sentAt ? localTime(delivery.sentAt) : 'waiting';
}

/** What a test shows of the target's answer: its beginning, the log keeps the rest. */
const BODY_PREVIEW_CHARS = 300;

function bodyPreview(body: string): string {
  return body.length > BODY_PREVIEW_CHARS
    ? `${body.slice(0, BODY_PREVIEW_CHARS)}… (${body.length} characters in all)`
    : body;
}

/** An attempt in full (the log's Details); `brief` keeps what a test's outcome needs and the body's beginning. */
function AttemptDetail({ delivery, brief = false }: { delivery: Delivery; brief?: boolean }) {
  const body = delivery.responseBody;
  return (
    <dl class="detail">
      <dt>Status</dt>
      <dd>{delivery.status}</dd>
      <dt>Response status</dt>
      <dd>{delivery.responseStatus ?? '—'}</dd>
      <dt>Error</dt>
      <dd>{delivery.error ?? '—'}</dd>
      <dt>Duration</dt>
      <dd>{delivery.durationMs === null ? '—' : `${delivery.durationMs} ms`}</dd>
      <dt>{brief ? 'Response body (beginning)' : 'Response body'}</dt>
      <dd>
        <pre>{body === null || body === '' ? '—' : brief ? bodyPreview(body) : body}</pre>
      </dd>
      <dt>Message</dt>
      <dd class="row">
        <code data-testid="message-id">{delivery.messageId}</code>
        <CopyButton text={delivery.messageId} label="Copy message id" />
      </dd>
      <dt>Sent</dt>
      <dd>{sentText(delivery)}</dd>
      {!brief && (
        <>
          <dt>Attempt</dt>
          <dd>{delivery.attempt}</dd>
          <dt>Logged</dt>
          <dd>
            {localTime(delivery.createdAt)}
            {delivery.attempt > 1 && <span class="muted"> (when the attempt before it failed)</span>}
          </dd>
          <dt>Next attempt</dt>
          <dd>{localTime(delivery.nextAttemptAt)}</dd>
          <dt>Event body</dt>
          <dd>
            <pre>{delivery.payload ? JSON.stringify(delivery.payload, null, 2) : '— (no longer kept)'}</pre>
          </dd>
        </>
      )}
    </dl>
  );
}

/** A test's outcome in its card: a failed one with what the target answered, not only a line. */
function TestResult({ delivery, failure }: { delivery: Delivery; failure: string | null }) {
  return (
    <div
      class={`card test-result${failure ? ' failed' : ''}`}
      data-testid="test-result"
      role={failure ? undefined : 'status'}
    >
      <h3>
        Test delivery: <code>{delivery.eventType}</code>
      </h3>
      {failure && (
        <p class="error" role="alert">
          {failure}
        </p>
      )}
      <AttemptDetail delivery={delivery} brief />
    </div>
  );
}

const PAGE = 20;
/** The messages route's largest page (its `limit`): a refresh of more messages than that reads several. */
const MAX_PAGE = 100;
/** After a resend or a recover the log follows the new attempts this long, so their outcome shows. */
const FOLLOW_MS = 30_000;
const FOLLOW_EVERY_MS = 2_000;
/** The test route's own event (GET /event-types, `testEvent`): no endpoint subscribes to it, yet the log shows it. */
const TEST_EVENT = 'webhook.test';

/** An attempt the worker is sending or about to send, whose outcome is worth waiting for. */
function dueSoon(delivery: Delivery, now: number): boolean {
  if (delivery.status !== 'PENDING') return false;
  if (delivery.sentAt) return true;
  return delivery.nextAttemptAt === null || Date.parse(delivery.nextAttemptAt) <= now + FOLLOW_EVERY_MS;
}

/** The log's search, as its form holds it; each field left empty is no filter. */
interface LogSearch {
  status: string;
  eventType: string;
  /** datetime-local values, in the viewer's time zone */
  since: string;
  until: string;
  messageId: string;
}

const NO_SEARCH: LogSearch = { status: '', eventType: '', since: '', until: '', messageId: '' };

/** The messages route's query for a search: the local times sent as ISO instants. */
function messagesQuery(search: LogSearch, offset: number, limit: number): URLSearchParams {
  const query = new URLSearchParams({ limit: String(limit), offset: String(offset) });
  if (search.status) query.set('status', search.status);
  if (search.eventType) query.set('eventType', search.eventType);
  if (search.since) query.set('since', new Date(search.since).toISOString());
  if (search.until) query.set('until', new Date(search.until).toISOString());
  if (search.messageId.trim()) query.set('messageId', search.messageId.trim());
  return query;
}

/** The first `count` messages of a search, in pages of at most MAX_PAGE (a refresh of what is shown). */
async function readMessages(
  session: Session,
  path: string,
  search: LogSearch,
  count: number,
): Promise<{ items: Message[]; hasMore: boolean }> {
  const items: Message[] = [];
  for (;;) {
    const limit = Math.min(MAX_PAGE, count - items.length);
    const page = await api<MessagePage>(
      session,
      'GET',
      `${path}?${messagesQuery(search, items.length, limit)}`,
    );
    items.push(...page.items);
    if (!page.hasMore || items.length >= count) return { items, hasMore: page.hasMore };
  }
}

/**
 * Messages are ordered by their latest attempt, so one retried between two reads moves up: a later page may
 * hold a message already shown, which is kept once, where it was.
 */
function appendNew(shown: Message[], more: Message[]): Message[] {
  const ids = new Set(shown.map((m) => m.messageId));
  return [...shown, ...more.filter((m) => !ids.has(m.messageId))];
}

/** An attempt's state (a message's: its latest attempt's) as a badge. */
function StateBadge({ status }: { status: Delivery['status'] }) {
  return <span class={`badge ${status.toLowerCase()}`}>{status}</span>;
}

/** A message's attempts, newest first, each with its detail on demand. */
function MessageAttempts({ message }: { message: Message }) {
  const [open, setOpen] = useState<string | null>(null);
  return (
    <table class="attempts stacked" data-attempts-of={message.messageId}>
      <caption class="sr-only">Attempts of message {message.messageId}, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Attempt</th>
          <th scope="col">State</th>
          <th scope="col">Sent</th>
          <th scope="col">Next attempt</th>
          <th scope="col">Response</th>
          <th scope="col">Duration</th>
          <th scope="col">
            <span class="sr-only">Detail</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {message.attempts.map((d) => (
          <>
            <tr key={d.id} data-status={d.status} data-delivery={d.id}>
              <td data-label="Attempt" data-column="attempt">
                {d.attempt}
              </td>
              <td data-label="State">
                <StateBadge status={d.status} />
              </td>
              <td class="time" data-label="Sent" data-column="sent">
                {sentText(d)}
              </td>
              <td class="time" data-label="Next attempt" data-column="next-attempt">
                {localTime(d.nextAttemptAt)}
              </td>
              <td data-label="Response">{d.responseStatus ?? d.error ?? '—'}</td>
              <td data-label="Duration">{d.durationMs === null ? '—' : `${d.durationMs} ms`}</td>
              <td>
                <button
                  type="button"
                  aria-expanded={open === d.id}
                  onClick={() => setOpen(open === d.id ? null : d.id)}
                >
                  Details
                </button>
              </td>
            </tr>
            {open === d.id && (
              <tr key={`${d.id}-detail`}>
                <td colSpan={7} class="whole">
                  <AttemptDetail delivery={d} />
                </td>
              </tr>
            )}
          </>
        ))}
      </tbody>
    </table>
  );
}

/** The search above the log: state and event type apply at once, the rest with Search. */
function LogSearchForm({
  eventTypes,
  applied,
  onSearch,
}: {
  eventTypes: string[];
  applied: LogSearch;
  onSearch: (search: LogSearch) => void;
}) {
  const [draft, setDraft] = useState<LogSearch>(applied);
  const set = (field: keyof LogSearch, value: string) => setDraft({ ...draft, [field]: value });
  const pick = (field: 'status' | 'eventType', value: string) => {
    const next = { ...draft, [field]: value };
    setDraft(next);
    onSearch(next);
  };
  return (
    <form
      class="log-search"
      role="search"
      aria-label="Search the delivery log"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(draft);
      }}
    >
      <div>
        <label for="status-filter">State</label>
        <select
          id="status-filter"
          value={draft.status}
          onChange={(e) => pick('status', e.currentTarget.value)}
        >
          <option value="">All</option>
          <option value="SUCCESS">Success</option>
          <option value="FAILED">Failed</option>
          <option value="PENDING">Pending</option>
        </select>
      </div>
      <div>
        <label for="event-type-filter">Event type</label>
        <select
          id="event-type-filter"
          value={draft.eventType}
          onChange={(e) => pick('eventType', e.currentTarget.value)}
        >
          <option value="">All</option>
          {eventTypes.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="since-filter">Last attempt since</label>
        <input
          id="since-filter"
          type="datetime-local"
          value={draft.since}
          onInput={(e) => set('since', e.currentTarget.value)}
        />
      </div>
      <div>
        <label for="until-filter">Last attempt before</label>
        <input
          id="until-filter"
          type="datetime-local"
          value={draft.until}
          onInput={(e) => set('until', e.currentTarget.value)}
        />
      </div>
      <div class="wide">
        <label for="message-id-filter">Message id</label>
        <input
          id="message-id-filter"
          type="text"
          placeholder="msg_… (exact)"
          spellcheck={false}
          autocomplete="off"
          value={draft.messageId}
          onInput={(e) => set('messageId', e.currentTarget.value)}
        />
      </div>
      <div class="row buttons">
        <button type="submit">Search</button>
        <button
          type="button"
          onClick={() => {
            setDraft(NO_SEARCH);
            onSearch(NO_SEARCH);
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}

/** What an empty page means for the search that gave it. */
function emptyText(search: LogSearch): string {
  if (search.messageId.trim()) return 'No message with this id for this endpoint.';
  const filtered = Object.values(search).some((value) => value !== '');
  return filtered ? 'No message matches this search.' : 'No deliveries yet.';
}

function DeliveryLog({
  session,
  communityId,
  webhook,
  onLoaded,
}: {
  session: Session;
  communityId: string;
  webhook: Webhook;
  /** each load of the log: attempts may have ended since, so the card's figures are read again */
  onLoaded: () => void;
}) {
  const [search, setSearch] = useState<LogSearch>(NO_SEARCH);
  const [messages, setMessages] = useState<Message[] | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [loadError, setLoadError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [since, setSince] = useState('');
  const [includeMissed, setIncludeMissed] = useState(false);
  const [reload, setReload] = useState(0);
  const [followUntil, setFollowUntil] = useState(0);
  const base = `/communities/${communityId}/webhooks/${webhook.id}`;
  // a refresh reads again as many messages as Load more has shown
  const shownCount = useRef(PAGE);
  // the card passes a new function on each render: a load follows the log's own inputs, not that
  const loaded = useRef(onLoaded);
  loaded.current = onLoaded;
  // another search starts empty, at one page; a refresh keeps the rows on screen until the new ones arrive
  useEffect(() => {
    shownCount.current = PAGE;
    setMessages(null);
    setExpanded(new Set());
  }, [search, base]);
  useEffect(() => {
    let current = true;
    readMessages(session, `${base}/messages`, search, shownCount.current)
      .then((page) => {
        if (!current) return;
        setLoadError(null);
        setMessages(page.items);
        setHasMore(page.hasMore);
        // a message found by its id opens with its attempts
        if (search.messageId.trim()) setExpanded(new Set(page.items.map((m) => m.messageId)));
        loaded.current();
      })
      .catch((err) => current && setLoadError(errorText(err)));
    return () => {
      current = false;
    };
  }, [search, reload, base, session]);
  useEffect(() => {
    const now = Date.now();
    if (!messages || now >= followUntil || !messages.some((m) => dueSoon(m.attempts[0], now))) return;
    const timer = setTimeout(() => setReload((n) => n + 1), FOLLOW_EVERY_MS);
    return () => clearTimeout(timer);
  }, [messages, followUntil]);
  const act = async (work: () => Promise<string>) => {
    setError(null);
    try {
      setNotice(await work());
      setFollowUntil(Date.now() + FOLLOW_MS);
      setReload((n) => n + 1);
    } catch (err) {
      setError(errorText(err));
    }
  };
  const loadMore = async () => {
    if (!messages) return;
    try {
      const page = await api<MessagePage>(
        session,
        'GET',
        `${base}/messages?${messagesQuery(search, messages.length, PAGE)}`,
      );
      const all = appendNew(messages, page.items);
      shownCount.current = all.length;
      setMessages(all);
      setHasMore(page.hasMore);
      loaded.current();
    } catch (err) {
      setLoadError(errorText(err));
    }
  };
  const toggle = (messageId: string) => {
    const next = new Set(expanded);
    if (!next.delete(messageId)) next.add(messageId);
    setExpanded(next);
  };
  const eventTypes = [...new Set([...webhook.events, TEST_EVENT])].sort();
  return (
    <section aria-labelledby={`log-title-${webhook.id}`}>
      <div class="row spread">
        <h3 id={`log-title-${webhook.id}`}>Delivery log</h3>
        <button type="button" onClick={() => setReload((n) => n + 1)}>
          Refresh
        </button>
      </div>
      <LogSearchForm eventTypes={eventTypes} applied={search} onSearch={setSearch} />
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const result = await api<{ queued: number; remaining: number; expired: number }>(
              session,
              'POST',
              `${base}/recover`,
              {
                since: new Date(since).toISOString(),
                ...(includeMissed ? { include: ['failed', 'missed'] } : {}),
              },
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
      <Alert error={error ?? loadError} />
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {!messages && !loadError && <p aria-live="polite">Loading deliveries…</p>}
      {messages?.length === 0 && <p data-testid="log-empty">{emptyText(search)}</p>}
      {messages && messages.length > 0 && (
        // a phone gets each message as a block of labelled lines; a table wider than its box still
        // scrolls inside it, never the page, and takes the focus so a keyboard can scroll it too
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Messages">
          <table class="messages stacked">
            <caption class="sr-only">Messages, newest latest attempt first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Message</th>
                <th scope="col">First attempt</th>
                <th scope="col">Last attempt</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {messages.map((m) => (
                <>
                  <tr key={m.messageId} data-status={m.status} data-message={m.messageId}>
                    <td data-label="Event">
                      <EventChip name={m.eventType} />
                      {m.test && <span class="badge test">test</span>}
                      {m.expungedAt && (
                        <span class="badge test" title={`Content expunged ${localTime(m.expungedAt)}`}>
                          expunged
                        </span>
                      )}
                    </td>
                    <td data-label="Message" data-column="message">
                      <code class="message-id" title={m.messageId}>
                        {shortMessageId(m.messageId)}
                      </code>
                      <CopyButton text={m.messageId} label="Copy id" />
                    </td>
                    <td class="time" data-label="First attempt" data-column="first-attempt">
                      {localTime(m.firstAttemptAt)}
                    </td>
                    <td class="time" data-label="Last attempt" data-column="last-attempt">
                      {localTime(m.lastAttemptAt)}
                    </td>
                    <td data-label="State" data-column="state">
                      <StateBadge status={m.status} />
                    </td>
                    <td data-label="Attempts" data-column="attempts">
                      {m.attemptCount}
                    </td>
                    <td>
                      <div class="row actions">
                        <button
                          type="button"
                          aria-expanded={expanded.has(m.messageId)}
                          onClick={() => toggle(m.messageId)}
                        >
                          Attempts
                        </button>
                        {/* the API refuses to resend a test (the test route sends another) or an expunged message */}
                        {!m.test && !m.expungedAt && (
                          <button
                            type="button"
                            onClick={() =>
                              act(async () => {
                                await api(
                                  session,
                                  'POST',
                                  `${base}/deliveries/${m.attempts[0].id}/resend`,
                                  {},
                                );
                                return `Event ${m.eventType} queued again.`;
                              })
                            }
                          >
                            Resend
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                  {expanded.has(m.messageId) && (
                    <tr key={`${m.messageId}-attempts`} class="expanded">
                      <td colSpan={7} class="whole">
                        <MessageAttempts message={m} />
                      </td>
                    </tr>
                  )}
                </>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {messages && messages.length > 0 && (
        <nav class="row" aria-label="More messages">
          <span>
            {messages.length} message{messages.length === 1 ? '' : 's'} shown
            {hasMore ? '' : ' (no more)'}
          </span>
          {hasMore && (
            <button type="button" onClick={() => void loadMore()}>
              Load more
            </button>
          )}
        </nav>
      )}
    </section>
  );
}

function Endpoints({
  session,
  communityId,
  catalog,
}: {
  session: Session;
  communityId: string;
  catalog: EventType[];
}) {
  const [webhooks, setWebhooks] = useState<Webhook[] | null>(null);
  const [rates, setRates] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState<{ editing: Webhook | null } | null>(null);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [test, setTest] = useState<{ endpointId: string; delivery: Delivery; failure: string | null } | null>(
    null,
  );
  const [testing, setTesting] = useState<string | null>(null);
  /** per endpoint, what its test sends: webhook.test, or the catalog's example of a subscribed type */
  const [testType, setTestType] = useState<Record<string, string>>({});
  const [figuresOf, setFiguresOf] = useState<Webhook | null>(null);
  const [reload, setReload] = useState(0);
  const base = `/communities/${communityId}/webhooks`;
  useEffect(() => {
    // the list is read again often (each load of a log): an older read answering last must not undo a
    // newer one, e.g. show an endpoint active again just after its Pause
    let current = true;
    api<{ items: Webhook[] }>(session, 'GET', base)
      .then((list) => {
        if (!current) return;
        setWebhooks(list.items);
        setRates(Object.fromEntries(list.items.map((w) => [w.id, successRate(w)])));
      })
      .catch((err) => current && setError(errorText(err)));
    return () => {
      current = false;
    };
  }, [reload, base, session]);
  const refresh = () => setReload((n) => n + 1);
  const act = async (work: () => Promise<void>) => {
    setError(null);
    try {
      await work();
      refresh();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const sendTest = async (endpointId: string) => {
    setError(null);
    setTest(null);
    setTesting(endpointId);
    const eventType = testType[endpointId] ?? TEST_EVENT;
    try {
      const delivery = await api<Delivery>(
        session,
        'POST',
        `${base}/${endpointId}/test`,
        eventType === TEST_EVENT ? {} : { eventType },
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
  const current = webhooks?.find((w) => w.id === selected) ?? null;
  if (figuresOf) {
    const back = () => setFiguresOf(null);
    return <EndpointFigures session={session} communityId={communityId} webhook={figuresOf} onBack={back} />;
  }
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
          <li key={w.id} class="card endpoint" data-endpoint={w.url}>
            <div class="row spread">
              <strong class="url">{w.url}</strong>
              <span class={`badge ${w.disabledAt ? 'failed' : w.isActive ? 'success' : 'pending'}`}>
                {stateOf(w)}
              </span>
            </div>
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
              {w.ordering === 'fifo' ? 'FIFO' : 'unordered'} · Failures in a row: {w.consecutiveFailures} ·
              Success rate: <span data-testid="success-rate">{rates[w.id] ?? '…'}</span>
            </p>
            <HeadersList id={w.id} headers={w.headers} />
            <div class="row">
              <button
                type="button"
                onClick={() => setSelected(selected === w.id ? null : w.id)}
                aria-expanded={selected === w.id}
              >
                Delivery log
              </button>
              <button type="button" onClick={() => setFiguresOf(w)}>
                Figures
              </button>
              <button type="button" onClick={() => (setForm({ editing: w }), setSecret(null))}>
                Edit
              </button>
              {w.isActive && !w.disabledAt ? (
                <button
                  type="button"
                  onClick={() => act(() => api(session, 'PATCH', `${base}/${w.id}`, { isActive: false }))}
                >
                  Pause
                </button>
              ) : (
                <button
                  type="button"
                  onClick={() => act(() => api(session, 'PATCH', `${base}/${w.id}`, { isActive: true }))}
                >
                  {w.disabledAt ? 'Re-enable' : 'Resume'}
                </button>
              )}
              <span class="test-send">
                <select
                  aria-label="Event the test sends"
                  value={testType[w.id] ?? TEST_EVENT}
                  onChange={(e) =>
                    setTestType({ ...testType, [w.id]: (e.target as HTMLSelectElement).value })
                  }
                >
                  <option value={TEST_EVENT}>{TEST_EVENT}</option>
                  {w.events
                    .filter((name) => name !== TEST_EVENT)
                    .map((name) => (
                      <option key={name} value={name}>
                        {name} (example)
                      </option>
                    ))}
                </select>
                <button type="button" disabled={testing === w.id} onClick={() => void sendTest(w.id)}>
                  {testing === w.id ? 'Sending test…' : 'Send test'}
                </button>
              </span>
              <button
                type="button"
                onClick={() =>
                  act(async () => {
                    const rotated = await api<RotatedSecret>(
                      session,
                      'POST',
                      `${base}/${w.id}/rotate-secret`,
                      {},
                    );
                    setSecret({
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
                    void act(() => api(session, 'DELETE', `${base}/${w.id}`));
                  }
                }}
              >
                Delete
              </button>
            </div>
            {secret?.endpointId === w.id && <SecretOnce shown={secret} onDone={() => setSecret(null)} />}
            {test?.endpointId === w.id && <TestResult delivery={test.delivery} failure={test.failure} />}
            {current?.id === w.id && (
              <DeliveryLog session={session} communityId={communityId} webhook={w} onLoaded={refresh} />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Catalog({ catalog }: { catalog: EventType[] }) {
  return (
    <section aria-labelledby="catalog-title">
      <h2 id="catalog-title">Event catalog</h2>
      {catalog.map((type) => (
        <details key={type.name} class="card">
          <summary>
            <code class="event">{type.name}</code> — {type.description}
          </summary>
          <h3>Schema</h3>
          <pre>{JSON.stringify(type.schema, null, 2)}</pre>
          <h3>Example</h3>
          <pre>{JSON.stringify(type.example, null, 2)}</pre>
        </details>
      ))}
    </section>
  );
}

const NODE_SNIPPET = `import { verifyWebhook } from '@community-platform/client'; // clients/typescript

// rawBody: the request body exactly as received (a string or Buffer), before JSON parsing
const event = verifyWebhook(request.headers, rawBody, process.env.WEBHOOK_SECRET);
// throws WebhookVerificationError when the signature or timestamp is wrong; event is the parsed body`;

const PYTHON_SNIPPET = `from community_platform import verify_webhook  # clients/python

# raw_body: the request body exactly as received (bytes), before JSON parsing
event = verify_webhook(request.headers, raw_body, os.environ["WEBHOOK_SECRET"])
# raises when the signature or timestamp is wrong; event is the parsed body`;

function Verify() {
  return (
    <section aria-labelledby="verify-title">
      <h2 id="verify-title">Verify signatures</h2>
      <p>
        Every delivery is signed (Standard Webhooks). Check it with the endpoint's secret before trusting the
        body.
      </p>
      <h3>Node</h3>
      <pre>{NODE_SNIPPET}</pre>
      <CopyButton text={NODE_SNIPPET} label="Copy Node snippet" />
      <h3>Python</h3>
      <pre>{PYTHON_SNIPPET}</pre>
      <CopyButton text={PYTHON_SNIPPET} label="Copy Python snippet" />
    </section>
  );
}

/** The community the portal shows; a portal link's session brings its branding. */
interface ShownCommunity {
  id: string;
  name: string;
  slug?: string;
  branding?: Branding;
}

/** The brand colour as CSS custom properties on the page (styles.css reads them), for as long as it shows. */
function useBrandColours(primary: string | null | undefined) {
  useEffect(() => {
    const palette = brandPalette(primary);
    if (!palette) return;
    // CSSOM, not a style attribute: the page's policy (style-src 'self') allows it
    const root = document.documentElement.style;
    const properties = { '--brand': palette.fill, '--on-brand': palette.onFill, '--brand-ink': palette.ink };
    for (const [name, value] of Object.entries(properties)) root.setProperty(name, value);
    return () => Object.keys(properties).forEach((name) => root.removeProperty(name));
  }, [primary]);
}

/**
 * The logo, when the page's policy lets it load: an https URL (an http one would be mixed content), and the
 * page's URL naming the community, whose logo's origin the server then adds to img-src.
 */
function logoShown(branding: Branding | undefined, pin: string | null): string | null {
  if (!pin || !branding?.logoUrl) return null;
  try {
    return new URL(branding.logoUrl).protocol === 'https:' ? branding.logoUrl : null;
  } catch {
    return null;
  }
}

function Portal({
  session,
  community,
  pin,
  onSignOut,
}: {
  session: Session;
  community: ShownCommunity;
  pin: string | null;
  onSignOut: () => void;
}) {
  useBrandColours(community.branding?.primaryColor);
  const logo = logoShown(community.branding, pin);
  const [view, setView] = useState<View>('endpoints');
  const [catalog, setCatalog] = useState<EventType[]>([]);
  useEffect(() => {
    api<{ items: EventType[] }>(session, 'GET', '/webhooks/event-types').then(
      (c) => setCatalog(c.items),
      () => setCatalog([]),
    );
  }, [session]);
  const tab = (name: View, label: string) => (
    <button type="button" aria-current={view === name ? 'page' : undefined} onClick={() => setView(name)}>
      {label}
    </button>
  );
  return (
    <>
      <header class="row spread portal-header">
        <div class="row">
          {logo && <img class="logo" src={logo} alt="" data-testid="logo" />}
          <h1>Webhooks · {community.name}</h1>
        </div>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav class="row tabs" aria-label="Sections">
        {tab('endpoints', 'Endpoints')}
        {tab('catalog', 'Event catalog')}
        {tab('verify', 'Verify signatures')}
      </nav>
      <main>
        {view === 'endpoints' && <Endpoints session={session} communityId={community.id} catalog={catalog} />}
        {view === 'catalog' && <Catalog catalog={catalog} />}
        {view === 'verify' && <Verify />}
      </main>
    </>
  );
}

/** The longest delay setTimeout keeps (about 24.8 days): a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const EXPIRED = 'Your portal session has expired. Open a new portal link to continue.';

/** A portal link's token, from the URL's fragment (never sent to a server). */
function linkToken(): string | null {
  return new URLSearchParams(window.location.hash.slice(1)).get('token');
}

function portalSession(stored: StoredPortalSession): Session {
  return { token: stored.token, communityId: stored.communityId, expiresAt: stored.expiresAt };
}

function shownCommunity(stored: StoredPortalSession): ShownCommunity {
  const { communityId: id, communityName: name, communitySlug: slug, branding } = stored;
  return { id, name, slug, branding };
}

/**
 * The community the page's URL names (a portal link's `?community=`, an id or a slug): the server let only
 * that community's allowed origins frame the page, so it is the only community the page may show
 * (docs/product-decisions.md#10-webhook-portal-embedding). Null: the URL names none.
 */
function pinnedCommunity(): string | null {
  const value = new URLSearchParams(window.location.search).get('community')?.trim().toLowerCase();
  return value ? value : null;
}

/** Whether another page shows this one in a frame (a cross-origin parent may refuse the comparison). */
function isFramed(): boolean {
  try {
    return window.self !== window.top;
  } catch {
    return true;
  }
}

/** Whether the community is the one the page's URL names, when it names one. */
function matchesPin(pin: string | null, community: { id: string; slug?: string }): boolean {
  return pin === null || pin === community.id.toLowerCase() || pin === community.slug?.toLowerCase();
}

const OTHER_COMMUNITY =
  "This page is for another community than your portal session, so it does not show that session's " +
  'webhooks. Open the webhook portal again from the app of the community you want to manage.';
const FRAMED_WITHOUT_COMMUNITY =
  'This page is shown inside another site without naming its community, so it shows nothing. ' +
  'Open the webhook portal with a portal link.';

/** A page that shows no session's data, and why. */
function Refused({ message }: { message: string }) {
  return (
    <main class="narrow">
      <h1>Webhook portal</h1>
      <section class="card" role="alert" data-testid="refused">
        <h2>This portal page cannot be shown</h2>
        <p>{message}</p>
      </section>
    </main>
  );
}

/**
 * A load of the page opens a portal link in the address bar, else the session this tab kept, if unexpired.
 * A session for another community than the URL names is not shown (the page may be framed by that other
 * community's app); a framed page that names no community shows nothing (the server's frame-ancestors
 * 'none' stops such a frame before this runs: this is the second lock).
 */
function initialState(): {
  stored: StoredPortalSession | null;
  notice: string | null;
  refused: string | null;
} {
  const pin = pinnedCommunity();
  if (pin === null && isFramed()) return { stored: null, notice: null, refused: FRAMED_WITHOUT_COMMUNITY };
  if (linkToken()) return { stored: null, notice: null, refused: null };
  const { stored, expired } = restorePortalSession();
  if (stored && !matchesPin(pin, { id: stored.communityId, slug: stored.communitySlug }))
    return { stored: null, notice: null, refused: OTHER_COMMUNITY };
  return { stored, notice: expired ? EXPIRED : null, refused: null };
}

function App() {
  const [initial] = useState(initialState);
  const [pin] = useState(pinnedCommunity);
  const [framed] = useState(isFramed);
  const [refused, setRefused] = useState<string | null>(initial.refused);
  const [session, setSession] = useState<Session | null>(
    () => initial.stored && portalSession(initial.stored),
  );
  const [community, setCommunity] = useState<ShownCommunity | null>(
    () => initial.stored && shownCommunity(initial.stored),
  );
  const [linkError, setLinkError] = useState<string | null>(null);
  const [exchanging, setExchanging] = useState(() => linkToken() !== null && initial.refused === null);
  const [notice, setNotice] = useState<string | null>(initial.notice);
  useEffect(() => {
    const token = linkToken();
    if (!token) return;
    // the token leaves the address bar (and history) before anything else happens; the community stays
    history.replaceState(null, '', window.location.pathname + window.location.search);
    if (initial.refused) return;
    setExchanging(true);
    exchangePortalLink(token, pin)
      .then((portal) => {
        // the server refused a link of another community than the page is for, and left it unused
        if (portal === 'other-community') return setRefused(OTHER_COMMUNITY);
        const stored: StoredPortalSession = {
          token: portal.accessToken,
          expiresAt: Date.now() + portal.expiresIn * 1000,
          communityId: portal.communityId,
          communityName: portal.communityName,
          communitySlug: portal.communitySlug,
          branding: portal.branding,
        };
        // a second lock: a session of another community is ended, never shown here
        if (!matchesPin(pin, { id: portal.communityId, slug: portal.communitySlug })) {
          void signOut(portalSession(stored)).catch(() => undefined);
          setRefused(OTHER_COMMUNITY);
          return;
        }
        // a session this tab kept from an earlier link is replaced: end it rather than leave it usable
        const earlier = restorePortalSession().stored;
        if (earlier) void signOut(portalSession(earlier)).catch(() => undefined);
        storePortalSession(stored);
        start(portalSession(stored));
        setCommunity(shownCommunity(stored));
      })
      .catch((err) => setLinkError(errorText(err)))
      .finally(() => setExchanging(false));
  }, []);
  const leave = (message: string | null) => {
    forgetPortalSession();
    setSession(null);
    setCommunity(null);
    setNotice(message);
  };
  function start(next: Session) {
    setNotice(null);
    setSession(next);
  }
  // a session refused for good ends the page's session; a portal link's also ends when it expires, even
  // with no call to meet the refusal
  useEffect(() => {
    if (!session) return;
    session.onEnded = () => leave('Your session has ended. Sign in again to continue.');
    const { expiresAt } = session;
    if (expiresAt === undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      const left = expiresAt - Date.now();
      if (left <= 0) leave(EXPIRED);
      else timer = setTimeout(check, Math.min(left, MAX_TIMER_MS));
    };
    check();
    return () => clearTimeout(timer);
  }, [session]);
  const end = async () => {
    if (!session) return;
    // the server forgets the session first: a token copied from this page stops working everywhere; and
    // this tab forgets it before asking, so a reload meanwhile does not bring it back
    session.onEnded = undefined;
    forgetPortalSession();
    try {
      await signOut(session);
      leave('You are signed out.');
    } catch (err) {
      leave(
        err instanceof ApiError && err.status === 401
          ? 'You are signed out.'
          : `Signed out of this page, but the service could not confirm it: ${errorText(err)}`,
      );
    }
  };
  if (refused) return <Refused message={refused} />;
  if (exchanging) return <p aria-live="polite">Opening the portal…</p>;
  if (!session) return <SignIn onSession={start} linkError={linkError} notice={notice} framed={framed} />;
  if (!community) return <Picker session={session} pin={pin} onPick={setCommunity} onSignOut={end} />;
  return <Portal session={session} community={community} pin={pin} onSignOut={end} />;
}

render(<App />, document.getElementById('app')!);
