import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { createTestApp, TestApp } from '../utils/app';
import { createUser, login, TEST_PASSWORD, unique } from '../utils/factories';
import { call, CallResult } from '../utils/http';
import { freePort } from '../utils/metrics';

// Password-guessing limits (docs/product-decisions.md#8-limits-and-unmatched-paths). Every app here gets a
// Redis key prefix of its own (two apps share one only where sharing is the point), so no other test's logins
// from 127.0.0.1 touch these buckets. Windows are an hour long: nothing refills while a test runs.
const WINDOW = '1h';

function isolatedPrefix(): string {
  return `${process.env.REDIS_KEY_PREFIX}:loginlimits:${randomBytes(4).toString('hex')}`;
}

function limitsApp(env: Record<string, string>, prefix = isolatedPrefix()): Promise<TestApp> {
  return createTestApp({
    REDIS_KEY_PREFIX: prefix,
    AUTH_RATE_LIMIT_PER_ADDRESS: '100',
    AUTH_RATE_LIMIT_WINDOW: WINDOW,
    LOGIN_MAX_FAILURES: '100',
    LOGIN_FAILURE_WINDOW: WINDOW,
    ...env,
  });
}

const from = (address: string) => ({ 'x-forwarded-for': address });

function loginAs(t: TestApp, email: string, password: string, headers: Record<string, string> = {}) {
  return call(t.app, 'POST', '/api/auth/login', { body: { email, password }, headers });
}

/** A refresh-token call with a token that cannot exist: cheap (no argon2), always 401 when let through. */
function bogusRefresh(t: TestApp, headers: Record<string, string> = {}) {
  return call(t.app, 'POST', '/api/auth/refresh-token', {
    body: { refreshToken: 'not-a-refresh-token' },
    headers,
  });
}

function expectRateLimited(res: CallResult, maxSeconds: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    success: false,
    error: 'Too many requests',
    code: 'RATE_LIMITED',
    retryAfter: expect.any(Number),
  });
  expect(res.body.retryAfter).toBeGreaterThanOrEqual(1);
  expect(res.body.retryAfter).toBeLessThanOrEqual(maxSeconds);
  expect(res.headers['retry-after']).toBe(String(res.body.retryAfter));
}

describe('per client address', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await limitsApp({ AUTH_RATE_LIMIT_PER_ADDRESS: '3' });
  });
  afterAll(() => t.close());

  it('answers the 4th login of a window from one address 429 with Retry-After, whatever the e-mails', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await loginAs(t, `${unique('nobody')}@example.test`, 'wrong');
      expect(res.status).toBe(401);
    }
    const refused = await loginAs(t, `${unique('nobody')}@example.test`, 'wrong');
    // 3 per hour: the next request is one refill (20 minutes) away.
    expectRateLimited(refused, 1200);
    expect(refused.body.retryAfter).toBeGreaterThan(1100);
  });
});

