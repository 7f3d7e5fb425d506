import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isBlockedAddress, ResolveAll, ResolvedAddress } from './url-safety';

export const defaultResolveAll: ResolveAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The socket was about to connect to an address the platform never delivers to. */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

type LookupOutcome =
  | { err: NodeJS.ErrnoException; address?: undefined; family?: undefined }
  | { err: null; address: string | LookupAddress[]; family?: number };

/** The message a delivery log records when the connect-time check could not classify the answer. */
function addressCheckFailed(hostname: string): BlockedAddressError {
  return new BlockedAddressError(`connect refused: address check failed for ${hostname}`);
}

function isResolvedAddress(a: unknown): a is ResolvedAddress {
  const r = a as ResolvedAddress | null;
  return (
    typeof r === 'object' && r !== null && typeof r.address === 'string' && (r.family === 4 || r.family === 6)
  );
}

/** What the lookup answers for `answers`; pure, and every failure is an error outcome, never a throw. */
function decide(
  hostname: string,
  answers: unknown,
  options: { all?: boolean; family?: number | string },
  guard: boolean,
): LookupOutcome {
  // A resolver that answers something other than a list of {address, family} cannot be checked:
  // refusing is the only safe reading.
  if (!Array.isArray(answers) || !answers.every(isResolvedAddress))
    return { err: addressCheckFailed(hostname) };
  const blocked = guard ? answers.find((a) => isBlockedAddress(a.address)) : undefined;
  if (blocked) {
    return {
      err: new BlockedAddressError(
        `connect refused: ${hostname} resolves to a non-public address (${blocked.address})`,
      ),
    };
  }
  const family =
    options.family === 4 || options.family === 'IPv4'
      ? 4
      : options.family === 6 || options.family === 'IPv6'
        ? 6
        : 0;
  const usable = family === 0 ? answers : answers.filter((a) => a.family === family);
  if (usable.length === 0) {
    const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    err.code = 'ENOTFOUND';
    return { err };
  }
  if (options.all)
    return { err: null, address: usable.map((a) => ({ address: a.address, family: a.family })) };
  return { err: null, address: usable[0].address, family: usable[0].family };
}

/**
 * A `lookup` for net/tls.connect that resolves with `resolve` and refuses the connection when ANY
 * answer is a blocked address, so a name that passed validation and later re-binds to a private
 * address (DNS rebinding) still never reaches it. Handles both the single-address form and the
 * `all: true` form Node uses for happy-eyeballs connects.
 *
 * It never throws and never leaves a rejected promise behind: a resolver that throws synchronously,
 * rejects, or answers garbage, and any failure while checking the answers, fails THIS connect through
 * the callback (the delivery log records it), because an unhandled rejection here would end the
 * worker (or the API, through the test-delivery route). The callback runs once, on a later tick
 * and outside the promise chain, as dns.lookup's does.
 */
export function guardedLookup(resolve: ResolveAll, guard = true) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ) => {
    const answer = (outcome: LookupOutcome) =>
      process.nextTick(() =>
        outcome.err ? callback(outcome.err, '') : callback(null, outcome.address, outcome.family),
      );
    new Promise<unknown>((ok) => ok(resolve(hostname)))
      .then(
        (answers) => decide(hostname, answers, options ?? {}, guard),
        (err: unknown): LookupOutcome => ({
          err: err instanceof Error ? err : addressCheckFailed(hostname),
        }),
      )
      .catch((): LookupOutcome => ({ err: addressCheckFailed(hostname) }))
      .then(answer, () => undefined);
  };
}

let undici: typeof import('undici') | undefined;

/**
 * undici, required on the first send rather than at start. The worker sends all day, but the API
 * sends only for the test route, and the package is among the largest it would otherwise hold for
 * its whole life (docs/architecture.md#what-each-process-loads).
 */
export function httpClient(): typeof import('undici') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (undici ??= require('undici') as typeof import('undici'));
}
