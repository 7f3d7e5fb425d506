import { createServer, IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
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

export interface Receiver {
  /** base URL; endpoints use `${url}/<name>` so one receiver serves many endpoints */
  url: string;
  received: ReceivedWebhook[];
  at: (path: string) => ReceivedWebhook[];
  respond: (path: string, responder: Responder) => void;
  close: () => Promise<void>;
}

const answerOk: Responder = () => ({ status: 200 });

/** A local webhook target (http.createServer on port 0) that records every request. */
export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedWebhook[] = [];
  const responders = new Map<string, Responder>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      received.push(request);
      void Promise.resolve((responders.get(request.path) ?? answerOk)(request)).then((a) => {
        res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
        res.end(a.body ?? 'ok');
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    at: (path) => received.filter((r) => r.path === path),
    respond: (path, responder) => responders.set(path, responder),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
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