describe('TRUST_PROXY', () => {
  it('off (the default): X-Forwarded-For is ignored, every request counts for the socket address', async () => {
    const t = await limitsApp({ AUTH_RATE_LIMIT_PER_ADDRESS: '2' });
    try {
      expect((await bogusRefresh(t, from('198.51.100.1'))).status).toBe(401);
      expect((await bogusRefresh(t, from('198.51.100.2'))).status).toBe(401);
      expectRateLimited(await bogusRefresh(t, from('198.51.100.3')), 1800);
    } finally {
      await t.close();
    }
  });

  it('on: each forwarded address has its own count', async () => {
    const t = await limitsApp({ AUTH_RATE_LIMIT_PER_ADDRESS: '2', TRUST_PROXY: 'true' });
    try {
      expect((await bogusRefresh(t, from('198.51.100.1'))).status).toBe(401);
      expect((await bogusRefresh(t, from('198.51.100.1'))).status).toBe(401);
      expectRateLimited(await bogusRefresh(t, from('198.51.100.1')), 1800);
      expect((await bogusRefresh(t, from('198.51.100.2'))).status).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('a hop count believes only the address the nearest proxy saw, not what the client prepended', async () => {
    const t = await limitsApp({ AUTH_RATE_LIMIT_PER_ADDRESS: '2', TRUST_PROXY: '1' });
    try {
      expect((await bogusRefresh(t, from('10.0.0.1, 203.0.113.9'))).status).toBe(401);
      expect((await bogusRefresh(t, from('10.0.0.2, 203.0.113.9'))).status).toBe(401);
      expectRateLimited(await bogusRefresh(t, from('10.0.0.3, 203.0.113.9')), 1800);
      expect((await bogusRefresh(t, from('10.0.0.3, 203.0.113.10'))).status).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('IPv6 addresses count per /64', async () => {
    const t = await limitsApp({ AUTH_RATE_LIMIT_PER_ADDRESS: '2', TRUST_PROXY: 'true' });
    try {
      expect((await bogusRefresh(t, from('2001:db8:1:2::1'))).status).toBe(401);
      expect((await bogusRefresh(t, from('2001:db8:1:2:ffff:ffff:ffff:ffff'))).status).toBe(401);
      expectRateLimited(await bogusRefresh(t, from('2001:db8:1:2::abcd')), 1800);
      expect((await bogusRefresh(t, from('2001:db8:1:3::1'))).status).toBe(401);
    } finally {
      await t.close();
    }
  });
});

describe('per account and client address', () => {
  let t: TestApp;
  beforeAll(async () => {
    // A roomy account-wide budget: these tests are about one address's own failures.
    t = await limitsApp({ LOGIN_MAX_FAILURES: '3', LOGIN_ACCOUNT_MAX_FAILURES: '100', TRUST_PROXY: 'true' });
  });
  afterAll(() => t.close());

  it("refuses the address that used up an account's failures, even with the right password; the victim elsewhere logs in", async () => {
    const user = await createUser(t.app);
    const attacker = from('203.0.113.7');
    for (let i = 0; i < 3; i++) expect((await loginAs(t, user.email, 'wrong', attacker)).status).toBe(401);
    // 3 failures per hour: one comes back every 20 minutes.
    expectRateLimited(await loginAs(t, user.email, 'wrong', attacker), 1200);
    expectRateLimited(await loginAs(t, user.email, TEST_PASSWORD, attacker), 1200);
    // Another spelling of the same e-mail is the same account.
    expectRateLimited(await loginAs(t, user.email.toUpperCase(), TEST_PASSWORD, attacker), 1200);
    // The account's holder, from an address that has not failed for it, is not locked out ...
    expect((await loginAs(t, user.email, TEST_PASSWORD, from('198.51.100.20'))).status).toBe(200);
    // ... and the attacker's address is still refused for it, while other accounts are untouched there.
    expectRateLimited(await loginAs(t, user.email, 'wrong', attacker), 1200);
    const other = await createUser(t.app);
    expect((await loginAs(t, other.email, TEST_PASSWORD, attacker)).status).toBe(200);
  });

  it('counts failures only, and a success does not wipe the failures before it', async () => {
    const user = await createUser(t.app);
    expect((await loginAs(t, user.email, 'wrong')).status).toBe(401);
    expect((await loginAs(t, user.email, 'wrong')).status).toBe(401);
    expect((await loginAs(t, user.email, TEST_PASSWORD)).status).toBe(200);
    // The success cost nothing: a third failure is still allowed ...
    expect((await loginAs(t, user.email, 'wrong')).status).toBe(401);
    // ... and did not reset the count: that was the third, so the account is now refused.
    expectRateLimited(await loginAs(t, user.email, TEST_PASSWORD), 1200);
  });

  it('treats an unknown e-mail exactly like a known one: same answers, limited the same way', async () => {
    const known = (await createUser(t.app)).email;
    const unknown = `${unique('nobody')}@example.test`;
    const answers: Record<string, CallResult[]> = { [known]: [], [unknown]: [] };
    for (let i = 0; i < 4; i++) {
      for (const email of [known, unknown]) answers[email].push(await loginAs(t, email, 'wrong'));
    }
    const shape = (res: CallResult) => ({
      status: res.status,
      body: { ...res.body, retryAfter: res.body.retryAfter === undefined ? undefined : 'n' },
      retryAfterHeader: res.headers['retry-after'] !== undefined,
    });
    expect(answers[known].map(shape)).toEqual(answers[unknown].map(shape));
    expect(answers[known].map((res) => res.status)).toEqual([401, 401, 401, 429]);
    // The waits differ only by the time between the two calls.
    expect(
      Math.abs(answers[known][3].body.retryAfter - answers[unknown][3].body.retryAfter),
    ).toBeLessThanOrEqual(2);
  });

  it('keeps no e-mail address in Redis: the account keys hold an HMAC', async () => {
    const email = `${unique('secret')}@example.test`;
    const redis = new Redis(t.config.REDIS_URL);
    try {
      const pattern = `${t.config.REDIS_KEY_PREFIX}:authlimit:*`;
      const before = new Set(await redis.keys(pattern));
      await loginAs(t, email, 'wrong', from('203.0.113.99'));
      const keys = await redis.keys(pattern);
      const added = keys.filter((key) => !before.has(key)).map((key) => key.split(':authlimit:')[1]);
      // the address's own count, the account's budget, its budget for this address, and the mark of an
      // address that failed on it
      expect(added.sort()).toEqual([
        expect.stringMatching(/^account-address:[0-9a-f]{64}:203\.0\.113\.99$/),
        expect.stringMatching(/^account-failed:[0-9a-f]{64}:203\.0\.113\.99$/),
        expect.stringMatching(/^account:[0-9a-f]{64}$/),
        'address:login:203.0.113.99',
      ]);
      const local = email.split('@')[0];
      for (const key of keys) {
        expect(key).not.toContain(local);
        const value =
          (await redis.type(key)) === 'hash'
            ? Object.values(await redis.hgetall(key)).join(' ')
            : String(await redis.get(key));
        expect(value).not.toContain(local);
      }
    } finally {
      redis.disconnect();
    }
  });
});

describe('per account, from many addresses', () => {
  let t: TestApp;
  beforeAll(async () => {
    // 3 failures per address, 5 for the account as a whole, per hour.
    t = await limitsApp({ LOGIN_MAX_FAILURES: '3', LOGIN_ACCOUNT_MAX_FAILURES: '5', TRUST_PROXY: 'true' });
  });
  afterAll(() => t.close());

  const attackers = Array.from({ length: 20 }, (_, i) => from(`192.0.2.${i + 1}`));

  it('twenty addresses failing together get few guesses and cannot lock the victim out', async () => {
    const user = await createUser(t.app);
    const answers = await Promise.all(
      attackers.flatMap((address) => [0, 1, 2].map(() => loginAs(t, user.email, 'wrong', address))),
    );
    const checked = answers.filter((res) => res.status === 401).length;
    // Per address alone, 20 × 3 = 60 guesses would be checked. With the account's 5 spent, an address
    // that has failed on it is refused: each address gets its first guess, the account's 5 go to any.
    expect(checked).toBeGreaterThanOrEqual(20);
    expect(checked).toBeLessThanOrEqual(25);
    for (const res of answers.filter((answer) => answer.status !== 401)) expectRateLimited(res, 720);

    // The holder, from an address that has not failed for this account, logs in.
    expect((await loginAs(t, user.email, TEST_PASSWORD, from('198.51.100.77'))).status).toBe(200);
    // Every attacking address stays refused, whatever the password.
    for (const address of attackers) {
      expectRateLimited(await loginAs(t, user.email, 'wrong', address), 1200);
      expectRateLimited(await loginAs(t, user.email, TEST_PASSWORD, address), 1200);
    }
  });

  it("once the account's budget is spent, a fresh address gets one guess, not its own full budget", async () => {
    const email = `${unique('nobody')}@example.test`;
    for (let i = 0; i < 5; i++)
      expect((await loginAs(t, email, 'wrong', from(`192.0.2.${100 + i}`))).status).toBe(401);
    const fresh = from('192.0.2.200');
    expect((await loginAs(t, email, 'wrong', fresh)).status).toBe(401);
    // 5 failures per hour for the account: its next one is 12 minutes away.
    expectRateLimited(await loginAs(t, email, 'wrong', fresh), 720);
  });
});

describe('portal link exchange', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await limitsApp({ AUTH_RATE_LIMIT_PER_ADDRESS: '3', TRUST_PROXY: 'true' });
  });
  afterAll(() => t.close());

  /** A token of the right shape that no link has: 401 when let through. */
  const exchange = (address: string) =>
    call(t.app, 'POST', '/api/webhooks/portal-sessions', {
      body: { token: randomBytes(32).toString('base64url') },
      headers: from(address),
    });

  it('POST /api/webhooks/portal-sessions is limited per client address; another address goes on', async () => {
    for (let i = 0; i < 3; i++) expect((await exchange('198.51.100.30')).status).toBe(401);
    expectRateLimited(await exchange('198.51.100.30'), 1200);
    expect((await exchange('198.51.100.31')).status).toBe(401);
    // its own count: the login route of the refused address is untouched
    expect(
      (await loginAs(t, `${unique('nobody')}@example.test`, 'wrong', from('198.51.100.30'))).status,
    ).toBe(401);
  });
});

describe('two API instances', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const shared = isolatedPrefix();
    const env = { LOGIN_MAX_FAILURES: '2', AUTH_RATE_LIMIT_PER_ADDRESS: '3' };
    [a, b] = await Promise.all([limitsApp(env, shared), limitsApp(env, shared)]);
  });
  afterAll(() => Promise.all([a.close(), b.close()]));

  it('share the per-account failures', async () => {
    const user = await createUser(a.app);
    expect((await loginAs(a, user.email, 'wrong')).status).toBe(401);
    expect((await loginAs(b, user.email, 'wrong')).status).toBe(401);
    expectRateLimited(await loginAs(a, user.email, TEST_PASSWORD), 1800);
  });

  it('share the per-address counts', async () => {
    expect((await bogusRefresh(a)).status).toBe(401);
    expect((await bogusRefresh(b)).status).toBe(401);
    expect((await bogusRefresh(a)).status).toBe(401);
    expectRateLimited(await bogusRefresh(b), 1200);
  });
});

