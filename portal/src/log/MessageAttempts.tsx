import { useState } from 'preact/hooks';
import { localTime, type Message } from '../api/types';
import { StateBadge } from '../shared/ui';
import { AttemptDetail } from './AttemptDetail';
import { sentText } from './message-times';

/** A message's attempts, newest first, each with its detail on demand. */
export function MessageAttempts({ message }: { message: Message }) {
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
                {sentText(d.sentAt, localTime)}
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
