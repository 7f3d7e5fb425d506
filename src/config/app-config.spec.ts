import { ConfigValidationError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('gives the contract defaults in development, with warnings for the dev secrets', () => {
    const { config, warnings } = loadConfig({});
    expect(config.JWT_EXPIRES_IN).toBe('7d');
    expect(config.jwtExpiresInSeconds).toBe(7 * 24 * 3600);
    expect(config.webhookRetryScheduleMs).toHaveLength(7);
    expect(config.WEBHOOK_MAX_LIVE_SECRETS).toBe(3);
    expect(config.WEBHOOK_ALLOW_INSECURE_TARGETS).toBe(false);
    expect(config.webhookEncryptionKey).toHaveLength(32);
    expect(warnings.join('\n')).toMatch(/JWT_SECRET/);
  });

  it('refuses production without JWT_SECRET and WEBHOOK_SECRET_ENCRYPTION_KEY, naming both', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigValidationError);
    try {
      loadConfig({ NODE_ENV: 'production' });
    } catch (e) {
      expect((e as Error).message).toMatch(/JWT_SECRET/);
      expect((e as Error).message).toMatch(/WEBHOOK_SECRET_ENCRYPTION_KEY/);
    }
  });

  it('refuses WEBHOOK_ALLOW_INSECURE_TARGETS in production', () => {
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        JWT_SECRET: 'x'.repeat(40),
        WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
        WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
      }),
    ).toThrow(/WEBHOOK_ALLOW_INSECURE_TARGETS/);
  });

  it('names every bad value at once', () => {
    expect(() => loadConfig({ PORT: 'abc', JWT_EXPIRES_IN: 'forever', REDIS_URL: 'http://x' })).toThrow(
      /PORT[\s\S]*REDIS_URL[\s\S]*JWT_EXPIRES_IN|PORT[\s\S]*JWT_EXPIRES_IN[\s\S]*REDIS_URL/,
    );
  });

  it('reads durations from configuration so tests can shorten them', () => {
    const { config } = loadConfig({ JWT_EXPIRES_IN: '2s', WEBHOOK_RETRY_SCHEDULE: '10ms, 20ms' });
    expect(config.jwtExpiresInSeconds).toBe(2);
    expect(config.webhookRetryScheduleMs).toEqual([10, 20]);
  });
});