describe('refresh routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await limitsApp({ AUTH_RATE_LIMIT_PER_ADDRESS: '2' });
  });
  afterAll(() => t.close());

  it('POST /api/auth/refresh counts calls the auth guard refuses, then refuses a valid token too', async () => {
    const user = await createUser(t.app);
    const tokens = await login(t.app, user.email);
    const bad = () => call(t.app, 'POST', '/api/auth/refresh', { token: 'not-a-jwt' });
    expect((await bad()).status).toBe(401);
    expect((await bad()).status).toBe(401);
    expectRateLimited(await call(t.app, 'POST', '/api/auth/refresh', { token: tokens.accessToken }), 1800);
  });

  it('POST /api/auth/refresh-token has its own count per address', async () => {
    expect((await bogusRefresh(t)).status).toBe(401);
    expect((await bogusRefresh(t)).status).toBe(401);
    expectRateLimited(await bogusRefresh(t), 1800);
  });
});

describe('Redis unreachable', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await limitsApp({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  });
  afterAll(() => t.close());

  it('login fails closed: 503 SERVICE_UNAVAILABLE, so guessing never goes uncounted', async () => {
    const res = await loginAs(t, `${unique('nobody')}@example.test`, 'wrong');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
  });

  it('the refresh routes go on without the count (their tokens cannot be guessed)', async () => {
    expect((await bogusRefresh(t)).status).toBe(401);
  });
});
