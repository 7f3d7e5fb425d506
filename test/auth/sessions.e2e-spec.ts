import { TestApp, twoSubscribedApps } from '../utils/app';
import { addMember, createApiKey, createCommunity, createUser, login } from '../utils/factories';
import { call } from '../utils/http';
import { waitFor } from '../utils/worker';

// Two API instances in one process, sharing the run's database and Redis prefix: what one revokes,
// the other must refuse within a second. Timeouts below are generous for a loaded machine; the
// bound that matters (a revocation reaches B at all while B answers from its cache) is what fails
// without the bus, since B's cached "not revoked" would otherwise live for a minute.
const PROPAGATION_TIMEOUT_MS = 5_000;

describe('session revocation across API instances (docs/product-decisions.md#2-identities-login-api-keys)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await twoSubscribedApps();
  });
  afterAll(() => Promise.all([a.close(), b.close()]));

  async function session() {
    const community = await createCommunity(a.app);
    const user = await createUser(a.app);
    await addMember(a.app, community.id, user.id, 'MEMBER');
    return { user, community, tokens: await login(a.app, user.email, community.id) };
  }

  const me = (t: TestApp, token: string) => call(t.app, 'GET', '/api/admin/sdk/me', { token });

  /** B has answered for this token from its cache: a DB-only check would pass the test without the bus. */
  async function warmOnB(token: string) {
    expect((await me(b, token)).status).toBe(200);
    expect((await me(b, token)).status).toBe(200);
  }

  it('logout on A: B refuses the access token, and the refresh token is refused too', async () => {
    const { user, tokens } = await session();
    const other = await login(a.app, user.email); // another session of the same user
    await warmOnB(tokens.accessToken);

    const out = await call(a.app, 'POST', '/api/auth/logout', { token: tokens.accessToken });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true, data: { loggedOut: true } });

    const refused = await waitFor(
      'B to refuse the logged-out token',
      async () => {
        const res = await me(b, tokens.accessToken);
        return res.status === 401 ? res : undefined;
      },
      PROPAGATION_TIMEOUT_MS,
    );
    expect(refused.body).toEqual({
      success: false,
      error: 'This session has been revoked',
      code: 'UNAUTHORIZED',
    });
    expect((await me(a, tokens.accessToken)).status).toBe(401);

    const refresh = await call(b.app, 'POST', '/api/auth/refresh-token', {
      body: { refreshToken: tokens.refreshToken },
    });
    expect(refresh.status).toBe(401);
    expect((await call(a.app, 'POST', '/api/auth/refresh', { token: tokens.accessToken })).status).toBe(401);
    expect((await call(a.app, 'POST', '/api/auth/logout', { token: tokens.accessToken })).status).toBe(401);

    // The user's other session is untouched.
    expect((await me(b, other.accessToken)).status).toBe(200);
  });

  it('re-use of a refresh token on A: B refuses every access token of the family', async () => {
    const { tokens } = await session();
    const rotated = await call(a.app, 'POST', '/api/auth/refresh-token', {
      body: { refreshToken: tokens.refreshToken },
    });
    expect(rotated.status).toBe(200);
    const newest = rotated.body.data.accessToken as string;
    await warmOnB(tokens.accessToken);
    await warmOnB(newest);

    const replay = await call(a.app, 'POST', '/api/auth/refresh-token', {
      body: { refreshToken: tokens.refreshToken },
    });
    expect(replay.status).toBe(401);

    for (const token of [tokens.accessToken, newest]) {
      await waitFor(
        'B to refuse the revoked family',
        async () => (await me(b, token)).status === 401,
        PROPAGATION_TIMEOUT_MS,
      );
    }
  });

  it('POST /api/auth/refresh consumes the access token: a second call with it is 401 on any instance', async () => {
    const { tokens } = await session();
    const first = await call(a.app, 'POST', '/api/auth/refresh', { token: tokens.accessToken });
    expect(first.status).toBe(200);

    const again = await call(b.app, 'POST', '/api/auth/refresh', { token: tokens.accessToken });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('UNAUTHORIZED');
    // The pair was consumed together: the refresh token issued with that access token is retired too.
    const oldRefresh = await call(a.app, 'POST', '/api/auth/refresh-token', {
      body: { refreshToken: tokens.refreshToken },
    });
    expect(oldRefresh.status).toBe(401);
  });

  it('replaying a consumed access token on /refresh revokes the session, like refresh-token re-use', async () => {
    const { tokens } = await session();
    const first = await call(a.app, 'POST', '/api/auth/refresh', { token: tokens.accessToken });
    expect(first.status).toBe(200);
    const newest = first.body.data.accessToken as string;
    await warmOnB(newest);

    expect((await call(a.app, 'POST', '/api/auth/refresh', { token: tokens.accessToken })).status).toBe(401);
    await waitFor(
      'B to refuse the replayed family',
      async () => (await me(b, newest)).status === 401,
      PROPAGATION_TIMEOUT_MS,
    );
  });

  it('of two concurrent refreshes with one access token, exactly one succeeds', async () => {
    const { tokens } = await session();
    const results = await Promise.all(
      [a, b].map((t) => call(t.app, 'POST', '/api/auth/refresh', { token: tokens.accessToken })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('a refreshed access token can itself refresh once (the chain goes on)', async () => {
    const { tokens } = await session();
    let access = tokens.accessToken;
    for (let i = 0; i < 3; i++) {
      const res = await call(i % 2 ? b.app : a.app, 'POST', '/api/auth/refresh', { token: access });
      expect(res.status).toBe(200);
      access = res.body.data.accessToken;
    }
    expect((await me(b, access)).status).toBe(200);
  });

  it('logout refuses an API key (a login token is required)', async () => {
    const { user, community } = await session();
    await a.prisma.membership.updateMany({ where: { userId: user.id }, data: { role: 'OWNER' } });
    const key = await createApiKey(a.app, community.id, user.id);
    const res = await call(a.app, 'POST', '/api/auth/logout', { apiKey: key.key });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/login token/i);
  });

  it('documents logout in the OpenAPI document', async () => {
    const doc = await call(a.app, 'GET', '/api/docs-json');
    expect(doc.status).toBe(200);
    const op = doc.body.paths['/api/auth/logout']?.post;
    expect(op).toBeDefined();
    expect(op.responses['200']).toBeDefined();
    expect(op.responses['401']).toBeDefined();
  });
});
