import { verify } from '../../src/cli/receiver';
import { BrokerTransports } from '../../src/modules/webhooks/core/broker-transport/broker-transports.service';
import {
  brokerRelay,
  closedPort,
  type ConsumedMessage,
  natsTarget,
  type NatsTarget,
  rabbitTarget,
  type RabbitTarget,
  useBrokerStack,
} from '../utils/brokers';
import { memberWithToken } from '../utils/factories';
import { parseExposition, valueOf } from '../utils/metrics';
import { MetricsRegistry } from '../../src/metrics/metrics-registry';
import { call } from '../utils/http';
import { raiseInOrder } from '../utils/synthetic-event';
import { TestWorker, waitFor } from '../utils/worker';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;

interface Attempt {
  messageId: string;
  attempt: number;
  status: string;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

/**
 * Broker destinations (docs/api.md#broker-destinations) on the real RabbitMQ and NATS JetStream of the
 * machine: each event published once, signed as an http delivery is; the broker's ack in the log; a
 * missing exchange or stream and an unreachable broker are failed attempts that retry; a paused endpoint's
 * connection is closed.
 */
describe('webhook broker destinations: delivery', () => {
  const stack = useBrokerStack();

  async function endpoint(body: Record<string, unknown>) {
    const member = await memberWithToken(stack.api.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    const created = await call(stack.api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: { events: ['tweet.created'], ...body },
    });
    if (created.status !== 201) throw new Error(JSON.stringify(created.body));
    return { ...member, id: created.body.data.id as string, secret: created.body.data.secret as string };
  }

  async function attempts(s: { community: { id: string }; token: string; id: string }): Promise<Attempt[]> {
    const page = await call(stack.api.app, 'GET', `${hooks(s.community.id)}/${s.id}/deliveries?limit=100`, {
      token: s.token,
    });
    return page.body.data.items as Attempt[];
  }

  const succeeded = (s: Parameters<typeof attempts>[0], ids: string[]) =>
    waitFor(`${ids.length} successful attempts`, async () => {
      const done = (await attempts(s)).filter((a) => a.status === 'SUCCESS');
      return ids.every((id) => done.some((a) => a.messageId === id)) && done;
    });

  /** Each message once, signed (checked with the project's own receiver code), in the raised set. */
  function expectSignedOnce(messages: ConsumedMessage[], ids: string[], secret: string) {
    expect(messages.map((m) => m.headers['webhook-id']).sort()).toEqual([...ids].sort());
    for (const message of messages) {
      expect(verify([secret], message.body, message.headers)).toEqual({ ok: true, secret: 0 });
      expect(JSON.parse(message.body)).toMatchObject({
        id: message.headers['webhook-id'],
        type: 'tweet.created',
      });
      // names as the endpoint wrote them (AMQP's are case-sensitive; NATS's reader lowercases here)
      expect(message.headers['X-Route'] ?? message.headers['x-route']).toBe('eu-1');
    }
  }

  it('publishes each event once to RabbitMQ, persistent and signed; the log holds the confirm', async () => {
    const target: RabbitTarget = await rabbitTarget();
    stack.cleanups.push(target.remove);
    const s = await endpoint({
      type: 'rabbitmq',
      url: 'amqp://guest:guest@127.0.0.1:5672',
      exchange: target.exchange,
      routingKey: target.routingKey,
      headers: { 'X-Route': 'eu-1' },
    });
    const ids = await raiseInOrder(stack.api, s.community.id, 5);
    const done = await succeeded(s, ids);
    expect(done).toHaveLength(5);
    for (const a of done) {
      expect(a.responseStatus).toBeNull();
      expect(a.responseBody).toContain(`confirmed by RabbitMQ: exchange "${target.exchange}"`);
    }
    const messages = await target.take();
    expectSignedOnce(messages, ids, s.secret);
    // persistent: the broker writes them to disk in a durable queue
    expect(messages.map((m) => m.deliveryMode)).toEqual([2, 2, 2, 2, 2]);
  });

  it('publishes each event once to NATS JetStream, signed; the log holds the stream and sequence', async () => {
    const target: NatsTarget = await natsTarget();
    stack.cleanups.push(target.remove);
    const s = await endpoint({
      type: 'nats',
      url: 'nats://127.0.0.1:4222',
      subject: target.subject,
      headers: { 'X-Route': 'eu-1' },
    });
    const ids = await raiseInOrder(stack.api, s.community.id, 5);
    const done = await succeeded(s, ids);
    for (const a of done) {
      expect(a.responseStatus).toBeNull();
      expect(a.responseBody).toMatch(new RegExp(`^JetStream ack: stream "${target.stream}", sequence \\d+$`));
    }
    expectSignedOnce(await target.messages(), ids, s.secret);
  });

  it('sends the test route through the broker from the API, and logs the ack', async () => {
    const target = await rabbitTarget();
    stack.cleanups.push(target.remove);
    const s = await endpoint({
      type: 'rabbitmq',
      url: 'amqp://guest:guest@127.0.0.1:5672',
      exchange: target.exchange,
      routingKey: target.routingKey,
    });
    const tested = await call(stack.api.app, 'POST', `${hooks(s.community.id)}/${s.id}/test`, {
      token: s.token,
    });
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({
      status: 'SUCCESS',
      responseStatus: null,
      eventType: 'webhook.test',
    });
    expect(tested.body.data.responseBody).toContain('confirmed by RabbitMQ');
    const [message] = await target.take();
    expect(verify([s.secret], message.body, message.headers)).toEqual({ ok: true, secret: 0 });
  });

  it('fails an attempt naming a missing exchange or a subject no stream captures', async () => {
    const rabbit = await endpoint({
      type: 'rabbitmq',
      url: 'amqp://guest:guest@127.0.0.1:5672',
      exchange: 'no-such-exchange-for-webhooks',
      routingKey: 'x',
    });
    const nats = await endpoint({ type: 'nats', url: 'nats://127.0.0.1:4222', subject: 'no.stream.here' });
    await raiseInOrder(stack.api, rabbit.community.id, 1);
    await raiseInOrder(stack.api, nats.community.id, 1);
    const failedWith = (s: typeof rabbit) =>
      waitFor('a failed attempt', async () => (await attempts(s)).find((a) => a.status === 'FAILED'));
    const r = await failedWith(rabbit);
    expect(r.error).toBe('exchange not found: no exchange "no-such-exchange-for-webhooks" in vhost "/"');
    expect(r.responseStatus).toBeNull();
    const n = await failedWith(nats);
    expect(n.error).toBe('no stream for subject "no.stream.here"');
  });

  it('fails a message the exchange routes to no queue: a success means a queue holds it', async () => {
    const target = await rabbitTarget();
    stack.cleanups.push(target.remove);
    const s = await endpoint({
      type: 'rabbitmq',
      url: 'amqp://guest:guest@127.0.0.1:5672',
      exchange: target.exchange,
      routingKey: 'bound.to.nothing',
    });
    await raiseInOrder(stack.api, s.community.id, 1);
    const failed = await waitFor('a failed attempt', async () =>
      (await attempts(s)).find((a) => a.status === 'FAILED'),
    );
    expect(failed.error).toBe(
      `unroutable: exchange "${target.exchange}" has no queue bound for routing key "bound.to.nothing"`,
    );
  });

  it('fails attempts while the broker is unreachable and delivers once it is back, losing nothing', async () => {
    const target = await natsTarget();
    stack.cleanups.push(target.remove);
    const relay = await brokerRelay({ host: '127.0.0.1', port: 4222 });
    stack.cleanups.push(relay.stop);
    await relay.stop();
    const s = await endpoint({
      type: 'nats',
      url: `nats://127.0.0.1:${relay.port}`,
      subject: target.subject,
      retrySchedule: ['2s', '2s', '2s'],
    });
    // two: the test stack.worker auto-disables at 3 consecutive failures (DELIVERY_TEST_ENV)
    const ids = await raiseInOrder(stack.api, s.community.id, 2);
    await waitFor('a failed attempt of each', async () => {
      const failed = (await attempts(s)).filter((a) => a.status === 'FAILED');
      return ids.every((id) => failed.some((a) => a.messageId === id));
    });
    const failed = (await attempts(s)).filter((a) => a.status === 'FAILED');
    for (const a of failed) expect(a.error).toBe(`connection refused by 127.0.0.1:${relay.port}`);
    await relay.start();
    await succeeded(s, ids);
    expectSignedOnceLoose(await target.messages(), ids);
  });

  it('fails within the timeout on a port nothing listens on, as a RabbitMQ destination too', async () => {
    const port = await closedPort();
    const s = await endpoint({
      type: 'rabbitmq',
      url: `amqp://guest:guest@127.0.0.1:${port}`,
      exchange: 'x',
      routingKey: 'y',
    });
    await raiseInOrder(stack.api, s.community.id, 1);
    const failed = await waitFor('a failed attempt', async () =>
      (await attempts(s)).find((a) => a.status === 'FAILED'),
    );
    expect(failed.error).toBe(`connection refused by 127.0.0.1:${port}`);
  });

  it("closes a deleted endpoint's NATS connection", async () => {
    const target = await natsTarget();
    stack.cleanups.push(target.remove);
    const relay = await brokerRelay({ host: '127.0.0.1', port: 4222 });
    stack.cleanups.push(relay.stop);
    const s = await endpoint({
      type: 'nats',
      url: `nats://127.0.0.1:${relay.port}`,
      subject: target.subject,
    });
    await succeeded(s, await raiseInOrder(stack.api, s.community.id, 1));
    expect(relay.open()).toBeGreaterThan(0);
    const deleted = await call(stack.api.app, 'DELETE', `${hooks(s.community.id)}/${s.id}`, {
      token: s.token,
    });
    expect(deleted.status).toBe(200);
    await waitFor('the connections closed', () => relay.open() === 0);
  });

  it('fails an attempt whose credentials the broker refuses, naming neither of them', async () => {
    const s = await endpoint({
      type: 'rabbitmq',
      url: 'amqp://guest:wrong-password-7731@127.0.0.1:5672',
      exchange: 'x',
      routingKey: 'y',
    });
    await raiseInOrder(stack.api, s.community.id, 1);
    const failed = await waitFor('a failed attempt', async () =>
      (await attempts(s)).find((a) => a.status === 'FAILED'),
    );
    expect(failed.error).toBe('the broker at 127.0.0.1:5672 refused the credentials');
  });

  it("closes a paused endpoint's connection", async () => {
    const target = await rabbitTarget();
    stack.cleanups.push(target.remove);
    const relay = await brokerRelay({ host: '127.0.0.1', port: 5672 });
    stack.cleanups.push(relay.stop);
    const s = await endpoint({
      type: 'rabbitmq',
      url: `amqp://guest:guest@127.0.0.1:${relay.port}`,
      exchange: target.exchange,
      routingKey: target.routingKey,
    });
    const ids = await raiseInOrder(stack.api, s.community.id, 2);
    await succeeded(s, ids);
    // a stack.worker of another test file running at the same time may have sent some: any connection counts
    expect(relay.open()).toBeGreaterThan(0);
    const held = await brokerConnections(stack.worker);
    const paused = await call(stack.api.app, 'PATCH', `${hooks(s.community.id)}/${s.id}`, {
      token: s.token,
      body: { isActive: false },
    });
    expect(paused.status).toBe(200);
    await waitFor('the connections closed', () => relay.open() === 0);
    expect(stack.worker.context.get(BrokerTransports).openEndpoints()).not.toContain(s.id);
    // the worker's gauge went down by the connections it held to this endpoint (0 or 1)
    const heldHere = stack.worker.context.get(BrokerTransports).openEndpoints().length;
    expect(await brokerConnections(stack.worker)).toBeLessThanOrEqual(held);
    expect(await brokerConnections(stack.worker)).toBe(heldHere);
  });
});

/** The worker's webhook_broker_connections gauge, both brokers together (as Prometheus would scrape it). */
async function brokerConnections(worker: TestWorker): Promise<number> {
  const samples = parseExposition(await worker.context.get(MetricsRegistry).metrics());
  return ['rabbitmq', 'nats'].reduce(
    (sum, broker) => sum + valueOf(samples, 'webhook_broker_connections', { broker }),
    0,
  );
}

/** Every raised message arrived, none twice (an outage may not duplicate a publish the broker never got). */
function expectSignedOnceLoose(messages: ConsumedMessage[], ids: string[]) {
  const got = messages.map((m) => m.headers['webhook-id']);
  expect(new Set(got)).toEqual(new Set(ids));
  expect(got).toHaveLength(ids.length);
}
