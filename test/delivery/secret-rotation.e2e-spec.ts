import { DeliveryAttemptsStore } from '../../src/modules/webhooks/worker/delivery-attempts.store';
import type { WebhookSender } from '../../src/modules/webhooks/core/delivery/webhook-sender.service';
import { WebhookSecretsService } from '../../src/modules/webhooks/core/secrets/webhook-secrets.service';
import { DELIVERY_SENDER } from '../../src/modules/webhooks/worker/cached-live-secrets';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { Receiver, ReceivedWebhook, startReceiver, verifyWebhook } from '../utils/webhook-receiver';
import { DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
const TWEETS_PER_ROTATION = 4;

/**
 * A rotation reaches every worker before its next send: each worker keeps a copy of an endpoint's
 * secrets, and the claim of an attempt tells it when that copy is older than the secrets.
 */
describe('secret rotation as the receiver sees it, on two workers', () => {
  let api: TestApp;
  let workers: TestWorker[];
  let receiver: Receiver;

  beforeAll(async () => {
    // two live secrets at most, so the second rotation retires the first secret at once
    api = await createTestApp({ ...DELIVERY_TEST_ENV, WEBHOOK_MAX_LIVE_SECRETS: '2' });
    workers = [await startTestWorker(), await startTestWorker()];
    receiver = await startReceiver();
  });

  afterAll(async () => {
    for (const worker of workers ?? []) await worker.stop();
    await api?.close();
    await receiver?.close();
  });

  /** Signs a request with each worker's delivery sender, as a delivery does: each keeps the secrets it read. */
  async function warmUp(s: { communityId: string; endpointId: string; path: string }) {
    for (const worker of workers) {
      const sent = await worker.context.get<WebhookSender>(DELIVERY_SENDER).send({
        communityId: s.communityId,
        endpointId: s.endpointId,
        url: `${receiver.url}${s.path}/warm-up`,
        messageId: unique('msg_warm'),
        eventType: 'tweet.created',
        body: '{}',
      });
      expect(sent.ok).toBe(true);
    }
  }

  /** Rotates through the API and at once posts tweets; returns the new secret and their deliveries. */
  async function rotateThenTweet(s: {
    communityId: string;
    endpointId: string;
    token: string;
    path: string;
  }) {
    const rotated = await call(api.app, 'POST', `${hooks(s.communityId)}/${s.endpointId}/rotate-secret`, {
      token: s.token,
    });
    expect(rotated.status).toBe(200);
    const before = receiver.at(s.path).length;
    await Promise.all(
      Array.from({ length: TWEETS_PER_ROTATION }, async (_, i) => {
        const tweet = await call(api.app, 'POST', '/api/sdk/tweets', {
          token: s.token,
          body: { content: `after the rotation ${i}` },
        });
        expect(tweet.status).toBe(201);
      }),
    );
    const delivered = await waitFor('the tweets to be delivered', () => {
      const all = receiver.at(s.path);
      return all.length === before + TWEETS_PER_ROTATION && all.slice(before);
    });
    return { secret: rotated.body.data.secret as string, delivered };
  }

  function verifies(request: ReceivedWebhook, secret: string): boolean {
    try {
      verifyWebhook(request, secret);
      return true;
    } catch {
      return false;
    }
  }

  it('signs every delivery claimed after the rotate answer with every live secret, and no retired one', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const path = `/${unique('rotation')}`;
    const created = await call(api.app, 'POST', hooks(community.id), {
      token,
      body: { url: receiver.url + path, events: ['tweet.created'] },
    });
    expect(created.status).toBe(201);
    const s = { communityId: community.id, endpointId: created.body.data.id as string, token, path };
    const first = created.body.data.secret as string;

    // both workers hold the first secret alone when the rotation commits
    await warmUp(s);
    for (const request of receiver.at(`${path}/warm-up`)) expect(verifies(request, first)).toBe(true);
    const { secret: second, delivered } = await rotateThenTweet(s);
    for (const request of delivered)
      expect({ first: verifies(request, first), second: verifies(request, second) }).toEqual({
        first: true,
        second: true,
      });

    // the second rotation retires the first secret (two live at most): it signs nothing after it
    await warmUp(s);
    const { secret: third, delivered: later } = await rotateThenTweet(s);
    for (const request of later) {
      expect({
        first: verifies(request, first),
        second: verifies(request, second),
        third: verifies(request, third),
      }).toEqual({ first: false, second: true, third: true });
      expect(request.headers['webhook-signature'].split(' ')).toHaveLength(2);
    }
  });

  it('claims read the version of the secrets the way the secrets service does', async () => {
    // (a version that never matched would re-read the secrets for every send)
    const { community, token } = await memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
    const created = await call(api.app, 'POST', hooks(community.id), {
      token,
      body: { url: `${receiver.url}/${unique('version')}`, events: ['tweet.created'] },
    });
    expect(created.status).toBe(201);
    const endpointId = created.body.data.id as string;
    await call(api.app, 'POST', `${hooks(community.id)}/${endpointId}/rotate-secret`, { token });
    const { version } = await api.app.get(WebhookSecretsService).readLive(community.id, endpointId);
    expect(version).toEqual(expect.any(Number));

    const deliveries = workers[0].context.get(DeliveryAttemptsStore);
    const key = { communityId: community.id, endpointId, eventType: 'tweet.created', attempt: 1 };
    // a row that is there (the shared batch claim) and one that is not (the single claim inserts it)
    const waiting = { ...key, messageId: unique('msg_waiting') };
    await api.prisma.webhookDelivery.create({
      data: { ...waiting, status: 'PENDING', nextAttemptAt: new Date(Date.now() + 3_600_000) },
    });
    const missing = { ...key, messageId: unique('msg_missing') };
    for (const attempt of [waiting, missing]) {
      const claim = await deliveries.claim(attempt);
      expect(claim.deliveryId).toEqual(expect.any(String));
      expect(claim.secretsVersion).toBe(version);
      const done = {
        ok: true,
        status: 200,
        responseBody: '',
        durationMs: 1,
        error: null,
        retryAfterMs: null,
      };
      await deliveries.finish(claim.deliveryId!, community.id, { ...done, gone: false }, null);
    }
  });
});
