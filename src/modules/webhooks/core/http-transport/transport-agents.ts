import type { TLSSocket } from 'node:tls';
import type { Agent, buildConnector, Pool } from 'undici';
import { guardedLookup, httpClient } from '../delivery/delivery-agent';
import type { ResolveAll } from '../delivery/url-safety';
import { type EgressProxy, tunnelConnector } from './egress-proxy';
import type { TlsMaterial } from './endpoint-tls';

export interface TransportAgentOptions {
  resolve: ResolveAll;
  /** check every connect's resolved address (off only with WEBHOOK_ALLOW_INSECURE_TARGETS) */
  guardAddresses: boolean;
  connectTimeoutMs: number;
  /** keep-alive sockets per target origin */
  connectionsPerOrigin: number;
  /** WEBHOOK_EGRESS_PROXY, with the pool of connections to it that carries the tunnels */
  proxy: { proxy: EgressProxy; pool: Pool } | null;
}

/** A pool of connections to the proxy, each taken by one CONNECT tunnel. */
export function createProxyPool(proxy: EgressProxy, connectTimeoutMs: number): Pool {
  const { Pool } = httpClient();
  return new Pool(proxy.origin, {
    connect: { timeout: connectTimeoutMs },
    // a proxy that accepts the connection but never answers the CONNECT is as down as one that refuses it
    headersTimeout: connectTimeoutMs,
  });
}

/** TLS sessions kept per connector, one per target (host and port): the newest of each. */
const MAX_KEPT_SESSIONS = 256;

/**
 * `connect` with the newest TLS session of each target held strongly. undici's connector caches sessions
 * for resumption by weak reference only, so the first garbage collection after a handshake drops them, and a
 * reconnect (after the receiver closed an idle connection) is a full handshake again: certificate exchange
 * and a signature with the client key. Holding the session object keeps undici's entry alive. The session
 * of TLS 1.3 arrives in a ticket after the handshake, when the socket is already handed over (1.2's
 * arrives during it and stays weakly held).
 */
export function keepingSessions(connect: buildConnector.connector): buildConnector.connector {
  const kept = new Map<string, Buffer>();
  return (options, callback) =>
    connect(options, (...args) => {
      const socket = args[1];
      if (socket && (socket as TLSSocket).encrypted) {
        const target = `${options.servername ?? options.hostname}:${options.port}`;
        socket.on('session', (session: Buffer) => {
          kept.delete(target);
          kept.set(target, session);
          if (kept.size > MAX_KEPT_SESSIONS) kept.delete(kept.keys().next().value as string);
        });
      }
      callback(...args);
    });
}

/**
 * The keep-alive pool of deliveries (one per target origin inside, shared by every delivery it
 * carries), with an endpoint's client certificate and CA bundle when it has them (`tls`). Every
 * connect resolves the target and checks the address: straight out through the connect-time lookup
 * (guardedLookup), through the proxy by asking it for the checked address (tunnelConnector). TLS
 * sessions are kept per target (keepingSessions), so a reconnect resumes its session.
 * undici never follows redirects unless asked, which is what the platform wants.
 */
export function createTransportAgent(options: TransportAgentOptions, tls: TlsMaterial | null): Agent {
  const { Agent, buildConnector } = httpClient();
  const common = {
    connections: options.connectionsPerOrigin,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 60_000,
  };
  const tlsOptions = tls ?? {};
  if (!options.proxy)
    return new Agent({
      ...common,
      connect: keepingSessions(
        buildConnector({
          timeout: options.connectTimeoutMs,
          lookup: guardedLookup(options.resolve, options.guardAddresses),
          ...tlsOptions,
        }),
      ),
    });
  return new Agent({
    ...common,
    connect: tunnelConnector({
      proxy: options.proxy.proxy,
      proxyPool: options.proxy.pool,
      resolve: options.resolve,
      guard: options.guardAddresses,
      tlsConnect: keepingSessions(buildConnector({ timeout: options.connectTimeoutMs, ...tlsOptions })),
    }),
  });
}
