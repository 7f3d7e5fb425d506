import { createTestApp, TestApp } from '../utils/app';
import { call } from '../utils/http';
import { memberWithCredentials } from '../utils/factories';

/** More than the five custom plans PostgreSQL makes before it would even consider a generic one. */
const CALLS = 7;

/**
 * The API's hot reads are named prepared statements on a pool whose connections plan each one once
 * (PrismaService.preparedQuery): on the shared pool PostgreSQL re-planned the paged ones at every
 * execution, which was most of its CPU on the delivery log (bench/README.md). With a prepared pool of
 * one connection, every hot read of these routes lands on it, and pg_prepared_statements there says
 * how each was planned.
 */
describe('hot reads are planned once per connection', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ DATABASE_PREPARED_POOL_SIZE: '1' });
  });
  afterAll(() => t.close());

  it('runs the tweets, tasks, members, delivery-log and /me statements on generic plans only', async () => {
    const member = await memberWithCredentials(t.app, { plan: 'PRO', role: 'OWNER' });
    const hooks = `/api/communities/${member.community.id}/webhooks`;
    const endpoint = await call(t.app, 'POST', hooks, {
      token: member.token,
      body: { url: 'https://93.184.215.14/hooks', events: ['tweet.created'] },
    });
    expect(endpoint.status).toBe(201);
    const reads: [string, Record<string, string>, { token?: string; apiKey?: string }][] = [
      ['/api/sdk/tweets', { page: '1', limit: '20' }, { apiKey: member.apiKey }],
      ['/api/sdk/tasks', { page: '1', limit: '20' }, { apiKey: member.apiKey }],
      ['/api/sdk/members', { limit: '20' }, { apiKey: member.apiKey }],
      ['/api/admin/sdk/me', {}, { apiKey: member.apiKey }],
      ['/api/admin/sdk/me', {}, { token: member.token }],
      [`${hooks}/${endpoint.body.data.id}/deliveries`, { limit: '50' }, { token: member.token }],
      [`${hooks}/${endpoint.body.data.id}/deliveries`, { status: 'FAILED' }, { token: member.token }],
    ];
    for (let i = 0; i < CALLS; i++) {
      for (const [path, query, auth] of reads) {
        const res = await call(t.app, 'GET', path, { ...auth, query });
        expect(res.status).toBe(200);
      }
    }

    const { rows } = await t.prisma.preparedPool!.query<{
      name: string;
      generic_plans: string;
      custom_plans: string;
    }>('SELECT name, generic_plans, custom_plans FROM pg_prepared_statements');
    const plans = Object.fromEntries(
      rows.map((r) => [r.name, { generic: Number(r.generic_plans), custom: Number(r.custom_plans) }]),
    );
    for (const name of [
      'newest-first:tweets',
      'newest-first:tasks',
      'members-page',
      'identity',
      'api-key-identity',
      'delivery-page',
      'delivery-page-by-status',
    ]) {
      expect({ name, ...plans[name] }).toEqual({ name, generic: expect.any(Number), custom: 0 });
      expect(plans[name].generic).toBeGreaterThanOrEqual(CALLS);
    }
  });
});
