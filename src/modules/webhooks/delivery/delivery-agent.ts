import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent } from 'undici';
import { isBlockedAddress, ResolveAll } from './url-safety';

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

/**
 * A `lookup` for net/tls.connect that resolves with `resolve` and refuses the connection when ANY
 * answer is a blocked address, so a name that passed validation and later re-binds to a private
 * address (DNS rebinding) still never reaches it. Handles both the single-address form and the
 * `all: true` form Node uses for happy-eyeballs connects.
 */
export function guardedLookup(resolve: ResolveAll, guard = true) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ) => {
    resolve(hostname).then(
      (answers) => {
        const blocked = guard ? answers.find((a) => isBlockedAddress(a.address)) : undefined;
        if (blocked) {
          callback(
            new BlockedAddressError(
              `connect refused: ${hostname} resolves to a non-public address (${blocked.address})`,
            ),
            '',
          );
          return;
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
          callback(err, '');
          return;
        }
        if (options.all)
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

export interface DeliveryAgentOptions {
  resolve: ResolveAll;
  /** check every connect's resolved address (off only with WEBHOOK_ALLOW_INSECURE_TARGETS) */
  guardAddresses: boolean;
  connectTimeoutMs: number;
  /** keep-alive sockets per target origin */
  connectionsPerOrigin?: number;
}

/**
 * One keep-alive connection pool per target origin, shared by every delivery of the process.
 * 128 sockets per origin carry ~1,000 deliveries/s to one receiver at up to ~100 ms per answer;
 * requests beyond that queue in the pool rather than opening more sockets against the receiver.
 * undici never follows redirects unless asked, which is what the platform wants.
 */
export function createDeliveryAgent(options: DeliveryAgentOptions): Agent {
  return new Agent({
    connections: options.connectionsPerOrigin ?? 128,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 60_000,
    connect: {
      timeout: options.connectTimeoutMs,
      lookup: guardedLookup(options.resolve, options.guardAddresses),
    },
  });
}
