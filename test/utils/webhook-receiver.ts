import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** Decides the answer to a request; may be async (e.g. to change the database before answering). */
export type Responder = (request: ReceivedWebhook) => Answer | Promise<Answer>;

/** Answers on the raw response instead (a redirect, silence, a bare status): for transport tests. */
export type RawAnswer = (req: IncomingMessage, res: ServerResponse) => void;

export interface Receiver {
  port: number;
  /** base URL; endpoints use `${url}/<name>` so one receiver serves many endpoints */
  url: string;
  received: ReceivedWebhook[];
  at: (path: string) => ReceivedWebhook[];
  respond: (path: string, responder: Responder) => void;
  /** TCP connections accepted so far */
  connections: () => number;
  close: () => Promise<void>;
}

const answerOk: Responder = () => ({ status: 200 });

/**
 * A slow receiver: answers with `responder`'s answer (200 by default) only `delayMs` after the request
 * arrived, e.g. to outlast a delivery's timeout or to stay inside it.
 */
export function answerAfter(delayMs: number, responder: Responder = answerOk): Responder {
  return async (request) => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return responder(request);
  };
}

/**
 * A local webhook target (http.createServer on port 0, 127.0.0.1) that records every request and
 * connection. It answers with the path's responder (200 'ok' by default), or with `raw` for all.
 */
export async function startReceiver(raw?: RawAnswer): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const responders = new Map<string, Responder>();
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '/',
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      received.push(request);
      if (raw) return raw(req, res);
      void Promise.resolve((responders.get(request.path) ?? answerOk)(request)).then((a) => {
        res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
        res.end(a.body ?? 'ok');
      });
    });
  });
  server.on('connection', () => connections++);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    at: (path) => received.filter((r) => r.path === path),
    respond: (path, responder) => responders.set(path, responder),
    connections: () => connections,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })),
  };
}

/** Verifies a received request as a receiver would, with the public `standardwebhooks` library. */
export function verifyWebhook(request: ReceivedWebhook, secret: string): unknown {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });
}

/**
 * Answers 500 to the first request of each message (by webhook-id) and 200 to every later one, each
 * after `delayMs`: every event then goes through a retry.
 */
export function failEachFirstRequest(delayMs = 0): Responder {
  const seen = new Set<string>();
  return async (request) => {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const id = String(request.headers['webhook-id']);
    if (seen.has(id)) return { status: 200 };
    seen.add(id);
    return { status: 500 };
  };
}
