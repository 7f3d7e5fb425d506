import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { EVENT_TYPES, SUBSCRIBABLE_EVENTS } from '../../src/modules/events/event-catalog';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { verifyWebhook } from '../utils/webhook-receiver';
import { createEndpoint } from '../utils/worker';
import { Delivered, ownerContext, raiseEvents, waitForDeliveries } from './event-triggers';
import { useDeliveryStack } from '../utils/delivery-stack';

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
  const stack = useDeliveryStack();

  it('raises each event and variant through its route; every body matches its schema', async () => {
    const { community, token } = await memberWithToken(stack.api.app, { plan: 'ENTERPRISE', role: 'OWNER' });
    const catalog = await call(stack.api.app, 'GET', '/api/webhooks/event-types', { token });
    expect(catalog.status).toBe(200);
    const published = [
      ...(catalog.body.data.items as PublishedType[]),
      catalog.body.data.testEvent as PublishedType,
    ];
    const ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(ajv);
    const validators = new Map(published.map((t) => [t.name, ajv.compile(t.schema)]));
    expect([...validators.keys()]).toEqual(EVENT_TYPES);

    const path = `/${unique('schemas')}`;
    const endpoint = await createEndpoint(stack.api, community.id, {
      url: stack.receiver.url + path,
      events: [...SUBSCRIBABLE_EVENTS],
    });
    const ctx = ownerContext(stack.api.app, token, community.id, endpoint.id);

    // every variant of every event, the test route's webhook.test included
    const raised = await raiseEvents(ctx, EVENT_TYPES, (all) => all);

    const received = () => stack.receiver.at(path).map((r) => verifyWebhook(r, endpoint.secret) as Delivered);
    const bodies = await waitForDeliveries(raised, received);
    expect(new Set(bodies.map((b) => b.type))).toEqual(new Set(EVENT_TYPES));
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
    const doc = (await call(stack.api.app, 'GET', '/api/docs-json')).body as {
      components: { schemas: Record<string, { properties: { type: object }; example: object }> };
      'x-webhooks': Record<string, { post: { requestBody: object } }>;
    };
    for (const type of EVENT_TYPES) {
      const schema = doc.components.schemas[`WebhookEvent.${type}`];
      expect(schema.properties.type).toEqual({ type: 'string', enum: [type] });
      expect(schema.example).toMatchObject({ type });
      expect(JSON.stringify(doc['x-webhooks'][type].post.requestBody)).toContain(
        `#/components/schemas/WebhookEvent.${type}`,
      );
    }
  });
});
