import { OutboxRetention } from '../../src/modules/webhooks/worker/outbox-retention.service';
import { WorkerOutboxStore } from '../../src/modules/webhooks/worker/outbox.store';
import { createTestApp, TestApp } from '../utils/app';
import { createCommunity } from '../utils/factories';
import { DELIVERY_TEST_ENV } from '../utils/worker';

describe('outbox retention', () => {
  let api: TestApp;
  beforeAll(async () => (api = await createTestApp(DELIVERY_TEST_ENV)));
  afterAll(() => api?.close());

  it('deletes relayed rows past the retention and keeps recent or unrelayed ones', async () => {
    const community = await createCommunity(api.app);
    const day = 24 * 3600_000;
    const row = (name: string, relayedAt: Date | null, createdAt = new Date()) => ({
      communityId: community.id,
      messageId: `msg_retention_${name}_${community.id}`,
      eventType: 'tweet.created',
      payload: {},
      relayedAt,
      createdAt,
    });
    await api.prisma.outboxEvent.createMany({
      data: [
        row('old', new Date(Date.now() - 8 * day), new Date(Date.now() - 8 * day)),
        row('recent', new Date(Date.now() - 1 * day)),
        // never relayed (e.g. no worker ran for a while): it must wait to be relayed, however old
        row('stuck', null, new Date(Date.now() - 30 * day)),
      ],
    });
    // (a concurrently running worker may relay 'stuck' meanwhile: relayed just now, it is kept too)

    await new OutboxRetention(new WorkerOutboxStore(api.prisma), api.config).prune(7 * day);

    const left = await api.prisma.outboxEvent.findMany({ where: { communityId: community.id } });
    expect(left.map((r) => r.messageId.split('_')[2]).sort()).toEqual(['recent', 'stuck']);
  });
});
