import type { Filter } from '../api/types';
import {
  condition,
  filterOf,
  formOf,
  OPERATORS,
  rowOfPath,
  type Condition,
  type FilterForm,
  type Operator,
} from './filter-model';

/** The editor's state: rows for the common case, or the JSON as typed. */
export interface FilterDraft {
  mode: 'form' | 'json';
  form: FilterForm;
  json: string;
}

export function draftOf(filter: Filter | null | undefined): FilterDraft {
  const form = formOf(filter);
  const json = filter ? JSON.stringify(filter, null, 2) : '';
  return form ? { mode: 'form', form, json } : { mode: 'json', form: { join: 'all', conditions: [] }, json };
}

/** The filter to send (null: none), or why the JSON typed cannot be sent. */
export function filterOfDraft(draft: FilterDraft): { filter: Filter | null } | { problem: string } {
  if (draft.mode === 'form') return { filter: filterOf(draft.form) };
  if (draft.json.trim() === '') return { filter: null };
  try {
    return { filter: JSON.parse(draft.json) as Filter };
  } catch {
    return { problem: 'The filter is not JSON: check its brackets and quotes.' };
  }
}

/**
 * The endpoint form's filter (docs/api.md#content-filters): rows of field, operator and value joined by all or
 * any, with the JSON they make shown under them; or the JSON itself for what rows cannot say. `error` is the
 * server's message for the node at `errorPath` (e.g. `filter.$and[1].data.role.$in[0]`), shown at that row.
 */
export function FilterEditor({
  draft,
  onChange,
  errorPath,
  error,
}: {
  draft: FilterDraft;
  onChange: (draft: FilterDraft) => void;
  errorPath: string | null;
  error: string | undefined;
}) {
  const { form } = draft;
  const badRow = errorPath && draft.mode === 'form' ? rowOfPath(errorPath, form.conditions.length) : null;
  const setForm = (next: FilterForm) => {
    const filter = filterOf(next);
    onChange({ mode: 'form', form: next, json: filter ? JSON.stringify(filter, null, 2) : '' });
  };
  const update = (key: number, change: Partial<Condition>) =>
    setForm({ ...form, conditions: form.conditions.map((c) => (c.key === key ? { ...c, ...change } : c)) });
  const toForm = () => {
    const parsed = filterOfDraft(draft);
    const rows = 'filter' in parsed ? formOf(parsed.filter) : null;
    if (rows) setForm(rows);
  };
  const generalError = error && (badRow === null || draft.mode === 'json') ? error : undefined;
  return (
    <fieldset class="filter" aria-describedby="filter-hint filter-error">
      <legend>Filter</legend>
      <p id="filter-hint" class="muted">
        Only events whose body matches are sent (none: every subscribed event). A field is <code>type</code>,{' '}
        <code>subject</code>, <code>timestamp</code> or a path under <code>data</code> such as{' '}
        <code>data.tweet.authorId</code>; a value is text, or a number, <code>true</code>, <code>false</code>,{' '}
        <code>null</code>, or <code>"quoted"</code> text; a list is comma-separated.
      </p>
      <div class="row" role="group" aria-label="Filter editor">
        <button type="button" aria-pressed={draft.mode === 'form'} onClick={toForm}>
          Conditions
        </button>
        <button
          type="button"
          aria-pressed={draft.mode === 'json'}
          onClick={() => onChange({ ...draft, mode: 'json' })}
        >
          JSON
        </button>
      </div>
      {draft.mode === 'form' ? (
        <>
          {form.conditions.length > 1 && (
            <label class="check">
              <span>Send when</span>
              <select
                aria-label="How conditions combine"
                value={form.join}
                onChange={(e) => setForm({ ...form, join: e.currentTarget.value as FilterForm['join'] })}
              >
                <option value="all">all conditions hold (and)</option>
                <option value="any">any condition holds (or)</option>
              </select>
            </label>
          )}
          {form.conditions.map((row, index) => (
            <div
              key={row.key}
              class={`filter-row${badRow === index ? ' invalid' : ''}`}
              role="group"
              aria-label={`Condition ${index + 1}`}
              data-condition={index}
            >
              <input
                type="text"
                aria-label={`Field of condition ${index + 1}`}
                placeholder="data.tweet.authorId"
                spellcheck={false}
                autoComplete="off"
                value={row.field}
                aria-invalid={badRow === index}
                onInput={(e) => update(row.key, { field: e.currentTarget.value })}
              />
              <select
                aria-label={`Operator of condition ${index + 1}`}
                value={row.operator}
                onChange={(e) => update(row.key, { operator: e.currentTarget.value as Operator })}
              >
                {OPERATORS.map(([op, words]) => (
                  <option key={op} value={op}>
                    {words}
                  </option>
                ))}
              </select>
              {row.operator === '$exists' ? (
                <select
                  aria-label={`Value of condition ${index + 1}`}
                  value={row.value === 'false' ? 'false' : 'true'}
                  onChange={(e) => update(row.key, { value: e.currentTarget.value })}
                >
                  <option value="true">yes</option>
                  <option value="false">no</option>
                </select>
              ) : (
                <input
                  type="text"
                  aria-label={`Value of condition ${index + 1}`}
                  spellcheck={false}
                  autoComplete="off"
                  value={row.value}
                  aria-invalid={badRow === index}
                  onInput={(e) => update(row.key, { value: e.currentTarget.value })}
                />
              )}
              <button
                type="button"
                class="danger"
                aria-label={`Remove condition ${index + 1}`}
                onClick={() =>
                  setForm({ ...form, conditions: form.conditions.filter((c) => c.key !== row.key) })
                }
              >
                Remove
              </button>
              {badRow === index && (
                <p class="field-error" data-testid="filter-row-error">
                  {error}
                </p>
              )}
            </div>
          ))}
          <button
            type="button"
            onClick={() => setForm({ ...form, conditions: [...form.conditions, condition()] })}
          >
            Add condition
          </button>
          <pre class="filter-json" data-testid="filter-json" aria-label="The filter as JSON">
            {draft.json || 'No filter: every subscribed event is sent.'}
          </pre>
        </>
      ) : (
        <textarea
          id="filter-json"
          aria-label="The filter as JSON"
          rows={8}
          spellcheck={false}
          value={draft.json}
          aria-invalid={!!error}
          onInput={(e) => onChange({ ...draft, json: e.currentTarget.value })}
        />
      )}
      <p id="filter-error" class="field-error">
        {generalError && (
          <>
            {generalError} {errorPath && <span class="muted">(at {errorPath})</span>}
          </>
        )}
      </p>
    </fieldset>
  );
}
