import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { SUBSCRIBABLE_EVENTS, TEST_EVENT } from '../../src/modules/events/event-catalog';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { Receiver, startReceiver, verifyWebhook } from '../utils/webhook-receiver';
import { createEndpoint, DELIVERY_TEST_ENV, startTestWorker, TestWorker, waitFor } from '../utils/worker';

interface Delivered {
  id: string;
  type: string;
}

interface PublishedType {
  name: string;
  schema: object;
  example: { type: string };
}

/**
 * The schemas GET /api/webhooks/event-types publishes describe what receivers really get: every
 * variant of every event is raised through its real route, delivered, verified and validated
 * against the published schema (which forbids unknown fields and requires every field).
 */
describe('every delivered event body validates against its published schema', () => {
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

  it('raises each event and variant through its route; every body matches its schema', async () => {
    const { community, token } = await memberWithToken(api.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    const catalog = await call(api.app, 'GET', '/api/webhooks/event-types', { token });
    expect(catalog.status).toBe(200);
    const published = [
      ...(catalog.body.data.items as PublishedType[]),
      catalog.body.data.testEvent as PublishedType,
    ];
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(ajv);
    const validators = new Map(published.map((t) => [t.name, ajv.compile(t.schema)]));
    expect([...validators.keys()].sort()).toEqual([...SUBSCRIBABLE_EVENTS, TEST_EVENT].sort());

    const path = `/${unique('schemas')}`;
    const endpoint = await createEndpoint(api, community.id, {
      url: receiver.url + path,
      events: [...SUBSCRIBABLE_EVENTS],
    });
    const send = async (method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: object) => {
      const res = await call(api.app, method, url, { token, body });
      expect([200, 201]).toContain(res.status);
      return res.body.data as { id: string };
    };

    await send('PATCH', '/api/sdk/community/settings', { description: 'with schemas' });
    await send('PATCH', '/api/sdk/community/settings', { customDomain: `${unique('d')}.example.test` });
    await send('PATCH', '/api/sdk/community/branding', { primaryColor: '#112233' });
    const tweet = await send('POST', '/api/sdk/tweets', { content: 'first' });
    await send('PATCH', `/api/sdk/tweets/${tweet.id}`, { content: 'first, edited' });
    await send('POST', `/api/sdk/tweets/${tweet.id}/comments`, { content: 'on a tweet' });
    await send('POST', `/api/sdk/tweets/${tweet.id}/like`, {});
    const task = await send('POST', '/api/sdk/tasks', { title: 'a task', dueAt: '2030-01-01T00:00:00.000Z' });
    await send('POST', `/api/sdk/tasks/${task.id}/comments`, { content: 'on a task' });
    await send('POST', `/api/sdk/tasks/${task.id}/like`, {});
    await send('DELETE', `/api/sdk/tweets/${tweet.id}`);
    const member = await send('POST', '/api/sdk/members', { email: `${unique('one')}@example.test` });
    await send('PATCH', `/api/sdk/members/${member.id}/role`, { role: 'MODERATOR' });
    await send('POST', '/api/sdk/members/bulk', {
      members: [
        { email: `${unique('bulk')}@example.test`, name: 'Bulk' },
        { email: `${unique('bulk')}@example.test`, role: 'ADMIN' },
      ],
    });
    await send('PUT', '/api/sdk/customization/sidebar', {
      items: [
        { label: 'Home', url: '/home', icon: 'house' },
        { label: 'Docs', url: 'https://docs.example.com' },
      ],
    });
    const ad = await send('POST', '/api/sdk/customization/advertisements', {
      title: 'Ad',
      imageUrl: 'https://img.example.com/a.png',
      targetUrl: 'https://example.com',
      startsAt: '2026-01-01T00:00:00.000Z',
      endsAt: '2027-01-01T00:00:00.000Z',
    });
    await send('PATCH', `/api/sdk/customization/advertisements/${ad.id}`, { title: 'Ad, renamed' });
    await send('DELETE', `/api/sdk/customization/advertisements/${ad.id}`);
    await send('POST', '/api/embed/sessions', { allowedOrigin: 'https://blog.example.com', userRef: 'u-1' });
    await send('POST', '/api/embed/sessions', {});
    await send('POST', `/api/communities/${community.id}/webhooks/${endpoint.id}/test`);

    // 2 settings + 1 branding, 3 tweet, 2 comments, 2 likes, 2 + 2 member, 1 sidebar + 3 ads, 2 embed, 1 test
    const EXPECTED = 21;
    const bodies = await waitFor(`${EXPECTED} deliveries`, () => {
      const delivered = receiver.at(path).map((r) => verifyWebhook(r, endpoint.secret) as Delivered);
      return delivered.length >= EXPECTED && delivered;
    });
    expect(new Set(bodies.map((b) => b.type))).toEqual(new Set([...SUBSCRIBABLE_EVENTS, TEST_EVENT]));
    const invalid = bodies.flatMap((body) => {
      const validate = validators.get(body.type)!;
      return validate(body as unknown) ? [] : [{ type: body.type, errors: validate.errors, body }];
    });
    expect(invalid).toEqual([]);
    // the schemas are not vacuous: an unknown field in data is refused
    const tweetBody = bodies.find((b) => b.type === 'tweet.created') as Delivered & { data: object };
    expect(validators.get('tweet.created')!({ ...tweetBody, data: { ...tweetBody.data, extra: 1 } })).toBe(
      false,
    );
  });

  it('the OpenAPI document lists every event body under components and x-webhooks', async () => {
    const doc = (await call(api.app, 'GET', '/api/docs-json')).body as {
      components: { schemas: Record<string, { properties: { type: object }; example: object }> };
      'x-webhooks': Record<string, { post: { requestBody: object } }>;
    };
    for (const type of [...SUBSCRIBABLE_EVENTS, TEST_EVENT]) {
      const schema = doc.components.schemas[`WebhookEvent.${type}`];
      expect(schema.properties.type).toEqual({ type: 'string', enum: [type] });
      expect(schema.example).toMatchObject({ type });
      expect(JSON.stringify(doc['x-webhooks'][type].post.requestBody)).toContain(
        `#/components/schemas/WebhookEvent.${type}`,
      );
    }
  });
});
