import { createTestApp, TestApp } from '../utils/app';
import { call } from '../utils/http';

/**
 * Development logs (NODE_ENV is not production): pino-pretty lines on stdout, one per request, with
 * the error code of every 4xx/5xx; Nest's route-mapping lines only at debug level.
 */
describe('logs for people in development', () => {
  let written: string[];
  let spy: jest.SpyInstance;

  beforeEach(() => {
    written = [];
    spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  });
  afterEach(() => spy.mockRestore());

  describe('at info', () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp({ LOG_LEVEL: 'info' });
    });
    afterEach(() => t.close());

    it('writes readable lines, no route mapping, and the error code on each 4xx line', async () => {
      const unauthorized = await call(t.app, 'GET', '/api/sdk/tweets', {
        headers: { 'x-request-id': 'req-401' },
      });
      expect(unauthorized.body.code).toBe('UNAUTHORIZED');
      // Fastify's own refusal (malformed JSON) goes through its error handler, not the filter.
      const malformed = await call(t.app, 'POST', '/api/auth/login', {
        body: '{"email":',
        headers: { 'x-request-id': 'req-400' },
      });
      expect(malformed.status).toBe(400);
      const text = written.join('');

      expect(text).not.toMatch(/^\{/m); // not JSON lines
      expect(text).not.toContain('Mapped {');
      const line401 = text.split('\n').find((l) => l.includes('req-401'))!;
      expect(line401).toMatch(/WARN/);
      expect(line401).toContain('GET /api/sdk/tweets 401 UNAUTHORIZED');
      expect(line401).toContain('"code":"UNAUTHORIZED"');
      const line400 = text.split('\n').find((l) => l.includes('req-400'))!;
      expect(line400).toContain(`POST /api/auth/login 400 ${malformed.body.code}`);
    });
  });

  describe('at debug', () => {
    it('shows the route mapping', async () => {
      const t = await createTestApp({ LOG_LEVEL: 'debug' });
      await t.close();
      expect(written.join('')).toMatch(/DEBUG.*Mapped \{\/api\/health, GET\} route/);
    });
  });
});
