import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../common/errors/app-error';
import { loadConfig } from '../../config/app-config';
import { LoginAttemptLimiter } from './login-attempt-limiter';

// Real Redis, a key prefix per test. Windows are an hour long: nothing refills while a test runs.
// 2 failures per account and address, 3 for the account from all addresses together.
describe('LoginAttemptLimiter', () => {
  const env = {
    ...process.env,
    LOGIN_MAX_FAILURES: '2',
    LOGIN_ACCOUNT_MAX_FAILURES: '3',
    LOGIN_FAILURE_WINDOW: '1h',
  };
  const config = loadConfig(env).config;
  const connections: Redis[] = [];
  // the refusals and the Redis outage are logged on purpose
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Promise.all(connections.map((redis) => redis.quit())));

  function limiter(): LoginAttemptLimiter {
    const redis = new Redis(config.REDIS_URL, {
      keyPrefix: `${config.REDIS_KEY_PREFIX}:limiter-spec:${randomUUID()}:`,
    });
    connections.push(redis);
    return new LoginAttemptLimiter(redis, config);
  }

  /** What a call threw: its status and Retry-After, or 'allowed'. */
  async function outcome(
    attempt: Promise<unknown>,
  ): Promise<'allowed' | { status: number; retryAfter?: string }> {
    try {
      await attempt;
      return 'allowed';
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return { status: err.status, retryAfter: err.headers['retry-after'] };
    }
  }

  /** A failed login: reserved, never given back. */
  const fail = (l: LoginAttemptLimiter, email: string, ip: string) =>
    outcome(l.reserveAccountFailure(email, ip));

  it('refuses an address past its failures for an account, and only that address for only that account', async () => {
    const l = limiter();
    expect(await fail(l, 'victim@example.test', '203.0.113.1')).toBe('allowed');
    expect(await fail(l, 'victim@example.test', '203.0.113.1')).toBe('allowed');
    expect(await fail(l, 'victim@example.test', '203.0.113.1')).toMatchObject({ status: 429 });
    expect(await fail(l, 'VICTIM@example.test ', '203.0.113.1')).toMatchObject({ status: 429 });
    expect(await fail(l, 'victim@example.test', '203.0.113.2')).toBe('allowed');
    expect(await fail(l, 'other@example.test', '203.0.113.1')).toBe('allowed');
  });

  it('counts IPv6 addresses per /64 for an account too', async () => {
    const l = limiter();
    expect(await fail(l, 'victim@example.test', '2001:db8:1:2::1')).toBe('allowed');
    expect(await fail(l, 'victim@example.test', '2001:db8:1:2::ffff')).toBe('allowed');
    expect(await fail(l, 'victim@example.test', '2001:db8:1:2::abcd')).toMatchObject({ status: 429 });
    expect(await fail(l, 'victim@example.test', '2001:db8:1:3::1')).toBe('allowed');
  });

  it("once the account's budget is spent, refuses the addresses that failed on it and lets a fresh one in", async () => {
    const l = limiter();
    for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3'])
      expect(await fail(l, 'victim@example.test', ip)).toBe('allowed');
    // 192.0.2.1 has a failure left of its own, but it failed on an account now under guessing. It
    // may try again when the account has a failure again (one per 20 minutes), before its mark ends (an hour).
    const refused = await fail(l, 'victim@example.test', '192.0.2.1');
    expect(refused).toMatchObject({ status: 429 });
    expect(Number((refused as { retryAfter: string }).retryAfter)).toBeGreaterThan(1100);
    expect(Number((refused as { retryAfter: string }).retryAfter)).toBeLessThanOrEqual(1200);
    // The holder, from an address with no failure on the account, is let in and gives back what it took ...
    const holder = await l.reserveAccountFailure('victim@example.test', '198.51.100.9');
    await holder.succeeded();
    // ... so that address still counts as fresh, however often the holder logs in.
    for (let i = 0; i < 3; i++)
      await (await l.reserveAccountFailure('victim@example.test', '198.51.100.9')).succeeded();
    // A fresh address that fails has used its one guess.
    expect(await fail(l, 'victim@example.test', '192.0.2.50')).toBe('allowed');
    expect(await fail(l, 'victim@example.test', '192.0.2.50')).toMatchObject({ status: 429 });
    // Other accounts are untouched for those addresses.
    expect(await fail(l, 'another@example.test', '192.0.2.1')).toBe('allowed');
  });

  it('a success gives back its reservation: a user who keeps logging in is never refused', async () => {
    const l = limiter();
    for (let i = 0; i < 10; i++)
      await (await l.reserveAccountFailure('user@example.test', '203.0.113.5')).succeeded();
    expect(await fail(l, 'user@example.test', '203.0.113.5')).toBe('allowed');
    expect(await fail(l, 'user@example.test', '203.0.113.5')).toBe('allowed');
    expect(await fail(l, 'user@example.test', '203.0.113.5')).toMatchObject({ status: 429 });
  });

  it('Redis not answering: a login attempt is 503, never uncounted', async () => {
    const down = new Redis(config.REDIS_URL, { lazyConnect: true, enableOfflineQueue: false });
    const l = new LoginAttemptLimiter(down, config);
    try {
      expect(await fail(l, 'user@example.test', '203.0.113.5')).toMatchObject({ status: 503 });
    } finally {
      down.disconnect();
    }
  });
});
