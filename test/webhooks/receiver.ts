import { once } from 'node:events';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  port: number;
  /** http://127.0.0.1:<port>/hooks */
  url: string;
  received: ReceivedRequest[];
  /** TCP connections accepted so far */
  connections: () => number;
  close: () => Promise<void>;
}

/** A local webhook receiver on 127.0.0.1 that records every request and connection it gets. */
export async function startReceiver(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString(),
      });
      answer(req, res);
    });
  });
  server.on('connection', () => connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    connections: () => connections,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}
