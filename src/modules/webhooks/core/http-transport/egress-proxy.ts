import { isIP, type Socket } from 'node:net';
import type { buildConnector, Pool } from 'undici';
import { guardedLookup } from '../delivery/delivery-agent';
import { isBlockedAddress, type ResolveAll } from '../delivery/url-safety';

/** WEBHOOK_EGRESS_PROXY as the tunnel uses it; `name` (host:port) is all a message ever shows of it. */
export interface EgressProxy {
  origin: string;
  name: string;
  /** `Basic …` when the setting carries a user name; never logged */
  authorization: string | null;
}

/** Reads WEBHOOK_EGRESS_PROXY (validated at start-up); null when unset. */
export function parseEgressProxy(raw: string | undefined): EgressProxy | null {
  if (!raw) return null;
  const url = new URL(raw);
  const user = decodeURIComponent(url.username);
  const authorization =
    url.username === ''
      ? null
      : `Basic ${Buffer.from(`${user}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  return { origin: `http://${url.host}`, name: url.host, authorization };
}

/** The proxy failed the attempt (down, refused the tunnel, or too slow); the message names its host only. */
export class EgressProxyError extends Error {
  readonly code = 'EEGRESSPROXY';
}

type Connector = buildConnector.connector;
type ConnectOptions = buildConnector.Options;
type Callback = buildConnector.Callback;

/** The one address of `hostname` a connect may use: checked as every connect's is (guardedLookup). */
function checkedAddress(resolve: ResolveAll, guard: boolean, hostname: string): Promise<string> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) !== 0) {
    if (guard && isBlockedAddress(bare))
      return Promise.reject(
        Object.assign(new Error(`connect refused: ${bare} is a non-public address`), {
          code: 'EBLOCKEDADDRESS',
        }),
      );
    return Promise.resolve(bare);
  }
  return new Promise((resolve_, reject) =>
    guardedLookup(resolve, guard)(bare, {}, (err, address) =>
      err ? reject(err) : resolve_(address as string),
    ),
  );
}

function proxyFailure(proxy: EgressProxy, err: unknown): EgressProxyError {
  const e = err as { code?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code;
  const why =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'ETIMEDOUT'
        ? 'no answer in time'
        : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
          ? 'connection reset'
          : (code ?? 'unreachable');
  return new EgressProxyError(`egress proxy ${proxy.name} failed: ${why}`);
}

/**
 * An undici connector that reaches the target through the proxy (docs/operations.md#a-static-egress-address):
 * it resolves and checks the target's host name first, exactly as a direct connect does, then asks the
 * proxy for a tunnel (`CONNECT`) to that checked ADDRESS, never the name, so the proxy neither resolves it
 * again nor reaches what the rules refuse. TLS then runs through the tunnel with the endpoint's host name
 * in SNI and the certificate check (`tlsConnect`, undici's own connector with the endpoint's material); the
 * request's `Host` is the origin's, as always. An http target (insecure targets allowed only) is tunnelled too.
 */
export function tunnelConnector(options: {
  proxy: EgressProxy;
  proxyPool: Pool;
  resolve: ResolveAll;
  guard: boolean;
  tlsConnect: Connector;
}): Connector {
  const { proxy, proxyPool, resolve, guard, tlsConnect } = options;
  return (opts: ConnectOptions, callback: Callback) => {
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    checkedAddress(resolve, guard, opts.hostname).then(
      (address) => {
        const authority = `${isIP(address) === 6 ? `[${address}]` : address}:${port}`;
        proxyPool
          .connect({
            path: authority,
            headers: {
              host: authority,
              ...(proxy.authorization ? { 'proxy-authorization': proxy.authorization } : {}),
            },
          })
          .then(
            ({ socket, statusCode }) => {
              if (statusCode !== 200) {
                socket.on('error', () => undefined).destroy();
                callback(
                  new EgressProxyError(`egress proxy ${proxy.name} refused the tunnel: HTTP ${statusCode}`),
                  null,
                );
                return;
              }
              if (opts.protocol !== 'https:') {
                callback(null, socket as Socket);
                return;
              }
              tlsConnect({ ...opts, httpSocket: socket as Socket }, callback);
            },
            (err: unknown) => callback(proxyFailure(proxy, err), null),
          );
      },
      (err: Error) => callback(err, null),
    );
  };
}
