import { OutboxService } from '../../src/modules/events/outbox.service';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { syntheticData } from '../utils/synthetic-event';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';

const HOUR_MS = 3600_000;

/**
 * The delivery log's times (docs/api.md#webhooks, "Delivery log"): `sentAt` is when an attempt's
 * request went out, `createdAt` when the attempt was written (a retry: when the one before failed),
 * `nextAttemptAt` when a waiting one is due. Three different things, shown apart.
 */
describe('delivery log: when an attempt was sent, written and due', () => {
  let api: TestApp;
  let worker: TestWorker;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await createTestApp(DELIVERY_TEST_ENV);
    worker = await startTestWorker();
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await receiver?.close();
  });

  it('shows a retry sent after it was written, and a waiting attempt as not sent', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO' });
    const path = `/${unique('hook')}`;
    let calls = 0;
    receiver.respond(path, () => ({ status: ++calls === 1 ? 500 : 200 }));
    const created = await call(api.app, 'POST', `/api/communities/${community.id}/webhooks`, {
      token,
      body: { url: receiver.url + path, events: ['tweet.created'] },
    });
    const endpointId = created.body.data.id as string;
    const event = await api.prisma.$transaction((tx) =>
      api.app.get(OutboxService).record(tx, community.id, 'tweet.created', syntheticData()),
    );
    await waitFor('the retry to succeed', async () =>
      api.prisma.webhookDelivery.count({ where: { endpointId, messageId: event.id, status: 'SUCCESS' } }),
    );
    // a third attempt waiting an hour (as a resend scheduled behind others would)
    await api.prisma.webhookDelivery.create({
      data: {
        communityId: community.id,
        endpointId,
        messageId: event.id,
        eventType: 'tweet.created',
        attempt: 3,
        nextAttemptAt: new Date(Date.now() + HOUR_MS),
      },
    });

    const log = await call(
      api.app,
      'GET',
      `/api/communities/${community.id}/webhooks/${endpointId}/deliveries`,
      {
        token,
      },
    );
    const byAttempt = new Map(
      (
        log.body.data.items as {
          attempt: number;
          createdAt: string;
          sentAt: string | null;
          nextAttemptAt: string | null;
        }[]
      ).map((item) => [item.attempt, item]),
    );
    const [first, retry, waiting] = [1, 2, 3].map((n) => byAttempt.get(n)!);
    expect(first.sentAt).not.toBeNull();
    // the retry was written when the first failed and sent once due (WEBHOOK_RETRY_SCHEDULE: 50 ms)
    expect(Date.parse(retry.sentAt!)).toBeGreaterThanOrEqual(Date.parse(retry.createdAt) + 40);
    expect(receiver.at(path)[1].receivedAt).toBeGreaterThanOrEqual(Date.parse(retry.sentAt!));
    expect(waiting).toMatchObject({ sentAt: null, nextAttemptAt: expect.any(String) });
  });
});
