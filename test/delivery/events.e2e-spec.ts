import { SUBSCRIBABLE_EVENTS } from '../../src/modules/events/event-catalog';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { Receiver, startReceiver, verifyWebhook } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';

interface Delivered {
  id: string;
  type: string;
  communityId: string;
  timestamp: string;
  data: Record<string, unknown>;
}

describe('every subscribable event, raised through its route, reaches a subscribed endpoint', () => {
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

  it('delivers community, content, member, customization and embed events, each verifiable', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    const path = `/${unique('all-events')}`;
    const endpoint = await createEndpoint(api, community.id, {
      url: receiver.url + path,
      events: [...SUBSCRIBABLE_EVENTS],
    });
    const send = async (method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: object) => {
      const res = await call(api.app, method, url, { token, body });
      expect([200, 201]).toContain(res.status);
      return res.body.data as { id: string };
    };

    await send('PATCH', '/api/sdk/community/settings', { description: 'now with webhooks' });
    const tweet = await send('POST', '/api/sdk/tweets', { content: 'first' });
    await send('PATCH', `/api/sdk/tweets/${tweet.id}`, { content: 'first, edited' });
    await send('POST', `/api/sdk/tweets/${tweet.id}/comments`, { content: 'a comment' });
    await send('POST', `/api/sdk/tweets/${tweet.id}/like`, {});
    await send('DELETE', `/api/sdk/tweets/${tweet.id}`);
    const member = await send('POST', '/api/sdk/members', { email: `${unique('joiner')}@example.test` });
    await send('PATCH', `/api/sdk/members/${member.id}/role`, { role: 'MODERATOR' });
    await send('PUT', '/api/sdk/customization/sidebar', { items: [{ label: 'Home', url: '/home' }] });
    await send('POST', '/api/embed/sessions', {});

    const bodies = await waitFor('one delivery of every event type', () => {
      const delivered = receiver.at(path).map((r) => verifyWebhook(r, endpoint.secret) as Delivered);
      const types = new Set(delivered.map((d) => d.type));
      return SUBSCRIBABLE_EVENTS.every((t) => types.has(t)) && delivered;
    });
    expect(bodies.map((b) => b.type).sort()).toEqual([...SUBSCRIBABLE_EVENTS].sort());
    for (const body of bodies) {
      expect(body.communityId).toBe(community.id);
      expect(body.id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
      expect(body.data).toEqual(expect.any(Object));
    }
    const byType = Object.fromEntries(bodies.map((b) => [b.type, b.data]));
    expect(byType['tweet.created']).toMatchObject({ tweet: { id: tweet.id, content: 'first' } });
    expect(byType['tweet.deleted']).toMatchObject({ tweet: { id: tweet.id } });
  });
});
