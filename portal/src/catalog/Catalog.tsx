import type { EventType } from '../api/types';

/** The events an endpoint can subscribe to, each with its schema and an example body. */
export function Catalog({ catalog }: { catalog: EventType[] }) {
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
