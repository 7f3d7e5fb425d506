import { SUBSCRIBABLE_EVENTS } from '../../src/modules/events/event-catalog';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { Receiver, startReceiver, verifyWebhook } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, startTestWorker, TestWorker } from '../utils/worker';
import { Delivered, ownerContext, raiseEvents, waitForDeliveries } from './event-triggers';

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

  it('delivers each catalog event, verifiable and carrying what its route did', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    const path = `/${unique('all-events')}`;
    const endpoint = await createEndpoint(api, community.id, {
      url: receiver.url + path,
      events: [...SUBSCRIBABLE_EVENTS],
    });
    const ctx = ownerContext(api.app, token, community.id, endpoint.id);

    // the plain case of each event
    const raised = await raiseEvents(ctx, SUBSCRIBABLE_EVENTS, ([plain]) => [plain]);

    const received = () => receiver.at(path).map((r) => verifyWebhook(r, endpoint.secret) as Delivered);
    const bodies = await waitForDeliveries(raised, received);
    expect(new Set(bodies.map((b) => b.type))).toEqual(new Set(SUBSCRIBABLE_EVENTS));
    for (const body of bodies) {
      expect(body.communityId).toBe(community.id);
      expect(body.id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
      expect(body.data).toEqual(expect.any(Object));
    }
  });
});
