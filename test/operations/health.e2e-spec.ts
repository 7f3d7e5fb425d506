import { createTestApp, TestApp } from '../utils/app';
import { call } from '../utils/http';
import { freePort } from '../utils/metrics';

// With a dependency unreachable, /api/health names it, and nothing about where it lives: no host,
// port, database name or driver text reaches an anonymous caller (docs/api.md#http-contract).
describe('health answers name the failing dependency without internals', () => {
  let port: number;
  beforeAll(async () => {
    port = await freePort();
  });

  function expectNoInternals(body: unknown) {
    const text = JSON.stringify(body);
    expect(text).not.toContain(String(port));
    expect(text).not.toMatch(/127\.0\.0\.1|localhost|ECONNREFUSED|connect /i);
  }

  describe('database unreachable', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/cp_nowhere` });
    });
    afterAll(() => t.close());

    it('answers 503 with {database: {status: down, message: unreachable}}', async () => {
      const res = await call(t.app, 'GET', '/api/health');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
      expect(res.body.details.error).toEqual({ database: { status: 'down', message: 'unreachable' } });
      expect(res.body.details.info.redis).toEqual({ status: 'up' });
      expectNoInternals(res.body);
    });
  });

  describe('Redis unreachable', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ REDIS_URL: `redis://127.0.0.1:${port}` });
    });
    afterAll(() => t.close());

    it('answers 503 with {redis: {status: down, message: unreachable}}', async () => {
      const res = await call(t.app, 'GET', '/api/health');
      expect(res.status).toBe(503);
      expect(res.body.details.error).toEqual({ redis: { status: 'down', message: 'unreachable' } });
      expect(res.body.details.info.database).toEqual({ status: 'up' });
      expectNoInternals(res.body);
    });
  });
});
