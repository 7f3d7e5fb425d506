import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { waitFor } from './worker';

/** A spare TCP port on the loopback interface. */
export async function sparePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** PEM text made by the openssl CLI in a directory of the test's own. */
export interface TestPki {
  dir: string;
  /** a CA that signed the receiver's certificate (not among the system's roots) */
  serverCa: string;
  serverCert: string;
  serverKey: string;
  /** the CA the receiver trusts for client certificates */
  clientCa: string;
  clientCert: string;
  clientKey: string;
  /** a key that belongs to no certificate here */
  strayKey: string;
  /** a client certificate valid for `days` only */
  clientCertValidFor: (days: number) => { cert: string; key: string };
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** CAs, a server certificate for `serverName` and a client certificate, made with openssl. */
export function makePki(serverName: string): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'pki-'));
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  const ca = (name: string) =>
    openssl(
      dir,
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
    );
  const leaf = (name: string, caName: string, subject: string, days: number, ext: string) => {
    openssl(
      dir,
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      subject,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
    );
    writeFileSync(join(dir, `${name}.ext`), ext);
    openssl(
      dir,
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${caName}.pem`,
      '-CAkey',
      `${caName}.key`,
      '-CAcreateserial',
      '-days',
      String(days),
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    );
    return { cert: read(`${name}.pem`), key: read(`${name}.key`) };
  };
  ca('server-ca');
  ca('client-ca');
  const server = leaf('server', 'server-ca', `/CN=${serverName}`, 2, `subjectAltName=DNS:${serverName}\n`);
  const client = leaf(
    'client',
    'client-ca',
    '/CN=platform-client/O=Test Receiver',
    2,
    'extendedKeyUsage=clientAuth\n',
  );
  openssl(dir, 'genpkey', '-algorithm', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'stray.key');
  let n = 0;
  return {
    dir,
    serverCa: read('server-ca.pem'),
    serverCert: server.cert,
    serverKey: server.key,
    clientCa: read('client-ca.pem'),
    clientCert: client.cert,
    clientKey: client.key,
    strayKey: read('stray.key'),
    clientCertValidFor: (days) =>
      leaf(`client-${++n}`, 'client-ca', '/CN=short-lived', days, 'extendedKeyUsage=clientAuth\n'),
  };
}

export interface TlsReceiver {
  port: number;
  /** requests that arrived, with the client certificate's subject CN they came with */
  received: {
    path: string;
    host: string | undefined;
    authorization: string | undefined;
    clientCn: string | null;
  }[];
  /** TLS handshakes completed: all of them, and those that resumed an earlier session */
  handshakes: { total: number; resumed: number };
  /** answers by the request: a status */
  answer: (respond: (req: IncomingMessage) => number) => void;
  /** ends every open connection (the kept-alive ones included), as a receiver's idle timeout does */
  dropConnections: () => void;
  close: () => Promise<void>;
}

/** An https receiver that demands a client certificate signed by `pki.clientCa` (Node's https, requestCert). */
export async function startTlsReceiver(
  pki: TestPki,
  options: { requireClientCert: boolean },
): Promise<TlsReceiver> {
  let respond: (req: IncomingMessage) => number = () => 200;
  const received: TlsReceiver['received'] = [];
  const server = createHttpsServer(
    {
      cert: pki.serverCert,
      key: pki.serverKey,
      ca: pki.clientCa,
      requestCert: options.requireClientCert,
      rejectUnauthorized: options.requireClientCert,
    },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      received.push({
        path: req.url ?? '',
        host: req.headers.host,
        authorization: req.headers.authorization,
        clientCn: peer && peer.subject ? String(peer.subject.CN) : null,
      });
      req.resume();
      req.on('end', () => res.writeHead(respond(req)).end());
    },
  );
  const handshakes = { total: 0, resumed: 0 };
  server.on('secureConnection', (socket: TLSSocket) => {
    handshakes.total++;
    if (socket.isSessionReused()) handshakes.resumed++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    handshakes,
    answer: (next) => (respond = next),
    dropConnections: () => server.closeAllConnections(),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface TokenServer {
  url: string;
  /** each token request: its Authorization header and form */
  requests: { authorization: string | undefined; form: URLSearchParams }[];
  /** the status to answer with (200 issues a new token `tok-<n>`) */
  status: number;
  expiresIn: number;
  close: () => Promise<void>;
}

/** A client-credentials token endpoint served by the test: tokens tok-1, tok-2, … */
export async function startTokenServer(): Promise<TokenServer> {
  const state: TokenServer = {
    url: '',
    requests: [],
    status: 200,
    expiresIn: 3600,
    close: async () => undefined,
  };
  const server: Server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      state.requests.push({ authorization: req.headers.authorization, form: new URLSearchParams(body) });
      if (state.status !== 200) return res.writeHead(state.status).end('{"error":"server_error"}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          access_token: `tok-${state.requests.length}`,
          token_type: 'Bearer',
          expires_in: state.expiresIn,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

export interface Squid {
  port: number;
  url: string;
  /** the CONNECT lines of its access log so far (method and authority of each) */
  connects: () => string[];
  stop: () => Promise<void>;
  start: () => Promise<void>;
}

/**
 * Debian's squid as a forward proxy on a spare port (`.ci/run` installs it), its access log in a
 * directory of its own; started in the foreground (-N), stopped by its PID.
 */
export async function startSquid(): Promise<Squid> {
  const dir = mkdtempSync(join(tmpdir(), 'squid-'));
  // squid started as root writes its logs as the `proxy` user
  chmodSync(dir, 0o777);
  const port = await sparePort();
  const conf = join(dir, 'squid.conf');
  const log = join(dir, 'access.log');
  writeFileSync(
    conf,
    [
      `http_port 127.0.0.1:${port}`,
      `pid_filename ${join(dir, 'squid.pid')}`,
      `access_log stdio:${log}`,
      `cache_log ${join(dir, 'cache.log')}`,
      'cache deny all',
      'cache_mem 8 MB',
      'pinger_enable off',
      'http_access allow all',
      'shutdown_lifetime 0 seconds',
      `coredump_dir ${dir}`,
      'logfile_rotate 0',
      // every log line at once, so the test reads what has happened
      'buffered_logs off',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('/usr/sbin/squid', ['-N', '-f', conf], { stdio: 'ignore' });
    await waitFor(
      'squid to listen',
      async () => {
        const socket = createNetServer();
        // the port is taken once squid listens
        const free = await new Promise<boolean>((resolve) => {
          socket.once('error', () => resolve(false));
          socket.listen(port, '127.0.0.1', () => socket.close(() => resolve(true)));
        });
        return !free;
      },
      15_000,
      100,
    );
  };
  await start();
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    connects: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((line) => / CONNECT /.test(line))
            .map((line) => line.split(/\s+/).slice(5, 7).join(' '))
        : [],
    stop: async () => {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      process.kill(running.pid!, 'SIGKILL');
      await exited;
    },
    start,
  };
}
