import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { DELIVERY_TEST_ENV } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

/**
 * The cap of 3 replays queued or running per community (docs/api.md#bulk-replay) under concurrent creates:
 * the count and the insert are serialised per community, so replays asked for at the same moment cannot all
 * pass it. No worker runs, so every created replay stays queued.
 */
describe('webhook bulk replay: the cap under concurrent creates', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await createTestApp(DELIVERY_TEST_ENV);
  });

  afterAll(async () => {
    await api?.close();
  });

  it('six replays asked for at once: three are queued (202), the others 409, in the table too', async () => {
    const owner = await memberWithToken(api.app, { plan: 'PRO' });
    const other = await memberWithToken(api.app, { plan: 'PRO' });
    for (const member of [owner, other]) {
      const created = await call(api.app, 'POST', hooks(member.community.id), {
        token: member.token,
        body: { url: `http://127.0.0.1:9/${unique('hook')}`, events: ['tweet.created'] },
      });
      expect(created.status).toBe(201);
    }
    const since = new Date(Date.now() - 3600_000).toISOString();
    const ask = (member: typeof owner) =>
      call(api.app, 'POST', `${hooks(member.community.id)}/replays`, {
        token: member.token,
        body: { since },
      });

    const answers = await Promise.all(Array.from({ length: 6 }, () => ask(owner)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([202, 202, 202, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.code).toBe('CONFLICT');
    expect(
      await api.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM webhook_replays WHERE community_id = ${owner.community.id}::uuid`,
    ).toEqual([{ n: 3 }]);
    // the cap is the community's: another community's replay is not refused by these three
    expect((await ask(other)).status).toBe(202);
  });
});
