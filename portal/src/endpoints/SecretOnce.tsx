import { useEffect, useRef } from 'preact/hooks';
import { localTime } from '../api/types';
import { CopyButton } from '../shared/ui';

/** A secret just created or rotated, for the endpoint it belongs to. */
export interface ShownSecret {
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
export function SecretOnce({ shown, onDone }: { shown: ShownSecret; onDone: () => void }) {
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
