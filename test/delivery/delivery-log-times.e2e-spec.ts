import { OutboxService } from '../../src/modules/events/outbox.service';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { syntheticData } from '../utils/synthetic-event';
import { waitFor } from '../utils/worker';
import { useDeliveryStack } from '../utils/delivery-stack';

const HOUR_MS = 3600_000;

/**
 * The delivery log's times (docs/api.md#webhooks, "Delivery log"): `sentAt` is when an attempt's
 * request went out, `createdAt` when the attempt was written (a retry: when the one before failed),
 * `nextAttemptAt` when a waiting one is due. Three different things, shown apart.
 */
describe('delivery log: when an attempt was sent, written and due', () => {
  const stack = useDeliveryStack();

  it('shows a retry sent after it was written, and a waiting attempt as not sent', async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO' });
    const path = `/${unique('hook')}`;
    let calls = 0;
    stack.receiver.respond(path, () => ({ status: ++calls === 1 ? 500 : 200 }));
    const created = await call(stack.api.app, 'POST', `/api/communities/${community.id}/webhooks`, {
      token,
      body: { url: stack.receiver.url + path, events: ['tweet.created'] },
    });
    const endpointId = created.body.data.id as string;
    const event = await stack.api.prisma.$transaction((tx) =>
      stack.api.app.get(OutboxService).record(tx, community.id, 'tweet.created', syntheticData()),
    );
    await waitFor('the retry to succeed', async () =>
      stack.api.prisma.webhookDelivery.count({
        where: { endpointId, messageId: event.id, status: 'SUCCESS' },
      }),
    );
    // a third attempt waiting an hour (as a resend scheduled behind others would)
    await stack.api.prisma.webhookDelivery.create({
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
      stack.api.app,
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
    expect(stack.receiver.at(path)[1].receivedAt).toBeGreaterThanOrEqual(Date.parse(retry.sentAt!));
    expect(waiting).toMatchObject({ sentAt: null, nextAttemptAt: expect.any(String) });
  });
});
