import { connect, type AddressInfo, type Socket } from 'node:net';
import { REFUSED_BODY_DRAIN } from '../../src/common/http/refused-body-close';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken } from '../utils/factories';

/**
 * A body over the limit is answered 413 with the error body, and the connection closes only
 * once the caller could read that answer, even a caller that writes its whole body before it reads
 * (docs/api.md#http-contract). These tests talk to a listening server over raw sockets: Fastify's
 * inject has no socket to reset.
 */

const OVER_LIMIT_BYTES = 2 * 1024 * 1024;
const PIECE_BYTES = 64 * 1024;
const ROUNDS = 50;

/** What a raw connection saw: the bytes it read, the first socket error, how it ended. */
class RawConnection {
  readonly socket: Socket;
  private readonly received: Buffer[] = [];
  error?: string;
  /** the server ended its side in order (a FIN), as opposed to a reset */
  ended = false;
  readonly closed: Promise<void>;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => this.received.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => (this.error ??= err.code ?? err.message));
    socket.on('end', () => (this.ended = true));
    this.closed = new Promise((resolve) => socket.on('close', () => resolve()));
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Writes and waits until the bytes are handed to the kernel; false once the socket failed. */
  write(data: string | Buffer): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve(false);
      this.socket.write(data, (err) => resolve(!err));
    });
  }

  /** The answer once its head and its Content-Length of body have arrived (or the socket closed). */
  async answer(): Promise<{ status?: number; headers: Record<string, string>; body: string }> {
    for (;;) {
      const parsed = this.parse();
      if (parsed.complete || this.socket.destroyed) return parsed;
      await new Promise((resolve) => {
        this.socket.once('data', resolve);
        this.socket.once('close', resolve);
      });
    }
  }

  private parse() {
    const text = Buffer.concat(this.received).toString('latin1');
    const split = text.indexOf('\r\n\r\n');
    const lines = (split < 0 ? '' : text.slice(0, split)).split('\r\n');
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(lines[0] ?? '')?.[1];
    const headers = Object.fromEntries(
      lines.slice(1).map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    const body = split < 0 ? '' : text.slice(split + 4);
    const complete = split >= 0 && body.length >= Number(headers['content-length'] ?? Infinity);
    return { status: status === undefined ? undefined : Number(status), headers, body, complete };
  }
}

const requestHead = (method: string, path: string, headers: Record<string, string>) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('') +
  '\r\n';

function* chunkedFraming(body: Buffer): Generator<Buffer | string> {
  for (let at = 0; at < body.length; at += PIECE_BYTES) {
    const piece = body.subarray(at, at + PIECE_BYTES);
    yield `${piece.length.toString(16)}\r\n`;
    yield piece;
    yield '\r\n';
  }
  yield '0\r\n\r\n';
}

const tooLarge = (limit: string) =>
  JSON.stringify({
    success: false,
    error: `Request body is larger than ${limit}`,
    code: 'PAYLOAD_TOO_LARGE',
  });

describe('a body over the limit, over a real socket', () => {
  let t: TestApp;
  let port: number;
  let token: string;
  const body = Buffer.alloc(OVER_LIMIT_BYTES, 'a');

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    token = (await memberWithToken(t.app, { role: 'OWNER' })).token;
  });
  afterAll(() => t.close());

  const routes = [
    { method: 'POST', path: '/api/auth/login', limit: '16 KiB', auth: false },
    { method: 'POST', path: '/api/webhooks/portal-sessions', limit: '16 KiB', auth: false },
    { method: 'POST', path: '/api/sdk/tweets', limit: '1 MiB', auth: true },
    { method: 'PATCH', path: '/api/sdk/community/settings', limit: '1 MiB', auth: true },
  ];
  const headersOf = (route: (typeof routes)[number], framing: Record<string, string>) => ({
    ...(route.auth ? { Authorization: `Bearer ${token}` } : {}),
    ...framing,
  });

  it.each([
    ['Content-Length', false],
    ['chunked', true],
  ])(
    `answers ${ROUNDS} bodies of 2 MiB (%s), each written whole before reading, with a 413 the caller reads`,
    async (_framing, chunked) => {
      const outcomes: Record<string, number> = {};
      for (let round = 0; round < ROUNDS; round++) {
        const route = routes[round % routes.length]!;
        const framing: Record<string, string> = chunked
          ? { 'Transfer-Encoding': 'chunked' }
          : { 'Content-Length': String(body.length) };
        const connection = await RawConnection.open(port);
        // everything handed over without waiting, then the end of the request, and only then a read
        connection.socket.write(requestHead(route.method, route.path, headersOf(route, framing)));
        if (chunked) for (const piece of chunkedFraming(body)) connection.socket.write(piece);
        else connection.socket.write(body);
        connection.socket.end();
        await connection.closed;
        const answer = await connection.answer();
        const outcome =
          connection.error !== undefined
            ? `${route.path}: ${connection.error}`
            : answer.status === 413 &&
                answer.body === tooLarge(route.limit) &&
                answer.headers.connection === 'close' &&
                connection.ended
              ? 'read 413, then the end of the connection'
              : `${route.path}: ${answer.status} ${answer.headers.connection} ${answer.body.slice(0, 80)}`;
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
      expect(outcomes).toEqual({ 'read 413, then the end of the connection': ROUNDS });
    },
  );

  it('lets a caller that read the 413 finish sending its body, then ends the connection in order', async () => {
    const route = routes[2]!;
    const connection = await RawConnection.open(port);
    const head = requestHead(
      route.method,
      route.path,
      headersOf(route, { 'Content-Length': String(body.length) }),
    );
    await connection.write(head);
    await connection.write(body.subarray(0, PIECE_BYTES));
    const answer = await connection.answer();
    expect(answer.status).toBe(413);
    expect(answer.body).toBe(tooLarge(route.limit));
    expect(answer.headers.connection).toBe('close');

    // the rest of the body after the answer: a server that closed at once resets these writes
    let written = PIECE_BYTES;
    while (written < body.length && (await connection.write(body.subarray(written, written + PIECE_BYTES))))
      written += PIECE_BYTES;
    expect({ written, error: connection.error }).toEqual({ written: body.length, error: undefined });
    connection.socket.end();
    await connection.closed;
    expect({ ended: connection.ended, error: connection.error }).toEqual({ ended: true, error: undefined });
  });

  it(`reads no more than ${REFUSED_BODY_DRAIN.maxBytes / 1024 / 1024} MiB of a refused body before cutting the connection`, async () => {
    const route = routes[0]!;
    const declared = 64 * 1024 * 1024;
    const connection = await RawConnection.open(port);
    await connection.write(requestHead(route.method, route.path, { 'Content-Length': String(declared) }));
    const piece = Buffer.alloc(PIECE_BYTES, 'a');
    let written = 0;
    while (written < declared && (await connection.write(piece))) written += PIECE_BYTES;
    await connection.closed;
    const answer = await connection.answer();
    expect(answer.status).toBe(413);
    expect(answer.body).toBe(tooLarge(route.limit));
    // cut once the drain bound was read, not after the 64 MiB Node would otherwise read to the end
    expect(connection.error).toBeDefined();
    expect(written).toBeLessThan(declared / 2);
  });
});
