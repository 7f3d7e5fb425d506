import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { setResponseErrorCode } from './error-code';
import { logRequests } from './request-log';

type Line = Record<string, unknown>;

/** A Fastify app with the request lines at `level`, and a way to wait for the next line written. */
async function appLoggingAt(level: string) {
  const lines: Line[] = [];
  let waiting: ((line: Line) => void) | undefined;
  const logger = pino(
    { level },
    {
      write: (text: string) => {
        const line = JSON.parse(text) as Line;
        lines.push(line);
        waiting?.(line);
      },
    },
  );
  let releaseSlow: () => void = () => undefined;
  let slowStarted: () => void = () => undefined;
  const slowStart = new Promise<void>((resolve) => (slowStarted = resolve));
  const app: FastifyInstance = Fastify({ genReqId: () => 'req-fixed' });
  logRequests(app, logger);
  app.get('/api/ok', async () => ({ ok: true }));
  app.get('/api/health', async () => ({ ok: true }));
  app.get('/api/denied', async (_request, reply) => {
    setResponseErrorCode(reply.raw, 'FEATURE_NOT_AVAILABLE');
    return reply.status(403).send({ success: false });
  });
  app.get('/api/broken', async (_request, reply) => reply.status(500).send({ success: false }));
  app.get('/api/slow', async () => {
    slowStarted();
    await new Promise<void>((resolve) => (releaseSlow = resolve));
    return { ok: true };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    app,
    base,
    lines,
    slowStart,
    releaseSlow: () => releaseSlow(),
    nextLine: () => new Promise<Line>((resolve) => (waiting = resolve)),
  };
}

describe('request lines (Fastify hooks, one line per request)', () => {
  it('writes method, masked URL, status, error code, request id and time at the status level', async () => {
    const t = await appLoggingAt('info');
    try {
      let next = t.nextLine();
      await fetch(`${t.base}/api/ok?page=2&token=s3cret`);
      expect(await next).toMatchObject({
        level: 30,
        reqId: 'req-fixed',
        req: { id: 'req-fixed', method: 'GET', url: '/api/ok?page=2&token=%5BREDACTED%5D' },
        res: { statusCode: 200 },
        msg: 'GET /api/ok?page=2&token=%5BREDACTED%5D 200',
      });
      expect(typeof t.lines[0].responseTime).toBe('number');
      expect(t.lines[0]).not.toHaveProperty('code');

      next = t.nextLine();
      await fetch(`${t.base}/api/denied`);
      expect(await next).toMatchObject({
        level: 40,
        code: 'FEATURE_NOT_AVAILABLE',
        msg: 'GET /api/denied 403 FEATURE_NOT_AVAILABLE',
      });
      next = t.nextLine();
      await fetch(`${t.base}/api/broken`);
      expect(await next).toMatchObject({ level: 50, msg: 'GET /api/broken 500' });
      expect(JSON.stringify(t.lines)).not.toContain('s3cret');
    } finally {
      await t.app.close();
    }
  });

  it('writes nothing for a line below the configured level', async () => {
    const t = await appLoggingAt('warn');
    try {
      // Hooks run in order: once the 403's line is written, the 200's would have been too.
      await fetch(`${t.base}/api/ok`);
      const next = t.nextLine();
      await fetch(`${t.base}/api/denied`);
      await next;
      expect(t.lines.map((l) => l.msg)).toEqual(['GET /api/denied 403 FEATURE_NOT_AVAILABLE']);
    } finally {
      await t.app.close();
    }
  });

  it('writes nothing for the health probe', async () => {
    const t = await appLoggingAt('info');
    try {
      await fetch(`${t.base}/api/health`);
      const next = t.nextLine();
      await fetch(`${t.base}/api/ok`);
      await next;
      expect(t.lines.map((l) => l.msg)).toEqual(['GET /api/ok 200']);
    } finally {
      await t.app.close();
    }
  });

  it('writes a warn line for a request whose client went away before the answer', async () => {
    const t = await appLoggingAt('info');
    try {
      const next = t.nextLine();
      const req = httpRequest(`${t.base}/api/slow`);
      req.on('error', () => undefined);
      req.end();
      await t.slowStart;
      req.destroy();
      expect(await next).toMatchObject({
        level: 40,
        reqId: 'req-fixed',
        msg: 'GET /api/slow aborted by the client',
      });
    } finally {
      t.releaseSlow();
      await t.app.close();
    }
  });
});
