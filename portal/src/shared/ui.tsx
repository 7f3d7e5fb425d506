import { useState } from 'preact/hooks';
import type { DeliveryStatus } from '../api/types';

/** Small pieces every page uses: an error in words, a copy button, an event's chip, a state's badge. */
export function Alert({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export function Notice({ text }: { text: string | null }) {
  return text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null;
}

export function CopyButton({ text, label }: { text: string; label: string }) {
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

/** An event's name as a chip: it wraps as a whole, between chips, never inside the name. */
export function EventChip({ name }: { name: string }) {
  return <code class="event chip">{name}</code>;
}

/** An attempt's state (a message's: its latest attempt's) as a badge. */
export function StateBadge({ status }: { status: DeliveryStatus }) {
  return <span class={`badge ${status.toLowerCase()}`}>{status}</span>;
}

/**
 * A message id (msg_ + a ULID) short enough for a column: the ULID's first characters are its time, alike
 * for neighbouring messages, so its last ones are kept. The whole id is in the title and the attempt's detail.
 */
export function shortMessageId(id: string): string {
  return id.length > 16 ? `${id.slice(0, 4)}…${id.slice(-8)}` : id;
}
