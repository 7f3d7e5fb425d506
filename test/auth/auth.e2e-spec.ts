import { JwtService } from '@nestjs/jwt';
import argon2 from 'argon2';
import { ARGON2_OPTIONS } from '../../src/modules/auth/password.service';
import { useTestApp } from '../utils/app';
import {
  addMember,
  createApiKey,
  createCommunity,
  createUser,
  login,
  TEST_PASSWORD,
  unique,
} from '../utils/factories';
import { call } from '../utils/http';

// argon2id logins are CPU-bound by design: on a busy 2-core machine a test can take seconds.

/** Decodes a JWT's header and payload without trusting them (the tests check what was signed). */
function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = token
    .split('.')
    .slice(0, 2)
    .map((part: string) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  return { header, payload };
}

describe('login and tokens (docs/product-decisions.md#2-identities-login-api-keys)', () => {
  const t = useTestApp();

  it('issues an HS256 access token with every claim, for the community named in the body', async () => {
    const community = await createCommunity(t.app);
    const user = await createUser(t.app);
    await addMember(t.app, community.id, user.id, 'MODERATOR');

    const res = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: user.email.toUpperCase(), password: TEST_PASSWORD, communityId: community.slug },
    });

    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const data = res.body.data;
    expect(data).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 7 * 24 * 3600,
      user: { id: user.id, email: user.email, name: user.name },
    });
    expect(typeof data.refreshToken).toBe('string');
    expect(Buffer.from(data.refreshToken, 'base64url')).toHaveLength(32);
    const { header, payload } = decodeJwt(data.accessToken);
    expect(header.alg).toBe('HS256');
    expect(payload).toMatchObject({
      userId: user.id,
      email: user.email,
      role: 'MODERATOR',
      tenantId: community.id,
      tenantSchema: 'public',
      sub: user.id,
    });
    expect(payload.jti).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    expect(payload.exp).toBe((payload.iat as number) + 7 * 24 * 3600);
    // The signature is the configured secret's: the token verifies with it and nothing else.
    expect(() => t.app.get(JwtService).verify(data.accessToken)).not.toThrow();
    expect(() =>
      new JwtService({ secret: 'another-secret-of-at-least-32-chars!!' }).verify(data.accessToken),
    ).toThrow();
  });

  it('gives each login a new jti', async () => {
    const user = await createUser(t.app);
    const [a, b] = [await login(t.app, user.email), await login(t.app, user.email)];
    expect(decodeJwt(a.accessToken).payload.jti).not.toBe(decodeJwt(b.accessToken).payload.jti);
  });

  it('answers one 401 message for a wrong password and for an unknown e-mail', async () => {
    const user = await createUser(t.app);
    const wrong = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: user.email, password: 'nope' },
    });
    const unknown = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: `${unique('nobody')}@example.test`, password: TEST_PASSWORD },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ success: false, error: 'Invalid email or password', code: 'UNAUTHORIZED' });
    expect(unknown.body).toEqual(wrong.body);
  });

  it('replaces a hash of older argon2 parameters at login, and the password keeps working', async () => {
    const email = `${unique('older-hash')}@example.test`;
    const older = await argon2.hash(TEST_PASSWORD, { ...ARGON2_OPTIONS, memoryCost: 19_456, timeCost: 2 });
    const user = await t.prisma.user.create({ data: { email, passwordHash: older } });
    const first = await call(t.app, 'POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } });
    expect(first.status).toBe(200);
    const stored = (await t.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).passwordHash!;
    expect(stored).not.toBe(older);
    expect(argon2.needsRehash(stored, ARGON2_OPTIONS)).toBe(false);
    // the session the first login opened still works: the password did not change
    const me = await call(t.app, 'GET', '/api/admin/sdk/me', { token: first.body.data.accessToken });
    expect(me.status).toBe(200);
    const again = await call(t.app, 'POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } });
    expect(again.status).toBe(200);
  });

  it('refuses a password-less user (created by a bulk upsert) with the same 401', async () => {
    const email = `${unique('nopass')}@example.test`;
    await t.prisma.user.create({ data: { email } });
    const res = await call(t.app, 'POST', '/api/auth/login', { body: { email, password: TEST_PASSWORD } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('Invalid email or password');
  });

  it('refuses a login for a community the user is not a member of with 403', async () => {
    const other = await createCommunity(t.app);
    const user = await createUser(t.app);
    const res = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: user.email, password: TEST_PASSWORD, communityId: other.id },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it('lets a platform admin log in to a community they do not belong to (role null)', async () => {
    const community = await createCommunity(t.app);
    const admin = await createUser(t.app, { isPlatformAdmin: true });
    const tokens = await login(t.app, admin.email, community.id);
    expect(decodeJwt(tokens.accessToken).payload).toMatchObject({ tenantId: community.id, role: null });
  });

  it('defaults the tenant to the community joined first', async () => {
    const user = await createUser(t.app);
    const first = await createCommunity(t.app);
    const second = await createCommunity(t.app);
    const joinedFirst = await addMember(t.app, first.id, user.id, 'ADMIN');
    await t.prisma.membership.create({
      data: {
        communityId: second.id,
        userId: user.id,
        role: 'OWNER',
        joinedAt: new Date(joinedFirst.joinedAt.getTime() + 1000),
      },
    });
    const { payload } = decodeJwt((await login(t.app, user.email)).accessToken);
    expect(payload).toMatchObject({ tenantId: first.id, role: 'ADMIN' });
  });

  it('takes the tenant from X-Tenant-Id when the body names none', async () => {
    const user = await createUser(t.app);
    const first = await createCommunity(t.app);
    const second = await createCommunity(t.app);
    await addMember(t.app, first.id, user.id, 'MEMBER');
    await addMember(t.app, second.id, user.id, 'OWNER');
    const res = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: user.email, password: TEST_PASSWORD },
      headers: { 'x-tenant-id': second.slug },
    });
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.data.accessToken).payload).toMatchObject({
      tenantId: second.id,
      role: 'OWNER',
    });
  });

  it('gives a user of no community a token with tenantId null that still works', async () => {
    const user = await createUser(t.app);
    const tokens = await login(t.app, user.email);
    expect(decodeJwt(tokens.accessToken).payload).toMatchObject({ tenantId: null, role: null });
    const me = await call(t.app, 'GET', '/api/admin/sdk/me', { token: tokens.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ type: 'user', communityId: null, memberships: [] });
  });

  it('refuses an expired, a tampered and a malformed token with 401', async () => {
    const user = await createUser(t.app);
    const jwt = t.app.get(JwtService);
    const claims = { userId: user.id, email: user.email, role: null, tenantId: null, tenantSchema: 'public' };
    const now = Math.floor(Date.now() / 1000);
    const expired = jwt.sign({ ...claims, typ: 'access', sid: user.id, iat: now - 120, exp: now - 60 });
    const valid = jwt.sign({ ...claims, typ: 'access', sid: user.id }, { expiresIn: 60 });
    const tampered = valid.slice(0, -2) + (valid.endsWith('AA') ? 'BB' : 'AA');

    for (const token of [expired, tampered, 'not-a-jwt']) {
      const res = await call(t.app, 'GET', '/api/admin/sdk/me', { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, error: 'Invalid or expired token', code: 'UNAUTHORIZED' });
    }
    const sanity = await call(t.app, 'GET', '/api/admin/sdk/me', { token: valid });
    expect(sanity.status).toBe(200);
    const malformedHeader = await call(t.app, 'GET', '/api/admin/sdk/me', {
      headers: { authorization: 'Token x' },
    });
    expect(malformedHeader.status).toBe(401);
    expect(malformedHeader.body.code).toBe('UNAUTHORIZED');
  });

  it('refuses a token signed with another algorithm (none) with 401', async () => {
    const user = await createUser(t.app);
    const unsigned = [
      Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url'),
      Buffer.from(JSON.stringify({ userId: user.id, typ: 'access', exp: 9999999999 })).toString('base64url'),
      '',
    ].join('.');
    const res = await call(t.app, 'GET', '/api/admin/sdk/me', { token: unsigned });
    expect(res.status).toBe(401);
  });

  describe('refresh', () => {
    it('POST /api/auth/refresh with a valid Bearer returns a new pair for the same tenant', async () => {
      const community = await createCommunity(t.app);
      const user = await createUser(t.app);
      await addMember(t.app, community.id, user.id, 'ADMIN');
      const first = await login(t.app, user.email, community.id);

      const res = await call(t.app, 'POST', '/api/auth/refresh', { token: first.accessToken });

      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ tokenType: 'Bearer', user: { id: user.id } });
      expect(res.body.data.accessToken).not.toBe(first.accessToken);
      expect(res.body.data.refreshToken).not.toBe(first.refreshToken);
      expect(decodeJwt(res.body.data.accessToken).payload).toMatchObject({
        tenantId: community.id,
        role: 'ADMIN',
      });
      // The session's earlier refresh token is retired by the rotation.
      const old = await call(t.app, 'POST', '/api/auth/refresh-token', {
        body: { refreshToken: first.refreshToken },
      });
      expect(old.status).toBe(401);
    });

    it('POST /api/auth/refresh without a Bearer token is 401', async () => {
      const res = await call(t.app, 'POST', '/api/auth/refresh');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        success: false,
        error: 'No authentication token provided',
        code: 'UNAUTHORIZED',
      });
    });

    it('POST /api/auth/refresh refuses an API key (a login token is required)', async () => {
      const community = await createCommunity(t.app);
      const user = await createUser(t.app);
      await addMember(t.app, community.id, user.id, 'OWNER');
      const key = await createApiKey(t.app, community.id, user.id);
      const res = await call(t.app, 'POST', '/api/auth/refresh', { apiKey: key.key });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/login token/i);
    });

    it('POST /api/auth/refresh-token takes the refresh token in the body alone', async () => {
      const user = await createUser(t.app);
      const first = await login(t.app, user.email);
      const res = await call(t.app, 'POST', '/api/auth/refresh-token', {
        body: { refreshToken: first.refreshToken },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ tokenType: 'Bearer', user: { id: user.id } });
      const me = await call(t.app, 'GET', '/api/admin/sdk/me', { token: res.body.data.accessToken });
      expect(me.status).toBe(200);
    });

    it('POST /api/auth/refresh-token refuses an unknown token and a missing field', async () => {
      const unknown = await call(t.app, 'POST', '/api/auth/refresh-token', {
        body: { refreshToken: 'nope' },
      });
      expect(unknown.status).toBe(401);
      expect(unknown.body.code).toBe('UNAUTHORIZED');
      const missing = await call(t.app, 'POST', '/api/auth/refresh-token', { body: {} });
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('VALIDATION_ERROR');
      expect(missing.body.details.map((d: { field: string }) => d.field)).toContain('refreshToken');
    });

    it('refuses an expired refresh token', async () => {
      const user = await createUser(t.app);
      const tokens = await login(t.app, user.email);
      await t.prisma.refreshToken.updateMany({
        where: { userId: user.id },
        data: { expiresAt: new Date(0) },
      });
      const res = await call(t.app, 'POST', '/api/auth/refresh-token', {
        body: { refreshToken: tokens.refreshToken },
      });
      expect(res.status).toBe(401);
    });

    it('re-use of a retired refresh token is 401 and revokes the whole family', async () => {
      const user = await createUser(t.app);
      const first = await login(t.app, user.email);
      const second = await call(t.app, 'POST', '/api/auth/refresh-token', {
        body: { refreshToken: first.refreshToken },
      });
      expect(second.status).toBe(200);

      const replay = await call(t.app, 'POST', '/api/auth/refresh-token', {
        body: { refreshToken: first.refreshToken },
      });
      expect(replay.status).toBe(401);
      expect(replay.body.code).toBe('UNAUTHORIZED');

      // The newest token of the family was never used, yet it fails now: the family is revoked.
      const newest = await call(t.app, 'POST', '/api/auth/refresh-token', {
        body: { refreshToken: second.body.data.refreshToken },
      });
      expect(newest.status).toBe(401);
      // ...and so does rotating the session through its access token.
      const viaBearer = await call(t.app, 'POST', '/api/auth/refresh', {
        token: second.body.data.accessToken,
      });
      expect(viaBearer.status).toBe(401);
      // Another session of the same user is untouched.
      const other = await login(t.app, user.email);
      const otherRefresh = await call(t.app, 'POST', '/api/auth/refresh-token', {
        body: { refreshToken: other.refreshToken },
      });
      expect(otherRefresh.status).toBe(200);
    });

    it('of two concurrent uses of one refresh token, exactly one succeeds', async () => {
      const user = await createUser(t.app);
      const first = await login(t.app, user.email);
      const results = await Promise.all(
        [1, 2].map(() =>
          call(t.app, 'POST', '/api/auth/refresh-token', { body: { refreshToken: first.refreshToken } }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
    });
  });
});

describe('token lifetime from configuration', () => {
  const t = useTestApp({ JWT_EXPIRES_IN: '1s', REFRESH_TOKEN_EXPIRES_IN: '2h' });

  it('signs exp = iat + JWT_EXPIRES_IN and reports it as expiresIn', async () => {
    const user = await createUser(t.app);
    const tokens = await login(t.app, user.email);
    const { payload } = decodeJwt(tokens.accessToken);
    expect((payload.exp as number) - (payload.iat as number)).toBe(1);
    expect(tokens.expiresIn).toBe(1);
    const stored = await t.prisma.refreshToken.findFirstOrThrow({ where: { userId: user.id } });
    const ttl = stored.expiresAt.getTime() - stored.createdAt.getTime();
    expect(Math.abs(ttl - 2 * 3600 * 1000)).toBeLessThan(5000);
  });
});
