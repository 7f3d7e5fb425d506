import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../api/client';

/**
 * Reads something when its inputs change; a slower answer to inputs left behind never replaces the latest.
 * `reload()` reads again with the same inputs.
 */
export function useLoad<T>(
  read: () => Promise<T>,
  inputs: unknown[],
): { value: T | null; error: string | null; reload: () => void } {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    read().then(
      (answer) => {
        if (!current) return;
        setError(null);
        setValue(answer);
      },
      (err) => current && setError(errorText(err)),
    );
    return () => {
      current = false;
    };
  }, [...inputs, round]);
  return { value, error, reload: () => setRound((n) => n + 1) };
}
