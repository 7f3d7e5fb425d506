import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { closeAfterRefusedBody } from './refused-body-close';

/**
 * The time bound of the lingering close, on a bare Node server and a real socket: the API's own
 * tests (test/http/over-limit-body.e2e-spec.ts) cover the answer, the drain and its byte bound.
 */
describe('closeAfterRefusedBody', () => {
  let server: Server;
  let port: number;
  let serverSideClosed: Promise<void>;

  beforeAll(async () => {
    server = createServer((req, res) => {
      serverSideClosed = new Promise((resolve) => req.socket.once('close', () => resolve()));
      // refused unread, as Fastify refuses a body over its limit
      closeAfterRefusedBody(req, { maxBytes: 1024 * 1024, maxMs: 50 });
      res.writeHead(413, { 'content-type': 'application/json', 'content-length': 16, connection: 'close' });
      res.end('{"refused":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('closes a connection whose caller stops sending once the time bound has passed, after the answer', async () => {
    // a caller that keeps its side open however the server ends: only the bound ends the wait
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    // the answer followed by an end of stream: a reset would be an error, never an 'end'
    const ended = new Promise((resolve) => socket.once('end', resolve));
    await new Promise((resolve) => socket.once('connect', resolve));
    // half the declared body, then silence
    socket.write('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 2048\r\n\r\n');
    socket.write(Buffer.alloc(1024, 'a'));
    await Promise.all([serverSideClosed, ended]);
    expect(received).toMatch(/^HTTP\/1\.1 413 [^]*\r\n\r\n\{"refused":true\}$/);
    socket.destroy();
  });
});
