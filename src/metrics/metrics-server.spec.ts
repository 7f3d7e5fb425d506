import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { loadConfig } from '../config/app-config';
import { MetricsRegistry } from './metrics-registry';
import { MetricsServer } from './metrics-server';

/** A local port free at the time of asking. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('MetricsServer settings', () => {
  afterEach(() => jest.restoreAllMocks());

  it('refuses a METRICS_TOKEN that is short or has spaces, without echoing it', () => {
    for (const bad of ['short-token', `${'a'.repeat(20)} ${'b'.repeat(20)}`]) {
      let message = '';
      try {
        loadConfig({ ...process.env, METRICS_TOKEN: bad });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/METRICS_TOKEN must be at least 32 printable characters/);
      expect(message).not.toContain(bad);
    }
  });

  it('listens on loopback unless METRICS_HOST says otherwise, and refuses a METRICS_HOST that is not an address or a name', () => {
    expect(loadConfig({ ...process.env, METRICS_HOST: undefined }).config.METRICS_HOST).toBe('127.0.0.1');
    expect(loadConfig({ ...process.env, METRICS_HOST: '0.0.0.0' }).config.METRICS_HOST).toBe('0.0.0.0');
    expect(() => loadConfig({ ...process.env, METRICS_HOST: 'http://0.0.0.0' })).toThrow(
      /METRICS_HOST must be/,
    );
  });

  it('logs where it listens and that a token is needed, never the token', async () => {
    const token = randomBytes(24).toString('hex');
    const lines: string[] = [];
    jest
      .spyOn(Logger.prototype, 'log')
      .mockImplementation((message: unknown) => void lines.push(String(message)));
    const port = await freePort();
    const config = loadConfig({ ...process.env, METRICS_PORT: String(port), METRICS_TOKEN: token }).config;
    const server = new MetricsServer(new MetricsRegistry(), config, 'api');
    await server.onApplicationBootstrap();
    try {
      expect(server.address).toBe('127.0.0.1');
      expect(lines).toEqual([`metrics on http://127.0.0.1:${port}/metrics (Bearer METRICS_TOKEN required)`]);
    } finally {
      await server.onApplicationShutdown();
    }
  });
});
