import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';
import { RedisServer, sparePort, startRedis } from './processes';

jest.setTimeout(120_000);

describe('Redis down', () => {
  let redis: RedisServer;
  let api: TestApp;
  let worker: TestWorker;
  let receiver: Receiver;

  beforeAll(async () => {
    redis = await startRedis(await sparePort());
    const env = { ...DELIVERY_TEST_ENV, REDIS_URL: redis.url };
    api = await createTestApp(env);
    worker = await startTestWorker(env);
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await receiver?.close();
    await redis?.stop();
  });

  it('lets writes succeed and delivers their events once Redis is back', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const path = `/${unique('outage')}`;
    await createEndpoint(api, community.id, { url: receiver.url + path, events: ['tweet.created'] });
    const tweetIdsReceived = () =>
      new Set(
        receiver
          .at(path)
          .map((r) => (JSON.parse(r.body) as { data: { tweet: { id: string } } }).data.tweet.id),
      );
    const post = async (content: string) => {
      const res = await call(api.app, 'POST', '/api/sdk/tweets', { token, body: { content } });
      expect(res.status).toBe(201);
      return (res.body.data as { id: string }).id;
    };

    const before = await post('before the outage');
    await waitFor('the delivery before the outage', () => tweetIdsReceived().has(before));

    await redis.stop();
    const during: string[] = [];
    for (let n = 0; n < 5; n++) during.push(await post(`during the outage ${n}`));
    const stored = await api.prisma.outboxEvent.count({
      where: { communityId: community.id, eventType: 'tweet.created' },
    });
    expect(stored).toBe(6);

    redis = await startRedis(redis.port);
    await waitFor(
      'every event written during the outage',
      () => during.every((id) => tweetIdsReceived().has(id)),
      60_000,
    );
    expect(
      await api.prisma.outboxEvent.count({ where: { communityId: community.id, relayedAt: null } }),
    ).toBe(0);
  });
});
