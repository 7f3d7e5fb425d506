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

  it.each([
    ['7 days', 7 * 24 * 3600 * 1000],
    ['1.5h', 5_400_000],
    ['90s', 90_000],
    ['2 weeks', 14 * 24 * 3600 * 1000],
    ['15 minutes', 900_000],
    ['250ms', 250],
    ['7d', 7 * 24 * 3600 * 1000],
    // a plain number is milliseconds, as the ms package reads it
    ['90', 90],
  ])('accepts every form ms accepts: %j is %d ms', (value, expected) => {
    const { config } = loadConfig({
      JWT_EXPIRES_IN: value,
      WEBHOOK_TIMEOUT: value,
      WEBHOOK_RETRY_SCHEDULE: `${value}, 5s`,
    });
    expect(config.webhookTimeoutMs).toBe(expected);
    expect(config.jwtExpiresInSeconds).toBe(Math.floor(expected / 1000));
    expect(config.webhookRetryScheduleMs).toEqual([expected, 5000]);
  });

  it.each(['forever', '-1h', '7 eons'])(
    'refuses %j as a duration, naming the setting and the syntax',
    (value) => {
      expect(() => loadConfig({ WEBHOOK_TIMEOUT: value })).toThrow(/WEBHOOK_TIMEOUT: .*duration.*7 days/);
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: `5s,${value}` })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    },
  );

  it('reads an empty duration as "use the default"', () => {
    expect(loadConfig({ WEBHOOK_TIMEOUT: '' }).config.webhookTimeoutMs).toBe(15_000);
  });

  it('puts metrics on 9464 (API) and 9465 (worker) unless METRICS_PORT says otherwise; 0 turns them off', () => {
    const defaults = loadConfig({}).config;
    expect([defaults.metricsPort('api'), defaults.metricsPort('worker')]).toEqual([9464, 9465]);
    const off = loadConfig({ METRICS_PORT: '0' }).config;
    expect([off.metricsPort('api'), off.metricsPort('worker')]).toEqual([0, 0]);
    expect(loadConfig({ METRICS_PORT: '9100' }).config.metricsPort('worker')).toBe(9100);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: 'x' })).toThrow(/METRICS_PORT/);
  });
});
