import { useEffect, useRef, useState } from 'preact/hooks';
import { call, client, errorText, type Session } from '../api/client';
import type { Message, Webhook } from '../api/types';
import { Alert, Notice } from '../shared/ui';
import { LogSearchForm } from './LogSearchForm';
import {
  appendNew,
  dueSoon,
  emptyText,
  FOLLOW_EVERY_MS,
  FOLLOW_MS,
  NO_SEARCH,
  PAGE,
  readMessages,
  readPage,
  TEST_EVENT,
  type LogSearch,
} from './messages';
import { MessagesTable } from './MessagesTable';
import { RecoverForm } from './RecoverForm';

/** An endpoint's delivery log by message, with its search, Load more, resend and recover. */
export function DeliveryLog({
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
  const [reload, setReload] = useState(0);
  const [followUntil, setFollowUntil] = useState(0);
  const at = { communityId, webhookId: webhook.id };
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
  }, [search, webhook.id]);
  useEffect(() => {
    let current = true;
    readMessages(session, at, search, shownCount.current)
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
  }, [search, reload, webhook.id, communityId, session]);
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
      const page = await readPage(session, at, search, messages.length, PAGE);
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
  const resend = (m: Message) =>
    act(async () => {
      const deliveryId = m.attempts[0]?.id ?? '';
      await call(session, (headers) =>
        client.POST('/api/communities/{communityId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
          params: { path: { ...at, deliveryId } },
          body: {},
          headers,
        }),
      );
      return `Event ${m.eventType} queued again.`;
    });
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
      <RecoverForm session={session} at={at} act={act} />
      <Alert error={error ?? loadError} />
      <Notice text={notice} />
      {!messages && !loadError && <p aria-live="polite">Loading deliveries…</p>}
      {messages?.length === 0 && <p data-testid="log-empty">{emptyText(search)}</p>}
      {messages && messages.length > 0 && (
        <MessagesTable
          messages={messages}
          expanded={expanded}
          onToggle={toggle}
          onResend={(m) => void resend(m)}
        />
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
