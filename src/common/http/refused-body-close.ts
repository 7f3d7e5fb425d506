import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface DrainBounds {
  /** bytes of the refused body read and thrown away after the answer before the connection is cut */
  maxBytes: number;
  /** how long after the answer the connection may stay open for the caller to finish sending */
  maxMs: number;
}

/**
 * A caller that writes its whole body before it reads has a few MiB in flight when a 413 leaves; a
 * few more are read and thrown away, for a few seconds at most, so that it reaches its read.
 */
export const REFUSED_BODY_DRAIN: DrainBounds = { maxBytes: 4 * 1024 * 1024, maxMs: 5_000 };

/**
 * Closes the connection of a request whose body is refused before it is read (a 413), once its
 * answer is written, without resetting it under a caller still sending (docs/api.md#http-contract).
 *
 * The answer carries `Connection: close` (Fastify marks every body it fails to read so), and Node
 * ends such a connection by calling the socket's destroySoon(): it closes the socket as soon as the
 * answer is flushed, and closing a socket with unread bytes sends a TCP reset. The caller, still
 * writing its body, gets EPIPE or ECONNRESET and may lose the answer it had not read yet. In its
 * place this socket half-closes (the answer, then end of stream) and goes on reading, Node's parser
 * throwing the rest of the body away, until the caller closes its side or one of `bounds` is
 * reached (a lingering close). Without `Connection: close` Node would keep the connection and read
 * the refused body to its end, however long.
 */
export function closeAfterRefusedBody(
  request: IncomingMessage,
  bounds: DrainBounds = REFUSED_BODY_DRAIN,
): void {
  const socket = request.socket as Socket | null;
  // Fastify's inject has a stand-in socket that nothing closes
  if (!socket || socket.destroyed || typeof socket.destroySoon !== 'function') return;
  socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    let drained = 0;
    const cut = () => this.destroy();
    const timer = setTimeout(cut, bounds.maxMs);
    const count = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > bounds.maxBytes) cut();
    };
    request.on('data', count);
    this.once('close', () => {
      clearTimeout(timer);
      request.removeListener('data', count);
    });
  };
}
