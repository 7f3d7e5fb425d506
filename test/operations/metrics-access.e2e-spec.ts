import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { load } from 'js-yaml';
import { MetricsServer } from '../../src/metrics/metrics-server';
import { createTestApp, TestApp } from '../utils/app';
import {
  composeWorkerHealthcheck,
  freePort,
  getFrom,
  getLocal,
  parseExposition,
  scrape,
  valueOf,
} from '../utils/metrics';
import { DELIVERY_TEST_ENV, startTestWorker, TestWorker } from '../utils/worker';

/** The metrics servers' readiness, address and token (docs/operations.md#metrics-and-alerts). */
describe('worker readiness with its database unreachable', () => {
  let worker: TestWorker;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    const nowhere = await freePort();
    worker = await startTestWorker({
      ...DELIVERY_TEST_ENV,
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${nowhere}/cp_nowhere`,
      // a queue of its own: this worker must not take (and fail) the run's jobs
      REDIS_KEY_PREFIX: `${process.env.REDIS_KEY_PREFIX}:no-database`,
      METRICS_PORT: String(port),
    });
  });
  afterAll(() => worker?.stop());

  it('is live but not ready, naming the database and nothing of where it lives', async () => {
    expect((await getLocal(port, '/health/live')).status).toBe(200);
    const ready = await getLocal(port, '/health/ready');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text)).toEqual({
      status: 'unavailable',
      checks: { database: 'down', redis: 'up' },
    });
    expect(await composeWorkerHealthcheck(port)).toBe(1);
  });

  it('reports what it cannot read as NaN (unknown), never as a reassuring 0', async () => {
    const samples = await scrape(port);
    for (const name of [
      'outbox_lag_seconds',
      'webhook_deliveries_overdue',
      'webhook_endpoints_disabled',
      'webhook_fifo_endpoints_blocked',
      'webhook_fifo_deliveries_waiting',
    ])
      expect({ name, value: valueOf(samples, name) }).toEqual({ name, value: NaN });
    // Redis answers: the queue is read
    expect(valueOf(samples, 'webhook_queue_jobs', { state: 'waiting' })).toBe(0);
  });
});

describe('METRICS_HOST set', () => {
  let api: TestApp;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    api = await createTestApp({ METRICS_PORT: String(port), METRICS_HOST: '127.0.0.2' });
  });
  afterAll(() => api?.close());

  it('listens there and nowhere else', async () => {
    expect(api.app.get(MetricsServer).address).toBe('127.0.0.2');
    expect((await getFrom('127.0.0.2', port, '/metrics')).status).toBe(200);
    await expect(getFrom('127.0.0.1', port, '/metrics')).rejects.toThrow();
  });

  it('the image and the compose file set 0.0.0.0 explicitly (Prometheus scrapes from another container)', () => {
    const compose = load(readFileSync(resolve(__dirname, '../../docker-compose.yml'), 'utf8')) as {
      services: Record<string, { environment: Record<string, string> }>;
    };
    expect(compose.services.api.environment.METRICS_HOST).toBe('0.0.0.0');
    expect(compose.services.worker.environment.METRICS_HOST).toBe('0.0.0.0');
    expect(readFileSync(resolve(__dirname, '../../Dockerfile'), 'utf8')).toMatch(
      /^ENV METRICS_HOST=0\.0\.0\.0$/m,
    );
  });
});

describe('METRICS_TOKEN', () => {
  const token = randomBytes(24).toString('hex');
  let api: TestApp;
  let worker: TestWorker;
  let apiPort: number;
  let workerPort: number;
  beforeAll(async () => {
    apiPort = await freePort();
    do workerPort = await freePort();
    while (workerPort === apiPort);
    api = await createTestApp({ METRICS_PORT: String(apiPort), METRICS_TOKEN: token });
    worker = await startTestWorker({
      ...DELIVERY_TEST_ENV,
      // no database: this worker must not take the run's outbox or jobs; its readiness says so
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${await freePort()}/cp_nowhere`,
      REDIS_KEY_PREFIX: `${process.env.REDIS_KEY_PREFIX}:metrics-token`,
      METRICS_PORT: String(workerPort),
      METRICS_TOKEN: token,
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
  });

  it('answers /metrics 401 without the Bearer token or with another, 200 with it', async () => {
    for (const port of [apiPort, workerPort]) {
      const bare = await getFrom('127.0.0.1', port, '/metrics');
      expect(bare.status).toBe(401);
      expect(bare.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(bare.text).not.toContain('process_cpu');
      for (const wrong of [`Bearer ${token.slice(0, -1)}`, `Bearer ${token}x`, `Basic ${token}`, token])
        expect((await getFrom('127.0.0.1', port, '/metrics', { authorization: wrong })).status).toBe(401);
      const scraped = await getFrom('127.0.0.1', port, '/metrics', { authorization: `Bearer ${token}` });
      expect(scraped.status).toBe(200);
      expect(
        parseExposition(scraped.text).some((sample) => sample.name === 'process_cpu_user_seconds_total'),
      ).toBe(true);
    }
  });

  it("leaves the worker's health routes open (orchestrators' probes send no token)", async () => {
    expect((await getFrom('127.0.0.1', workerPort, '/health/live')).status).toBe(200);
    // no database here: 503, but an answer, not a 401
    expect((await getFrom('127.0.0.1', workerPort, '/health/ready')).status).toBe(503);
  });
});
