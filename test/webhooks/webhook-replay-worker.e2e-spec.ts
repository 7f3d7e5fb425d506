import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
/** messages per endpoint; REPLAY_TEST_MESSAGES raises it (docs/api.md#bulk-replay) */
const MESSAGES = Number(process.env.REPLAY_TEST_MESSAGES ?? 120);
/**
 * Over DELIVERY_TEST_ENV, for the API and the worker. The counts below hold only if no endpoint is auto-disabled
 * mid-replay (its later messages are then rightly `skipped`): on a busy machine the in-process receiver, flooded by
 * the replay, was seen to answer after DELIVERY_TEST_ENV's 2 s timeout, three times in a row on one endpoint, which
 * its auto-disable (3 failures, 1 ms) took for a dead receiver: 359 or 322 queued instead of 360. So here a send may
 * take 10 s, and a streak of failures disables nothing.
 */
const ENV = {
  WEBHOOK_REPLAY_BATCH: '25',
  WEBHOOK_REPLAY_INTERVAL: '50ms',
  WEBHOOK_TIMEOUT: '10s',
  WEBHOOK_AUTO_DISABLE_MIN_FAILURES: '1000000',
};
/** 480 attempts in 20 batches, sent by one in-process worker: 13 s at a load of 15 on two cores */
const REPLAY_DONE_MS = 60_000;

/** Bulk replay through a worker (docs/operations.md#bulk-replays): batches, once per message, skipped endpoints. */
describe('webhook bulk replay: the worker', () => {
  const stack = useDeliveryStack({ env: ENV });

  it(
    'queues each selected message once per endpoint, as many as the dry run counted; a paused endpoint is skipped',
    async () => {
      const owner = await memberWithToken(stack.api.app, { plan: 'PRO' });
      const endpoints: string[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await call(stack.api.app, 'POST', hooks(owner.community.id), {
          token: owner.token,
          body: { url: `${stack.receiver.url}/${unique('hook')}`, events: ['tweet.created'] },
        });
        endpoints.push(res.body.data.id as string);
      }
      const at = new Date(Date.now() - 3600_000);
      const prefix = unique('msg_').replace(/[^0-9A-Za-z_]/g, '');
      await stack.api.prisma.$executeRaw`
      INSERT INTO outbox_events (community_id, message_id, event_type, payload, created_at, relayed_at)
      SELECT ${owner.community.id}::uuid, ${prefix}::text || i, 'tweet.created',
             jsonb_build_object('id', ${prefix}::text || i, 'type', 'tweet.created', 'timestamp', ${at.toISOString()}::text,
                                'data', '{}'::jsonb),
             ${at}::timestamptz, ${at}::timestamptz
      FROM generate_series(1, ${MESSAGES}::int) i`;
      await stack.api.prisma.$executeRaw`
      INSERT INTO webhook_deliveries
        (id, community_id, endpoint_id, message_id, event_type, attempt, status, response_status, created_at, updated_at)
      SELECT gen_random_uuid(), ${owner.community.id}::uuid, e, ${prefix}::text || i, 'tweet.created', 1, 'FAILED', 503,
             ${at}::timestamptz, ${at}::timestamptz
      FROM generate_series(1, ${MESSAGES}::int) i, unnest(${endpoints}::uuid[]) e`;
      const paused = endpoints[3];
      await call(stack.api.app, 'PATCH', `${hooks(owner.community.id)}/${paused}`, {
        token: owner.token,
        body: { isActive: false },
      });

      const since = new Date(Date.now() - 2 * 3600_000).toISOString();
      const url = `${hooks(owner.community.id)}/replays`;
      const dry = await call(stack.api.app, 'POST', url, {
        token: owner.token,
        body: { since, dryRun: true },
      });
      expect(dry.body.data.count).toBe(4 * MESSAGES);
      const created = await call(stack.api.app, 'POST', url, { token: owner.token, body: { since } });
      expect(created.status).toBe(202);
      const id = created.body.data.id as string;

      const done = await waitFor(
        'replay done',
        async () => {
          const res = await call(stack.api.app, 'GET', `${url}/${id}`, { token: owner.token });
          return res.body.data.state === 'done' && res.body.data;
        },
        REPLAY_DONE_MS,
      );
      expect(done).toMatchObject({ total: 4 * MESSAGES, queued: 3 * MESSAGES, skipped: MESSAGES });
      const replayed = await stack.api.prisma.webhookDelivery.findMany({ where: { replayId: id } });
      expect(replayed).toHaveLength(3 * MESSAGES);
      expect(new Set(replayed.map((r) => `${r.endpointId}/${r.messageId}`)).size).toBe(3 * MESSAGES);
      expect(
        replayed.every((r) => r.attempt === 2 && r.trigger === 'replay' && r.endpointId !== paused),
      ).toBe(true);
      await waitFor(
        'replayed attempts sent',
        async () =>
          (await stack.api.prisma.webhookDelivery.count({ where: { replayId: id, status: 'PENDING' } })) ===
          0,
        REPLAY_DONE_MS,
      );
      // what the counts above assume: every endpoint but the paused one took its messages to the end
      expect(
        await stack.api.prisma.webhookEndpoint.count({
          where: { communityId: owner.community.id, disabledAt: { not: null } },
        }),
      ).toBe(0);
      const log = await call(
        stack.api.app,
        'GET',
        `${hooks(owner.community.id)}/${endpoints[0]}/deliveries?limit=1`,
        {
          token: owner.token,
        },
      );
      expect(log.body.data.items[0]).toMatchObject({ trigger: 'replay', replayId: id, attempt: 2 });
    },
    3 * REPLAY_DONE_MS,
  );
});
