import { Webhook } from 'standardwebhooks';
import { EVENT_EXAMPLES } from '../../src/modules/events/event-catalog';
import { WebhookSecretsService } from '../../src/modules/webhooks/core/secrets/webhook-secrets.service';
import { createTestApp, TestApp } from '../utils/app';
import { call } from '../utils/http';
import { memberWithToken } from '../utils/factories';
import { Receiver, startReceiver } from '../utils/webhook-receiver';

const base = (communityId: string) => `/api/communities/${communityId}/webhooks`;

/** Test deliveries to a local receiver (WEBHOOK_ALLOW_INSECURE_TARGETS lifts the https/443/address rules). */
describe('POST .../webhooks/{id}/test and secret rotation, as a receiver sees them', () => {
  let t: TestApp;
  let ok: Receiver;
  let redirecting: Receiver;
  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_INSECURE_TARGETS: 'true', WEBHOOK_SECRET_OVERLAP: '1h' });
    ok = await startReceiver((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'),
    );
    redirecting = await startReceiver((_req, res) => res.writeHead(301, { location: ok.url }).end('moved'));
  });
  afterAll(async () => {
    await ok.close();
    await redirecting.close();
    await t.close();
  });

  async function endpointTo(url: string, extra: Record<string, unknown> = {}) {
    const { community, token } = await memberWithToken(t.app, { plan: 'PRO', role: 'OWNER' });
    const res = await call(t.app, 'POST', base(community.id), {
      token,
      body: { url, events: ['tweet.created'], ...extra },
    });
    expect(res.status).toBe(201);
    return {
      communityId: community.id,
      token,
      id: res.body.data.id as string,
      secret: res.body.data.secret as string,
    };
  }

  function requestsFor(receiver: Receiver, endpointId: string) {
    return receiver.received.filter((r) => JSON.parse(r.body).data.endpointId === endpointId);
  }

  it('delivers a signed webhook.test that standardwebhooks verifies, logged as SUCCESS', async () => {
    const ep = await endpointTo(ok.url);
    const res = await call(t.app, 'POST', `${base(ep.communityId)}/${ep.id}/test`, { token: ep.token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({
      endpointId: ep.id,
      eventType: 'webhook.test',
      attempt: 1,
      status: 'SUCCESS',
      responseStatus: 200,
      responseBody: 'thanks',
      error: null,
    });
    expect(res.body.data.messageId).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    const [req] = requestsFor(ok, ep.id);
    expect(req.headers['webhook-id']).toBe(res.body.data.messageId);
    const event = new Webhook(ep.secret).verify(req.body, req.headers) as Record<string, unknown>;
    expect(event).toMatchObject({
      id: res.body.data.messageId,
      type: 'webhook.test',
      communityId: ep.communityId,
      // the probe is about the endpoint under test (docs/product-decisions.md#event-subjects)
      subject: ep.id,
    });
    expect(new Date(event.timestamp as string).getTime() / 1000).toBeCloseTo(
      Number(req.headers['webhook-timestamp']),
      -1,
    );
    const log = await call(t.app, 'GET', `${base(ep.communityId)}/${ep.id}/deliveries`, { token: ep.token });
    expect(log.body.data.items).toEqual([res.body.data]);
    expect(JSON.stringify([res.body, log.body])).not.toContain(ep.secret);
  });

  it("sends the catalog's example of any subscribable event type, signed, logged and marked as a test", async () => {
    const ep = await endpointTo(ok.url, { events: ['tweet.created'] });
    const url = `${base(ep.communityId)}/${ep.id}/test`;
    const res = await call(t.app, 'POST', url, { token: ep.token, body: { eventType: 'member.joined' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ eventType: 'member.joined', status: 'SUCCESS', test: true });
    const req = ok.received.find((r) => r.headers['webhook-id'] === res.body.data.messageId)!;
    const event = new Webhook(ep.secret).verify(req.body, req.headers) as Record<string, unknown>;
    expect(event).toMatchObject({
      type: 'member.joined',
      communityId: ep.communityId,
      subject: EVENT_EXAMPLES['member.joined'].member.id,
      data: EVENT_EXAMPLES['member.joined'],
    });
    // in the real log, marked; it cannot be resent (the test route sends another)
    const log = await call(t.app, 'GET', `${base(ep.communityId)}/${ep.id}/deliveries`, { token: ep.token });
    expect(log.body.data.items[0]).toMatchObject({
      id: res.body.data.id,
      test: true,
      eventType: 'member.joined',
    });
    const resend = await call(
      t.app,
      'POST',
      `${url.replace(/\/test$/, '')}/deliveries/${res.body.data.id}/resend`,
      {
        token: ep.token,
      },
    );
    expect(resend.status).toBe(409);
    // webhook.test is a test too; a body of {} sends it
    const plain = await call(t.app, 'POST', url, { token: ep.token, body: {} });
    expect(plain.body.data).toMatchObject({ eventType: 'webhook.test', test: true });
  });

  it('refuses an eventType that is not a subscribable type, naming the field', async () => {
    const ep = await endpointTo(ok.url);
    for (const eventType of ['webhook.test', 'tweet.exploded', 7]) {
      const res = await call(t.app, 'POST', `${base(ep.communityId)}/${ep.id}/test`, {
        token: ep.token,
        body: { eventType },
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([expect.objectContaining({ field: 'eventType' })]);
    }
  });

  it('leaves the failure streak alone when an example fails, and recover does not send it again', async () => {
    const failing = await startReceiver((_req, res) => res.writeHead(500).end('no'));
    try {
      const ep = await endpointTo(failing.url);
      const res = await call(t.app, 'POST', `${base(ep.communityId)}/${ep.id}/test`, {
        token: ep.token,
        body: { eventType: 'tweet.created' },
      });
      expect(res.status).toBe(500);
      expect(res.body.data).toMatchObject({ status: 'FAILED', test: true });
      const endpoint = await t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } });
      expect(endpoint.consecutiveFailures).toBe(0);
      const recovered = await call(t.app, 'POST', `${base(ep.communityId)}/${ep.id}/recover`, {
        token: ep.token,
        body: { since: new Date(Date.now() - 60_000).toISOString() },
      });
      expect(recovered.status).toBe(202);
      expect(recovered.body.data.queued).toBe(0);
    } finally {
      await failing.close();
    }
  });

  it('ignores isActive and the events list', async () => {
    const ep = await endpointTo(ok.url, { events: ['member.joined'] });
    await call(t.app, 'PATCH', `${base(ep.communityId)}/${ep.id}`, {
      token: ep.token,
      body: { isActive: false },
    });
    const res = await call(t.app, 'POST', `${base(ep.communityId)}/${ep.id}/test`, { token: ep.token });
    expect(res.status).toBe(200);
    expect(requestsFor(ok, ep.id)).toHaveLength(1);
    const row = await t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } });
    expect(row).toMatchObject({ isActive: false, consecutiveFailures: 0 });
  });

  it('a 3xx is a failure, never followed: 500 WEBHOOK_TEST_FAILED with the logged attempt', async () => {
    const ep = await endpointTo(redirecting.url);
    const res = await call(t.app, 'POST', `${base(ep.communityId)}/${ep.id}/test`, { token: ep.token });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({
      success: false,
      code: 'WEBHOOK_TEST_FAILED',
      data: {
        status: 'FAILED',
        responseStatus: 301,
        responseBody: 'moved',
        error: 'redirect refused',
        attempt: 1,
      },
    });
    expect(res.body.error).toMatch(/redirect refused/);
    expect(requestsFor(ok, ep.id)).toHaveLength(0);
    const log = await call(t.app, 'GET', `${base(ep.communityId)}/${ep.id}/deliveries`, {
      token: ep.token,
      query: { status: 'FAILED' },
    });
    expect(log.body.data.items).toEqual([res.body.data]);
    expect(JSON.stringify(res.body)).not.toContain(ep.secret);
  });

  it('a target that refuses the connection is a 500 WEBHOOK_TEST_FAILED with the error logged', async () => {
    const gone = await startReceiver((_req, res) => res.end());
    await gone.close();
    const ep = await endpointTo(gone.url);
    const res = await call(t.app, 'POST', `${base(ep.communityId)}/${ep.id}/test`, { token: ep.token });
    expect(res.status).toBe(500);
    expect(res.body.data).toMatchObject({
      status: 'FAILED',
      responseStatus: null,
      error: 'connection refused',
    });
  });

  it('after a rotation signs with every live secret; an expired secret no longer verifies', async () => {
    const ep = await endpointTo(ok.url);
    const rotated = await call(t.app, 'POST', `${base(ep.communityId)}/${ep.id}/rotate-secret`, {
      token: ep.token,
    });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;

    await call(t.app, 'POST', `${base(ep.communityId)}/${ep.id}/test`, { token: ep.token });
    const during = requestsFor(ok, ep.id).at(-1)!;
    expect(during.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(fresh).verify(during.body, during.headers)).not.toThrow();
    expect(() => new Webhook(ep.secret).verify(during.body, during.headers)).not.toThrow();

    // the overlap window ends: move the old secret's expiry into the past instead of waiting
    const secrets = t.app.get(WebhookSecretsService);
    const overlapEnd = await t.prisma.webhookSecret.findFirstOrThrow({
      where: { endpointId: ep.id, expiresAt: { not: null } },
    });
    expect(
      await secrets.liveSecrets(ep.communityId, ep.id, new Date(overlapEnd.expiresAt!.getTime() + 1)),
    ).toEqual([fresh]);
    await t.prisma.webhookSecret.update({
      where: { id: overlapEnd.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });

    await call(t.app, 'POST', `${base(ep.communityId)}/${ep.id}/test`, { token: ep.token });
    const after = requestsFor(ok, ep.id).at(-1)!;
    expect(after.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook(fresh).verify(after.body, after.headers)).not.toThrow();
    expect(() => new Webhook(ep.secret).verify(after.body, after.headers)).toThrow(/No matching signature/);
  });

  it('keeps at most WEBHOOK_MAX_LIVE_SECRETS live: the oldest is retired at once', async () => {
    const ep = await endpointTo(ok.url);
    const secrets = t.app.get(WebhookSecretsService);
    const minted = [ep.secret];
    for (let i = 0; i < 3; i++) minted.push(await secrets.rotate(ep.communityId, ep.id));
    const live = await secrets.liveSecrets(ep.communityId, ep.id);
    expect(live).toEqual(minted.slice(-t.config.WEBHOOK_MAX_LIVE_SECRETS).reverse());
    expect(live).not.toContain(ep.secret);
  });
});
