import { TestApp, twoSubscribedApps } from '../utils/app';
import {
  addMember,
  createApiKey,
  createCommunity,
  createUser,
  login,
  memberWithToken,
} from '../utils/factories';
import { call, type CallResult } from '../utils/http';
import { waitFor } from '../utils/worker';

// Two API instances in one process, sharing the run's database and Redis prefix: what one revokes,
// the other must refuse within a second. Timeouts below are generous for a loaded machine; the
// bound that matters (a revocation reaches B at all while B answers from its cache) is what fails
// without the bus, since B's cached "not revoked" would otherwise live for a minute.
const PROPAGATION_TIMEOUT_MS = 5_000;
/** 50 logins (argon2id, CPU-bound by design) and races per test, on a shared 2-core machine. */
const RACE_TIMEOUT_MS = 180_000;

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

  /** A webhook-portal session of a PRO community's owner, opened through a portal link on A. */
  async function portalSession() {
    const owner = await memberWithToken(a.app, { plan: 'PRO' });
    const link = await call(a.app, 'POST', `/api/communities/${owner.community.id}/webhooks/portal-links`, {
      token: owner.token,
    });
    expect(link.status).toBe(201);
    const token = new URL(link.body.data.url as string).hash.replace(/^#token=/, '');
    const opened = await call(a.app, 'POST', '/api/webhooks/portal-sessions', { body: { token } });
    expect(opened.status).toBe(201);
    return { owner, portalToken: opened.body.data.accessToken as string };
  }

  const webhooksOf = (t: TestApp, communityId: string, token: string) =>
    call(t.app, 'GET', `/api/communities/${communityId}/webhooks`, { token });

  it('logout with a portal session token ends that session on every instance', async () => {
    const { owner, portalToken } = await portalSession();
    const communityId = owner.community.id;
    // B answers from its cache from here on
    expect((await webhooksOf(b, communityId, portalToken)).status).toBe(200);
    expect((await webhooksOf(b, communityId, portalToken)).status).toBe(200);

    const out = await call(a.app, 'POST', '/api/auth/logout', { token: portalToken });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true, data: { loggedOut: true } });

    const refused = await waitFor(
      'B to refuse the ended portal session',
      async () => {
        const res = await webhooksOf(b, communityId, portalToken);
        return res.status === 401 ? res : undefined;
      },
      PROPAGATION_TIMEOUT_MS,
    );
    expect(refused.body.error).toBe('This session has been revoked');
    expect((await call(b.app, 'POST', '/api/auth/logout', { token: portalToken })).status).toBe(401);
    // the login that minted the link is another session: untouched
    expect((await webhooksOf(b, communityId, owner.token)).status).toBe(200);
  });

  it("logout-all ends every session of the user, portal sessions included, and no one else's", async () => {
    const { owner, portalToken } = await portalSession();
    const communityId = owner.community.id;
    const second = await login(a.app, owner.user.email, communityId);
    const bystander = await memberWithToken(a.app, { communityId, role: 'ADMIN' });
    for (const token of [owner.token, second.accessToken, bystander.token]) await warmOnB(token);
    expect((await webhooksOf(b, communityId, portalToken)).status).toBe(200);

    const out = await call(a.app, 'POST', '/api/auth/logout-all', { token: second.accessToken });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true, data: { loggedOut: true, sessionsEnded: 3 } });

    for (const token of [owner.token, second.accessToken]) {
      await waitFor(
        'B to refuse every login of the user',
        async () => (await me(b, token)).status === 401,
        PROPAGATION_TIMEOUT_MS,
      );
    }
    await waitFor(
      'B to refuse the portal session of the user',
      async () => (await webhooksOf(b, communityId, portalToken)).status === 401,
      PROPAGATION_TIMEOUT_MS,
    );
    for (const refreshToken of [owner.tokens.refreshToken, second.refreshToken]) {
      const res = await call(b.app, 'POST', '/api/auth/refresh-token', { body: { refreshToken } });
      expect(res.status).toBe(401);
    }
    expect((await me(b, bystander.token)).status).toBe(200);
    // a new login afterwards is a new session
    const fresh = await login(a.app, owner.user.email, communityId);
    expect((await me(b, fresh.accessToken)).status).toBe(200);
  });

  /**
   * Logout and a refresh of the same session sent together: both may answer 200, but whatever the
   * refresh issued must be refused afterwards. A refresh claims its row, then inserts the next one;
   * a logout in between revokes the rows that exist and leaves the new one, so only a refresh that
   * checks the whole family refuses it (the race is lost in some of the runs, not all: hence 50).
   */
  async function raceLogoutWithRefresh(
    refresh: (tokens: { accessToken: string; refreshToken: string }) => Promise<CallResult>,
  ) {
    const { user, community } = await session();
    for (let i = 0; i < 50; i++) {
      const tokens = await login(a.app, user.email, community.id);
      await warmOnB(tokens.accessToken);
      const [out, refreshed] = await Promise.all([
        call(a.app, 'POST', '/api/auth/logout', { token: tokens.accessToken }),
        refresh(tokens),
      ]);
      expect([200, 401]).toContain(out.status);
      expect([200, 401]).toContain(refreshed.status);
      if (refreshed.status !== 200) continue;
      const issued = refreshed.body.data as { accessToken: string; refreshToken: string };
      const reuse = await call(a.app, 'POST', '/api/auth/refresh-token', {
        body: { refreshToken: issued.refreshToken },
      });
      expect({ run: i, status: reuse.status }).toEqual({ run: i, status: 401 });
      // the logout may have lost to the refresh (401 above): then this logout's family is the same one
      await waitFor(
        'B to refuse the access token the refresh issued',
        async () => (await me(b, issued.accessToken)).status === 401,
        PROPAGATION_TIMEOUT_MS,
      );
      expect((await call(b.app, 'POST', '/api/auth/refresh', { token: issued.accessToken })).status).toBe(
        401,
      );
    }
  }

  it(
    'logout racing POST /auth/refresh-token (50 runs): the pair the refresh issued is refused afterwards',
    async () => {
      await raceLogoutWithRefresh((tokens) =>
        call(b.app, 'POST', '/api/auth/refresh-token', { body: { refreshToken: tokens.refreshToken } }),
      );
    },
    RACE_TIMEOUT_MS,
  );

  it(
    'logout racing POST /auth/refresh (50 runs): the pair the refresh issued is refused afterwards',
    async () => {
      await raceLogoutWithRefresh((tokens) =>
        call(b.app, 'POST', '/api/auth/refresh', { token: tokens.accessToken }),
      );
    },
    RACE_TIMEOUT_MS,
  );

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
