import { brokerRelay, natsTarget, rabbitTarget, useBrokerStack } from '../utils/brokers';
import { memberWithToken } from '../utils/factories';
import { call } from '../utils/http';
import { raiseInOrder } from '../utils/synthetic-event';
import { waitFor } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

/**
 * A FIFO broker destination (docs/api.md#broker-destinations) keeps commit order when its broker goes away
 * mid-stream and comes back: the failing head holds the rest back, retries, and nothing is lost or
 * reordered. The broker is cut off through a TCP relay, so its connections really drop.
 */
describe('webhook broker destinations: FIFO through a broker outage', () => {
  const stack = useBrokerStack();

  async function fifoEndpoint(body: Record<string, unknown>) {
    const member = await memberWithToken(stack.api.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: { events: ['tweet.created'], ordering: 'fifo', retrySchedule: ['1s', '1s', '1s', '1s'], ...body },
    });
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    const id = created.body.data.id as string;
    const log = async () =>
      (
        await call(stack.api.app, 'GET', `${hooks(member.community.id)}/${id}/deliveries?limit=100`, {
          token: member.token,
        })
      ).body.data.items as { messageId: string; status: string; error: string | null }[];
    return { ...member, id, log };
  }

  /** Raises 3, lets them arrive, cuts the broker off, raises 3 more, restores it after a failed head. */
  async function throughOutage(
    endpoint: Awaited<ReturnType<typeof fifoEndpoint>>,
    relay: Awaited<ReturnType<typeof brokerRelay>>,
  ): Promise<string[]> {
    const delivered = (ids: string[]) =>
      waitFor(`${ids.length} delivered`, async () => {
        const done = (await endpoint.log()).filter((a) => a.status === 'SUCCESS');
        return ids.every((id) => done.some((a) => a.messageId === id));
      });
    const first = await raiseInOrder(stack.api, endpoint.community.id, 3);
    await delivered(first);
    await relay.stop();
    const second = await raiseInOrder(stack.api, endpoint.community.id, 3);
    await waitFor('the head failing', async () => (await endpoint.log()).some((a) => a.status === 'FAILED'));
    await relay.start();
    await delivered(second);
    return [...first, ...second];
  }

  it('NATS JetStream: the stream holds every message once, in commit order', async () => {
    const target = await natsTarget();
    stack.cleanups.push(target.remove);
    const relay = await brokerRelay({ host: '127.0.0.1', port: 4222 });
    stack.cleanups.push(relay.stop);
    const endpoint = await fifoEndpoint({
      type: 'nats',
      url: `nats://127.0.0.1:${relay.port}`,
      subject: target.subject,
    });
    const ids = await throughOutage(endpoint, relay);
    const stream = (await target.messages()).map((m) => m.headers['webhook-id']);
    expect(stream).toEqual(ids);
  });

  it('RabbitMQ: the queue holds every message once, in commit order', async () => {
    const target = await rabbitTarget();
    stack.cleanups.push(target.remove);
    const relay = await brokerRelay({ host: '127.0.0.1', port: 5672 });
    stack.cleanups.push(relay.stop);
    const endpoint = await fifoEndpoint({
      type: 'rabbitmq',
      url: `amqp://guest:guest@127.0.0.1:${relay.port}`,
      exchange: target.exchange,
      routingKey: target.routingKey,
    });
    const ids = await throughOutage(endpoint, relay);
    const queue = (await target.take()).map((m) => m.headers['webhook-id']);
    expect(queue).toEqual(ids);
  });
});
