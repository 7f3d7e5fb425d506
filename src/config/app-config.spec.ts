import { AppConfig, ConfigValidationError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('gives the defaults of docs/configuration.md#configuration in development, warning of the dev secrets', () => {
    const { config, warnings } = loadConfig({});
    expect(config.JWT_EXPIRES_IN).toBe('7d');
    expect(config.jwtExpiresInSeconds).toBe(7 * 24 * 3600);
    expect(config.webhookRetryScheduleMs).toHaveLength(7);
    expect(config.WEBHOOK_MAX_LIVE_SECRETS).toBe(3);
    expect(config.WEBHOOK_ALLOW_INSECURE_TARGETS).toBe(false);
    expect(config.webhookEncryptionKeys).toHaveLength(1);
    expect(config.webhookEncryptionKeys[0]).toHaveLength(32);
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

  describe('WEBHOOK_SECRET_ENCRYPTION_KEY as a key ring', () => {
    const newer = Buffer.alloc(32, 2).toString('base64');
    const older = Buffer.alloc(32, 1).toString('base64');

    it('reads comma-separated keys newest first, spaces allowed', () => {
      const { config } = loadConfig({ WEBHOOK_SECRET_ENCRYPTION_KEY: `${newer}, ${older}` });
      expect(config.webhookEncryptionKeys).toEqual([Buffer.alloc(32, 2), Buffer.alloc(32, 1)]);
    });

    // a second spelling of `older`: base64 with non-zero padding bits decodes to the same 32 bytes
    const olderAgain = `${older.slice(0, 42)}${String.fromCharCode(older.charCodeAt(42) + 1)}=`;

    it.each([
      [
        'a key that is not base64 of 32 bytes',
        `${newer},${Buffer.alloc(16, 3).toString('base64')}`,
        /entry 2 of 2 is not base64 of 32 bytes/,
      ],
      ['an empty entry', `${newer},,${older}`, /entry 2 of 3 is empty/],
      ['a trailing comma', `${newer},`, /entry 2 of 2 is empty/],
      ['a repeated key', `${newer},${older},${newer}`, /entry 3 of 3 repeats entry 1/],
      ['the same key spelt twice', `${older},${olderAgain}`, /entry 2 of 2 repeats entry 1/],
    ])('refuses %s, naming the variable and never the key', (_case, value, message) => {
      expect(Buffer.from(olderAgain, 'base64')).toEqual(Buffer.alloc(32, 1));
      let error: Error | undefined;
      try {
        loadConfig({ WEBHOOK_SECRET_ENCRYPTION_KEY: value });
      } catch (err) {
        error = err as Error;
      }
      expect(error).toBeInstanceOf(ConfigValidationError);
      expect(error!.message).toMatch(/WEBHOOK_SECRET_ENCRYPTION_KEY/);
      expect(error!.message).toMatch(message);
      for (const key of value.split(',').filter((k) => k.length > 0))
        expect(error!.message).not.toContain(key.trim());
    });
  });

  it('names every bad value at once', () => {
    expect(() => loadConfig({ PORT: 'abc', JWT_EXPIRES_IN: 'forever', REDIS_URL: 'http://x' })).toThrow(
      /PORT[\s\S]*REDIS_URL[\s\S]*JWT_EXPIRES_IN|PORT[\s\S]*JWT_EXPIRES_IN[\s\S]*REDIS_URL/,
    );
  });

  it.each([
    '127.0.0.1',
    '127.0.0.1:7000,',
    'redis://10.0.0.1:7000',
    '10.0.0.1:70000',
    'a b:7000',
    '::1:7000',
  ])('refuses a malformed REDIS_CLUSTER_NODES at start-up: %j', (value) => {
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: value })).toThrow(
      /REDIS_CLUSTER_NODES must be a comma-separated list of host:port/,
    );
  });

  it('reads REDIS_CLUSTER_NODES as seeds (names, IPv4, bracketed IPv6); unset means the single node', () => {
    const { config } = loadConfig({ REDIS_CLUSTER_NODES: 'redis-a:7000, 10.0.0.2:7001,[::1]:7002' });
    expect(config.redisClusterNodes).toEqual([
      { host: 'redis-a', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(loadConfig({}).config.redisClusterNodes).toBeUndefined();
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

  it('parses every duration once, at load: the config holds numbers, not getters that parse on each read', () => {
    const { config } = loadConfig({ LOGIN_FAILURE_WINDOW: '2m', PORTAL_SESSION_TTL: '10ms' });
    const isDurationField = (name: string) => /(Ms|Seconds)$/.test(name);
    expect(Object.getOwnPropertyNames(AppConfig.prototype).filter(isDurationField)).toEqual([]);
    const fields = Object.entries(Object.getOwnPropertyDescriptors(config)).filter(([name]) =>
      isDurationField(name),
    );
    // every declared duration field is filled by the loader, none is left undefined
    expect(fields.length).toBeGreaterThanOrEqual(15);
    for (const [name, { value }] of fields) {
      const numbers: unknown[] = Array.isArray(value) ? value : [value];
      expect([name, numbers.every((n) => typeof n === 'number' && Number.isFinite(n))]).toEqual([name, true]);
    }
    expect(config.loginFailureWindowMs).toBe(120_000);
    // a portal session is never shorter than a second
    expect(config.portalSessionTtlSeconds).toBe(1);
  });

  it('gives endpoint-slot leases 3 s renewed every second, and refuses a renewal interval over half the lease', () => {
    const { config } = loadConfig({});
    expect([config.webhookSlotLeaseMs, config.webhookSlotRenewIntervalMs]).toEqual([3000, 1000]);
    expect(
      loadConfig({ WEBHOOK_SLOT_LEASE: '400ms', WEBHOOK_SLOT_RENEW_INTERVAL: '200ms' }).config,
    ).toMatchObject({
      webhookSlotLeaseMs: 400,
      webhookSlotRenewIntervalMs: 200,
    });
    expect(() => loadConfig({ WEBHOOK_SLOT_LEASE: '3s', WEBHOOK_SLOT_RENEW_INTERVAL: '2s' })).toThrow(
      /WEBHOOK_SLOT_RENEW_INTERVAL: must be at most half of WEBHOOK_SLOT_LEASE/,
    );
    expect(() => loadConfig({ WEBHOOK_SLOT_LEASE: '0s' })).toThrow(/WEBHOOK_SLOT_LEASE/);
  });

  it('reads an empty duration as "use the default"', () => {
    expect(loadConfig({ WEBHOOK_TIMEOUT: '' }).config.webhookTimeoutMs).toBe(15_000);
  });

  it('reads TRUST_PROXY as false, true or a hop count, and refuses anything else', () => {
    expect(loadConfig({}).config.trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).config.trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '1' }).config.trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '0' }).config.trustProxy).toBe(false);
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/8' })).toThrow(/TRUST_PROXY/);
  });

  it('gives the login limits their defaults and refuses a zero window or limit', () => {
    const { config } = loadConfig({});
    expect(config.AUTH_RATE_LIMIT_PER_ADDRESS).toBe(100);
    expect(config.authRateLimitWindowMs).toBe(60_000);
    expect(config.LOGIN_MAX_FAILURES).toBe(10);
    expect(config.loginFailureWindowMs).toBe(15 * 60_000);
    expect(() => loadConfig({ AUTH_RATE_LIMIT_WINDOW: '0' })).toThrow(/AUTH_RATE_LIMIT_WINDOW/);
    expect(() => loadConfig({ LOGIN_FAILURE_WINDOW: '0s' })).toThrow(/LOGIN_FAILURE_WINDOW/);
    expect(() => loadConfig({ LOGIN_MAX_FAILURES: '0' })).toThrow(/LOGIN_MAX_FAILURES/);
    expect(() => loadConfig({ AUTH_RATE_LIMIT_PER_ADDRESS: 'many' })).toThrow(/AUTH_RATE_LIMIT_PER_ADDRESS/);
  });

  it('bounds the Idempotency-Key answers per caller: 10,000 by default, a whole number from 1 to 1,000,000', () => {
    expect(loadConfig({}).config.IDEMPOTENCY_KEYS_PER_CALLER).toBe(10_000);
    expect(loadConfig({ IDEMPOTENCY_KEYS_PER_CALLER: '3' }).config.IDEMPOTENCY_KEYS_PER_CALLER).toBe(3);
    for (const bad of ['0', '-1', '1000001', '2.5', 'many'])
      expect(() => loadConfig({ IDEMPOTENCY_KEYS_PER_CALLER: bad })).toThrow(/IDEMPOTENCY_KEYS_PER_CALLER/);
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
  it('knows PgBouncer from DATABASE_PGBOUNCER or ?pgbouncer=true, and listens only on a direct connection', () => {
    const direct = loadConfig({ DATABASE_URL: 'postgresql://u@db:5432/cp' });
    expect(direct.config.databaseThroughPgbouncer).toBe(false);
    expect(direct.config.databaseSessionUrl).toBe('postgresql://u@db:5432/cp');
    expect(direct.warnings.join('\n')).not.toMatch(/PgBouncer/);

    const flagged = loadConfig({ DATABASE_URL: 'postgresql://u@pgb:6432/cp', DATABASE_PGBOUNCER: 'true' });
    expect(flagged.config.databaseThroughPgbouncer).toBe(true);
    expect(flagged.config.databaseSessionUrl).toBeUndefined();
    expect(flagged.warnings.join('\n')).toMatch(/outbox relay polls every 1s/);

    const fromUrl = loadConfig({
      DATABASE_URL: 'postgresql://u@pgb:6432/cp?pgbouncer=true',
      DATABASE_DIRECT_URL: 'postgresql://u@db:5432/cp',
    });
    expect(fromUrl.config.databaseThroughPgbouncer).toBe(true);
    expect(fromUrl.config.databaseSessionUrl).toBe('postgresql://u@db:5432/cp');
    expect(fromUrl.warnings.join('\n')).not.toMatch(/PgBouncer/);

    expect(() => loadConfig({ DATABASE_DIRECT_URL: 'postgresql://u@pgb:6432/cp?pgbouncer=true' })).toThrow(
      /DATABASE_DIRECT_URL: must lead to PostgreSQL itself/,
    );
    expect(() => loadConfig({ DATABASE_DIRECT_URL: 'mysql://db/cp' })).toThrow(/DATABASE_DIRECT_URL/);
  });
});
