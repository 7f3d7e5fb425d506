/**
 * An endpoint's custom headers in the portal (docs/api.md#webhooks). Reads show each value masked; a PATCH
 * replaces the whole set, and a value sent back exactly as it was masked keeps the stored one. So the form
 * starts from the masked values and sends every row back: the admin edits one header without knowing the
 * others. The rules on names and values are the API's; the page shows its 400 message rather than
 * repeating them.
 */

/** A row of the form; `stored` is set for a header the endpoint already has. */
export interface HeaderRow {
  key: number;
  name: string;
  value: string;
  stored?: { name: string; masked: string };
}

let nextKey = 0;

export function rowsOf(headers: Record<string, string> | undefined): HeaderRow[] {
  return Object.entries(headers ?? {}).map(([name, masked]) => ({
    key: nextKey++,
    name,
    value: masked,
    stored: { name, masked },
  }));
}

export function emptyRow(): HeaderRow {
  return { key: nextKey++, name: '', value: '' };
}

/**
 * The `headers` object to send, or a problem found before the API: a masked value moved to another name
 * (the API refuses it, this says why), and two rows of one name, which the API cannot see: the object would
 * silently keep one of them.
 */
export function headersOf(rows: HeaderRow[]): { headers: Record<string, string> } | { problem: string } {
  const headers: Record<string, string> = {};
  for (const [index, row] of rows.entries()) {
    const name = row.name.trim();
    if (name === '' && row.value === '') continue;
    if (name === '') return { problem: `Header ${index + 1} has a value but no name: name it or remove it.` };
    if (row.stored && row.value === row.stored.masked && name !== row.stored.name) {
      return {
        problem: `Type the value of ${name} again: a masked value is kept only under its own name (${row.stored.name}).`,
      };
    }
    if (name in headers) return { problem: `${name} is listed twice: remove one of them.` };
    headers[name] = row.value;
  }
  return { headers };
}

/** The form's part: one row per header, add and remove (how many the API allows is its to say). */
export function HeadersEditor({
  rows,
  onChange,
  error,
}: {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  error: string | undefined;
}) {
  const update = (key: number, change: Partial<HeaderRow>) =>
    onChange(rows.map((row) => (row.key === key ? { ...row, ...change } : row)));
  return (
    <fieldset aria-describedby="headers-hint headers-error">
      <legend>Custom headers</legend>
      <p id="headers-hint" class="muted">
        Sent with every delivery and test, for example your receiver's own token. Saved values are masked (…
        and their last 4 characters at most): leave one as it is to keep it, or replace it with a new value.
      </p>
      {rows.map((row, index) => {
        const label = row.name.trim() || `header ${index + 1}`;
        return (
          <div key={row.key} class="header-row" role="group" aria-label={`Header ${index + 1}`}>
            <div>
              <label for={`header-name-${row.key}`}>
                Name<span class="sr-only"> of header {index + 1}</span>
              </label>
              <input
                id={`header-name-${row.key}`}
                type="text"
                autoComplete="off"
                spellcheck={false}
                value={row.name}
                aria-describedby="headers-error"
                onInput={(e) => update(row.key, { name: e.currentTarget.value })}
              />
            </div>
            <div>
              <label for={`header-value-${row.key}`}>
                Value<span class="sr-only"> of {label}</span>
              </label>
              <input
                id={`header-value-${row.key}`}
                type="text"
                autoComplete="off"
                spellcheck={false}
                value={row.value}
                aria-describedby="headers-error"
                onInput={(e) => update(row.key, { value: e.currentTarget.value })}
              />
            </div>
            <button
              type="button"
              class="danger"
              aria-label={`Remove ${label}`}
              onClick={() => onChange(rows.filter((r) => r.key !== row.key))}
            >
              Remove
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...rows, emptyRow()])}>
        Add header
      </button>
      <p id="headers-error" class="field-error">
        {error}
      </p>
    </fieldset>
  );
}

/** The card's part: names with their masked values, or nothing when the endpoint has none. */
export function HeadersList({ id, headers }: { id: string; headers: Record<string, string> | undefined }) {
  const entries = Object.entries(headers ?? {});
  if (entries.length === 0) return null;
  return (
    <div class="headers">
      <span class="muted" id={`headers-of-${id}`}>
        Custom headers:
      </span>
      <ul class="plain header-list" aria-labelledby={`headers-of-${id}`}>
        {entries.map(([name, masked]) => (
          <li key={name}>
            <code class="header-name">{name}</code>: <code>{masked}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}
