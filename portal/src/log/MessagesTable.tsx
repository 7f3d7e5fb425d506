import { localTime, type Message } from '../api/types';
import { CopyButton, EventChip, shortMessageId, StateBadge } from '../shared/ui';
import { MessageAttempts } from './MessageAttempts';
import { firstSent, lastSent, sentText } from './message-times';

/**
 * The log's rows, one per message: First attempt and Last attempt say when those attempts were SENT
 * (message-times.ts). A phone gets each message as a block of labelled lines; a table wider than its box
 * still scrolls inside it, never the page, and takes the focus so a keyboard can scroll it too.
 */
export function MessagesTable({
  messages,
  expanded,
  onToggle,
  onResend,
}: {
  messages: Message[];
  expanded: ReadonlySet<string>;
  onToggle: (messageId: string) => void;
  onResend: (message: Message) => void;
}) {
  return (
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
                  {sentText(firstSent(m), localTime)}
                </td>
                <td class="time" data-label="Last attempt" data-column="last-attempt">
                  {sentText(lastSent(m), localTime)}
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
                      onClick={() => onToggle(m.messageId)}
                    >
                      Attempts
                    </button>
                    {/* the API refuses to resend a test (the test route sends another) or an expunged message */}
                    {!m.test && !m.expungedAt && (
                      <button type="button" onClick={() => onResend(m)}>
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
  );
}
