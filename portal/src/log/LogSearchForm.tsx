import { useState } from 'preact/hooks';
import { NO_SEARCH, type LogSearch } from './messages';

/** The search above the log: state and event type apply at once, the rest with Search. */
export function LogSearchForm({
  eventTypes,
  applied,
  onSearch,
}: {
  eventTypes: string[];
  applied: LogSearch;
  onSearch: (search: LogSearch) => void;
}) {
  const [draft, setDraft] = useState<LogSearch>(applied);
  const set = (field: 'since' | 'until' | 'messageId', value: string) =>
    setDraft({ ...draft, [field]: value });
  const pick = (field: 'status' | 'eventType', value: string) => {
    const next = { ...draft, [field]: value } as LogSearch;
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
