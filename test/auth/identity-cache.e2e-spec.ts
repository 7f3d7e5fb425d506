import { TestApp, twoSubscribedApps } from '../utils/app';
import {
  createCommunity,
  createUser,
  keyCachedOnBRevokedOnA,
  login,
  memberWithCredentials,
  unique,
} from '../utils/factories';
import { call } from '../utils/http';
import { waitFor } from '../utils/worker';

// Who the caller is and which community it acts in are answered from memory on each API instance
// (docs/security.md#security-model). Two instances in one process share the run's database and Redis prefix: a
// change made through A must be refused or honoured by B within a second. Each test first makes B answer
// twice, so that B holds the old answer in its cache: without the announcement B would keep it for a minute
// (the caches' age bound), and the test would time out.
const PROPAGATION_MS = 1_000;

describe('identity and tenancy caches across API instances', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await twoSubscribedApps();
  });
  afterAll(() => Promise.all([a.close(), b.close()]));

  /** Polls B until `accept` says its answer changed, failing after PROPAGATION_MS. */
  async function onB(
    what: string,
    request: () => ReturnType<typeof call>,
    accept: (status: number) => boolean,
  ) {
    const started = Date.now();
    const res = await waitFor(
      what,
      async () => {
        const r = await request();
        return accept(r.status) ? r : undefined;
      },
      PROPAGATION_MS,
      10,
    );
    return { res, ms: Date.now() - started };
  }

  it('a key revoked through A is refused by B within a second', async () => {
    const tweets = await keyCachedOnBRevokedOnA(a.app, b.app);
    const { res } = await onB('B to refuse the revoked key', tweets, (s) => s === 401);
    expect(res.body).toMatchObject({ success: false, error: 'Invalid or revoked API key' });
  });

  it('an ADMIN demoted through A is refused an ADMIN-only call by B within a second', async () => {
    const owner = await memberWithCredentials(a.app, { plan: 'PRO', role: 'OWNER' });
    const admin = await createUser(a.app);
    const added = await call(a.app, 'POST', '/api/sdk/members', {
      token: owner.token,
      body: { email: admin.email, role: 'ADMIN' },
    });
    expect(added.status).toBe(201);
    const adminToken = (await login(a.app, admin.email, owner.community.id)).accessToken;
    // creating an API key needs API_KEYS_MANAGE, which ADMIN holds and MEMBER does not
    const adminOnly = () =>
      call(b.app, 'POST', '/api/admin/sdk/api-keys', { token: adminToken, body: { name: unique('k') } });
    expect((await adminOnly()).status).toBe(201);
    expect((await adminOnly()).status).toBe(201);

    const demoted = await call(
      a.app,
      'PATCH',
      `/api/sdk/members/${(added.body.data as { id: string }).id}/role`,
      {
        token: owner.token,
        body: { role: 'MEMBER' },
      },
    );
    expect(demoted.status).toBe(200);

    const { res } = await onB('B to refuse the demoted ADMIN', adminOnly, (s) => s === 403);
    expect(res.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
  });

  it('a member added through A is let in by B within a second (a cached "not a member" is dropped)', async () => {
    const owner = await memberWithCredentials(a.app, { plan: 'PRO', role: 'OWNER' });
    const other = await createCommunity(a.app, { plan: 'PRO' });
    const outsider = await createUser(a.app);
    const outsiderToken = (await login(a.app, outsider.email)).accessToken;
    const tweets = () =>
      call(b.app, 'GET', `/api/sdk/tweets?communityId=${owner.community.id}`, { token: outsiderToken });
    expect((await tweets()).status).toBe(403);
    expect((await tweets()).status).toBe(403);
    expect(other.id).not.toBe(owner.community.id);

    const added = await call(a.app, 'POST', '/api/sdk/members', {
      token: owner.token,
      body: { email: outsider.email },
    });
    expect(added.status).toBe(201);
    await onB('B to let the new member in', tweets, (s) => s === 200);
  });

  it('a plan changed on A reaches B: a feature the new plan lacks is refused within a second', async () => {
    const owner = await memberWithCredentials(a.app, { plan: 'PRO', role: 'OWNER' });
    const webhooks = () =>
      call(b.app, 'GET', `/api/communities/${owner.community.id}/webhooks`, { token: owner.token });
    expect((await webhooks()).status).toBe(200);
    expect((await webhooks()).status).toBe(200);

    // no route changes a plan (operators do, in the database): the change is announced as the
    // services announce theirs, after the commit
    await a.prisma.community.update({ where: { id: owner.community.id }, data: { plan: 'FREE' } });
    const { TenancyService } = await import('../../src/modules/tenancy/tenancy.service');
    await a.app.get(TenancyService).communityChanged(owner.community.id);

    const { res } = await onB('B to refuse the feature', webhooks, (s) => s === 403);
    expect(res.body).toMatchObject({ code: 'FEATURE_NOT_AVAILABLE' });
  });
});
