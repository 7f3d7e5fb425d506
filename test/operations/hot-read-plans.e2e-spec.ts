import { useTestApp } from '../utils/app';
import { call } from '../utils/http';
import { memberWithCredentials } from '../utils/factories';

/** More than the five custom plans PostgreSQL makes before it would even consider a generic one. */
const CALLS = 7;

/**
 * The API's hot reads are named prepared statements on a pool whose connections plan each one once
 * (PrismaService.preparedQuery): on the shared pool PostgreSQL re-planned the paged ones at every
 * execution, which was most of its CPU on the delivery log (bench/README.md#other-reads-benchread-routesmjs).
 * With a prepared pool of one connection, every hot read of these routes lands on it, and
 * pg_prepared_statements there says how each was planned.
 */
describe('hot reads are planned once per connection', () => {
  const t = useTestApp({ DATABASE_PREPARED_POOL_SIZE: '1' });

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
      'delivery-page:50',
      'delivery-page-by-status:50',
    ]) {
      expect({ name, ...plans[name] }).toEqual({ name, generic: expect.any(Number), custom: 0 });
      expect(plans[name].generic).toBeGreaterThanOrEqual(CALLS);
    }
  });

  it("keeps the delivery log's page an index lookup of each attempt's event when the tables are large", async () => {
    // A generic plan does not know the page size; with the limit a parameter it assumed a tenth of the
    // endpoint's attempts and joined the whole outbox by hash (a seq scan per request, tens of ms). Each
    // page row's event must be one lookup by its message id.
    const member = await memberWithCredentials(t.app, { plan: 'PRO', role: 'OWNER' });
    const hooks = `/api/communities/${member.community.id}/webhooks`;
    const endpoint = await call(t.app, 'POST', hooks, {
      token: member.token,
      body: { url: 'https://93.184.215.14/hooks', events: ['tweet.created'] },
    });
    const endpointId: string = endpoint.body.data.id;
    const communityId = member.community.id;
    await t.prisma.$executeRawUnsafe(
      // already relayed, and the attempts finished: the workers of other specs sharing the database
      // must find nothing of them to relay, send or sweep
      `INSERT INTO outbox_events (community_id, message_id, event_type, payload, created_at, relayed_at)
       SELECT $1::uuid, 'msg_plan_' || g, 'tweet.created', '{}'::jsonb, now() - g * interval '1 second', now()
         FROM generate_series(1, 20000) g`,
      communityId,
    );
    await t.prisma.$executeRawUnsafe(
      `INSERT INTO webhook_deliveries (id, community_id, endpoint_id, message_id, event_type, attempt, status,
                                       created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, $2::uuid, 'msg_plan_' || g, 'tweet.created', 1,
              CASE WHEN g % 10 = 0 THEN 'FAILED' ELSE 'SUCCESS' END::"DeliveryStatus",
              now() - g * interval '1 second', now() - g * interval '1 second'
         FROM generate_series(1, 100000) g`,
      communityId,
      endpointId,
    );
    await t.prisma.$executeRawUnsafe('ANALYZE outbox_events');
    await t.prisma.$executeRawUnsafe('ANALYZE webhook_deliveries');
    try {
      for (let i = 0; i < CALLS; i++) {
        for (const status of [undefined, 'FAILED']) {
          const res = await call(t.app, 'GET', `${hooks}/${endpointId}/deliveries`, {
            token: member.token,
            query: { limit: '50', ...(status ? { status } : {}) },
          });
          expect(res.status).toBe(200);
          expect(res.body.data.items).toHaveLength(50);
        }
      }
      // the prepared pool has one connection: its statements can be explained there by name
      for (const [name, values] of [
        ['delivery-page:50', `'${communityId}', '${endpointId}', 0`],
        ['delivery-page-by-status:50', `'${communityId}', '${endpointId}', 0, 'FAILED'`],
      ]) {
        const { rows } = await t.prisma.preparedPool!.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN EXECUTE "${name}"(${values})`,
        );
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        expect({
          name,
          seqScanOfOutbox: /Seq Scan on outbox_events/.test(plan),
          outboxByMessageId: /outbox_events_message_id_key/.test(plan),
        }).toEqual({ name, seqScanOfOutbox: false, outboxByMessageId: true });
      }
    } finally {
      // its attempts go with it
      await t.prisma.webhookEndpoint.delete({ where: { id: endpointId } });
      await t.prisma.$executeRawUnsafe(
        `DELETE FROM outbox_events WHERE community_id = $1::uuid AND message_id LIKE 'msg_plan_%'`,
        communityId,
      );
    }
  });
  it('never JIT-compiles a hot read, however large the estimate of its generic plan', async () => {
    // A generic plan costs a page as a tenth of the community's rows: at 10^7 tweets the estimate
    // crossed jit_above_cost and every request paid a JIT compilation to read 20 rows. Here the
    // threshold is lowered to 0 on the prepared pool's one connection, so any JIT would show.
    const member = await memberWithCredentials(t.app, { plan: 'PRO', role: 'OWNER' });
    for (let i = 0; i < 2; i++) {
      const res = await call(t.app, 'GET', '/api/sdk/tweets', {
        apiKey: member.apiKey,
        query: { limit: '20' },
      });
      expect(res.status).toBe(200);
    }
    const pool = t.prisma.preparedPool!;
    expect((await pool.query<{ jit: string }>('SHOW jit')).rows[0].jit).toBe('off');
    await pool.query('SET jit_above_cost = 0');
    try {
      const { rows } = await pool.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE) EXECUTE "newest-first:tweets"('${member.community.id}', 20, 0)`,
      );
      expect(rows.map((row) => row['QUERY PLAN']).join('\n')).not.toMatch(/JIT/);
    } finally {
      await pool.query('RESET jit_above_cost');
    }
  });
});
