import { SUBSCRIBABLE_EVENTS } from '../../src/modules/events/event-catalog';
import { useTestApp } from '../utils/app';
import { call } from '../utils/http';
import { addMember, createApiKey, createCommunity, login, memberWithToken } from '../utils/factories';

const PUBLIC_URL = 'https://93.184.215.14/hooks';
const base = (communityId: string) => `/api/communities/${communityId}/webhooks`;

describe('webhook endpoint management (docs/api.md#webhooks)', () => {
  const t = useTestApp();

  async function owner(plan: 'PRO' | 'ENTERPRISE' = 'PRO') {
    return memberWithToken(t.app, { plan, role: 'OWNER' });
  }

  async function createEndpoint(communityId: string, token: string, body: Record<string, unknown> = {}) {
    const res = await call(t.app, 'POST', base(communityId), {
      token,
      body: { url: PUBLIC_URL, events: ['tweet.created'], ...body },
    });
    expect(res.status).toBe(201);
    return res.body.data as { id: string; secret: string; [k: string]: unknown };
  }

  describe('access', () => {
    it('refuses a FREE plan with FEATURE_NOT_AVAILABLE naming webhooks', async () => {
      const { community, token } = await memberWithToken(t.app, { plan: 'FREE', role: 'OWNER' });
      const res = await call(t.app, 'GET', base(community.id), { token });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        success: false,
        code: 'FEATURE_NOT_AVAILABLE',
        featureKey: 'webhooks',
      });
    });

    it.each(['MEMBER', 'MODERATOR'] as const)(
      'refuses a %s (no WEBHOOKS_MANAGE) with 403 FORBIDDEN',
      async (role) => {
        const { community, token } = await memberWithToken(t.app, { plan: 'PRO', role });
        for (const [method, path] of [
          ['GET', base(community.id)],
          ['POST', base(community.id)],
        ] as const) {
          const res = await call(t.app, method, path, {
            token,
            body: method === 'POST' ? { url: PUBLIC_URL, events: ['tweet.created'] } : undefined,
          });
          expect(res.status).toBe(403);
          expect(res.body.code).toBe('FORBIDDEN');
        }
      },
    );

    it('lets an ADMIN manage webhooks', async () => {
      const { community, token } = await memberWithToken(t.app, { plan: 'PRO', role: 'ADMIN' });
      expect((await call(t.app, 'GET', base(community.id), { token })).status).toBe(200);
    });

    it('refuses an API key with 401 saying a login token is required', async () => {
      const { community, user } = await owner();
      const { key } = await createApiKey(t.app, community.id, user.id);
      const res = await call(t.app, 'GET', base(community.id), { apiKey: key });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expect(res.body.error).toMatch(/login token/);
    });

    it('refuses a request without credentials with 401', async () => {
      const { community } = await owner();
      expect((await call(t.app, 'GET', base(community.id))).status).toBe(401);
    });

    it('refuses a caller who is not a member of the community in the path', async () => {
      const { token } = await owner();
      const other = await createCommunity(t.app, { plan: 'PRO' });
      const res = await call(t.app, 'GET', base(other.id), { token });
      expect(res.status).toBe(403);
    });

    it("refuses a webhookId that is not a uuid with 400, and takes the community's slug for its id", async () => {
      const { community, token } = await owner();
      const res = await call(t.app, 'PATCH', `${base(community.id)}/not-a-uuid`, {
        token,
        body: { description: 'x' },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details).toEqual([expect.objectContaining({ field: 'webhookId' })]);
      const bySlug = await call(t.app, 'GET', base(community.slug), { token });
      expect(bySlug.status).toBe(200);
    });
  });

  describe('create', () => {
    it('answers 201 with the endpoint and its secret, once', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token, {
        events: ['tweet.created', 'member.joined'],
        description: 'CRM sync',
      });
      expect(created).toMatchObject({
        communityId: community.id,
        url: PUBLIC_URL,
        events: ['tweet.created', 'member.joined'],
        description: 'CRM sync',
        isActive: true,
        disabledAt: null,
      });
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    });

    it('stores the secret encrypted: the row holds neither the secret nor its key bytes', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token);
      const [row] = await t.prisma.webhookSecret.findMany({ where: { endpointId: created.id } });
      const stored = Buffer.concat([row.iv, row.ciphertext, row.authTag, Buffer.from(row.keyId)]);
      expect(stored.includes(Buffer.from(created.secret))).toBe(false);
      expect(stored.includes(Buffer.from(created.secret.slice(6), 'base64'))).toBe(false);
      expect(row.keyId).toMatch(/^k1:[0-9a-f]{8}$/);
      const raw = await t.prisma.$queryRaw<{ dump: string }[]>`
        SELECT row_to_json(s)::text AS dump FROM webhook_secrets s WHERE endpoint_id = ${created.id}::uuid`;
      expect(raw[0].dump).not.toContain(created.secret.slice(6));
    });

    it.each([
      ['http://93.184.215.14/hooks', /https/],
      ['https://93.184.215.14:8443/hooks', /port 443/],
      ['https://user:pw@93.184.215.14/hooks', /user name or password/],
      ['https://127.0.0.1/hooks', /non-public/],
      ['https://2130706433/hooks', /non-public/],
      ['https://0x7f000001/hooks', /non-public/],
      ['https://0177.0.0.1/hooks', /non-public/],
      ['https://127.1/hooks', /non-public/],
      ['https://10.0.0.1/hooks', /non-public/],
      ['https://169.254.169.254/latest/meta-data', /non-public/],
      ['https://100.64.0.1/', /non-public/],
      ['https://[::1]/', /non-public/],
      ['https://[::ffff:127.0.0.1]/', /non-public/],
      ['https://[fd00::1]/', /non-public/],
      ['https://localhost/hooks', /resolves to a non-public address/],
      ['not a url', /absolute URL/],
    ])('refuses %s with 400 naming url', async (url, reason) => {
      const { community, token } = await owner();
      const res = await call(t.app, 'POST', base(community.id), {
        token,
        body: { url, events: ['tweet.created'] },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.error).toMatch(reason);
      expect(res.body.details).toEqual([expect.objectContaining({ field: 'url' })]);
      expect(await t.prisma.webhookEndpoint.count({ where: { communityId: community.id } })).toBe(0);
    });

    it.each([
      [{ events: ['webhook.test'] }, /webhook\.test is sent only by the test route/],
      [{ events: ['tweet.exploded'] }, /must be one of/],
      [{ events: [] }, /events/],
      [{ events: ['tweet.created', 'tweet.created'] }, /unique/],
      [{ events: 'tweet.created' }, /events/],
      [{ events: undefined }, /events/],
      [{ url: undefined }, /url/],
      [{ description: 'a 501-character text'.padEnd(501, '.') }, /description/],
      [{ secret: 'whsec_mine' }, /secret is not a known field/],
    ])('refuses the body %j with 400', async (patch, reason) => {
      const { community, token } = await owner();
      const body = { url: PUBLIC_URL, events: ['tweet.created'], ...patch };
      const res = await call(t.app, 'POST', base(community.id), { token, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(reason);
    });

    it('accepts every subscribable event at once', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token, { events: [...SUBSCRIBABLE_EVENTS] });
      expect(created.events).toEqual([...SUBSCRIBABLE_EVENTS]);
    });
  });

  describe('list', () => {
    it("answers {items} with the community's endpoints only, never a secret", async () => {
      const { community, token, user } = await owner();
      const a = await createEndpoint(community.id, token);
      const b = await createEndpoint(community.id, token, { events: ['like.created'] });
      const other = await createCommunity(t.app, { plan: 'PRO' });
      await addMember(t.app, other.id, user.id, 'OWNER');
      await createEndpoint(other.id, token);
      const res = await call(t.app, 'GET', base(community.id), { token });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.data.items.map((e: { id: string }) => e.id).sort()).toEqual([a.id, b.id].sort());
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(a.secret);
      expect(text).not.toContain(b.secret);
      expect(text).not.toMatch(/whsec_|"secret"/);
    });

    it('gives each endpoint its attempts of the last 24 hourly buckets and the successful ones (its own only)', async () => {
      const { community, token, user } = await owner();
      const a = await createEndpoint(community.id, token);
      const quiet = await createEndpoint(community.id, token);
      const other = await createCommunity(t.app, { plan: 'PRO' });
      await addMember(t.app, other.id, user.id, 'OWNER');
      const elsewhere = await createEndpoint(other.id, token);
      const [{ hour }] = await t.prisma.$queryRaw<
        { hour: Date }[]
      >`SELECT date_trunc('hour', now(), 'UTC') AS hour`;
      // the figures route's hourly buckets (docs/api.md#webhooks, "Figures"), written by the worker
      const bucket = (
        communityId: string,
        endpointId: string,
        hoursAgo: number,
        succeeded: number,
        failed: number,
      ) => ({
        communityId,
        endpointId,
        bucketStart: new Date(hour.getTime() - hoursAgo * 3_600_000),
        attempts: succeeded + failed,
        succeeded,
        failed,
        latencyCounts: new Array<number>(12).fill(0),
      });
      await t.prisma.webhookAttemptStats.createMany({
        data: [
          bucket(community.id, a.id, 0, 1, 1),
          bucket(community.id, a.id, 23, 1, 0), // the oldest hour of the day
          bucket(community.id, a.id, 24, 0, 5), // older than the day: not counted
          bucket(other.id, elsewhere.id, 0, 0, 1),
        ],
      });
      const res = await call(t.app, 'GET', base(community.id), { token });
      const items = res.body.data.items as { id: string; attempts24h: number; succeeded24h: number }[];
      const byId = new Map(items.map((e) => [e.id, [e.attempts24h, e.succeeded24h]]));
      expect(byId.get(a.id)).toEqual([3, 2]);
      expect(byId.get(quiet.id)).toEqual([0, 0]);
      expect(byId.has(elsewhere.id)).toBe(false);
    });
  });

  describe('update', () => {
    it('updates url, events and description, re-validating the url', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token);
      const res = await call(t.app, 'PATCH', `${base(community.id)}/${created.id}`, {
        token,
        body: { url: 'https://93.184.215.15/v2', events: ['tweet.deleted'], description: 'v2' },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        url: 'https://93.184.215.15/v2',
        events: ['tweet.deleted'],
        description: 'v2',
      });
      expect(JSON.stringify(res.body)).not.toContain(created.secret);
      const bad = await call(t.app, 'PATCH', `${base(community.id)}/${created.id}`, {
        token,
        body: { url: 'https://192.168.0.10/hooks' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.details).toEqual([expect.objectContaining({ field: 'url' })]);
      const badEvents = await call(t.app, 'PATCH', `${base(community.id)}/${created.id}`, {
        token,
        body: { events: ['webhook.test'] },
      });
      expect(badEvents.status).toBe(400);
      const row = await t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
      expect(row.url).toBe('https://93.184.215.15/v2');
      expect(row.events).toEqual(['tweet.deleted']);
    });

    it('follows the state table: active → paused → active keeps secrets', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token);
      const url = `${base(community.id)}/${created.id}`;
      const paused = await call(t.app, 'PATCH', url, { token, body: { isActive: false } });
      expect(paused.status).toBe(200);
      expect(paused.body.data).toMatchObject({ isActive: false, disabledAt: null });
      expect(await t.prisma.webhookSecret.count({ where: { endpointId: created.id } })).toBe(1);
      const active = await call(t.app, 'PATCH', url, { token, body: { isActive: true } });
      expect(active.body.data).toMatchObject({ isActive: true, disabledAt: null });
    });

    it('re-enabling an auto-disabled endpoint clears disabledAt and the failure counter', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token);
      const since = new Date(Date.now() - 6 * 86_400_000);
      await t.prisma.webhookEndpoint.update({
        where: { id: created.id },
        data: { isActive: false, disabledAt: new Date(), consecutiveFailures: 12, failingSince: since },
      });
      const before = await call(t.app, 'GET', base(community.id), { token });
      expect(before.body.data.items[0]).toMatchObject({ isActive: false, consecutiveFailures: 12 });
      expect(before.body.data.items[0].disabledAt).not.toBeNull();
      const res = await call(t.app, 'PATCH', `${base(community.id)}/${created.id}`, {
        token,
        body: { isActive: true },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        isActive: true,
        disabledAt: null,
        consecutiveFailures: 0,
        failingSince: null,
      });
      const row = await t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
      expect(row).toMatchObject({
        isActive: true,
        disabledAt: null,
        consecutiveFailures: 0,
        failingSince: null,
      });
    });

    it('isActive=true on an endpoint that is already active leaves its failure streak alone', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token);
      await t.prisma.webhookEndpoint.update({ where: { id: created.id }, data: { consecutiveFailures: 3 } });
      const res = await call(t.app, 'PATCH', `${base(community.id)}/${created.id}`, {
        token,
        body: { isActive: true },
      });
      expect(res.body.data).toMatchObject({ isActive: true, consecutiveFailures: 3 });
    });

    it('refuses unknown fields and wrong types', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token);
      const url = `${base(community.id)}/${created.id}`;
      expect((await call(t.app, 'PATCH', url, { token, body: { isActive: 'yes' } })).status).toBe(400);
      expect((await call(t.app, 'PATCH', url, { token, body: { disabledAt: null } })).status).toBe(400);
      expect((await call(t.app, 'PATCH', url, { token, body: { events: [] } })).status).toBe(400);
    });
  });

  describe('delete', () => {
    it('removes the endpoint, its secrets and its delivery log; answers {id, deleted: true}', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token);
      await t.prisma.webhookDelivery.create({
        data: {
          communityId: community.id,
          endpointId: created.id,
          messageId: 'msg_x',
          eventType: 'tweet.created',
          attempt: 1,
        },
      });
      const res = await call(t.app, 'DELETE', `${base(community.id)}/${created.id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: { id: created.id, deleted: true } });
      expect(await t.prisma.webhookEndpoint.count({ where: { id: created.id } })).toBe(0);
      expect(await t.prisma.webhookSecret.count({ where: { endpointId: created.id } })).toBe(0);
      expect(await t.prisma.webhookDelivery.count({ where: { endpointId: created.id } })).toBe(0);
      const again = await call(t.app, 'DELETE', `${base(community.id)}/${created.id}`, { token });
      expect(again.status).toBe(404);
      expect(again.body.code).toBe('NOT_FOUND');
    });
  });

  describe('another community’s endpoint is not found', () => {
    it.each([
      ['PATCH', '', { description: 'x' }],
      ['DELETE', '', undefined],
      ['GET', '/deliveries', undefined],
      ['POST', '/rotate-secret', undefined],
      ['POST', '/test', undefined],
    ] as const)('%s %s → 404', async (method, suffix, body) => {
      // the same user owns both communities: the id exists, but not in the community of the path
      const { community, token, user } = await owner();
      const other = await createCommunity(t.app, { plan: 'PRO' });
      await addMember(t.app, other.id, user.id, 'OWNER');
      const foreign = await createEndpoint(other.id, token);
      const res = await call(t.app, method, `${base(community.id)}/${foreign.id}${suffix}`, { token, body });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
      expect(await t.prisma.webhookEndpoint.count({ where: { id: foreign.id } })).toBe(1);
      expect(await t.prisma.webhookSecret.count({ where: { endpointId: foreign.id } })).toBe(1);
    });
  });

  describe('rotate-secret', () => {
    it('takes a JSON content type with an empty body as no body (what many HTTP wrappers send)', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token);
      const res = await call(t.app, 'POST', `${base(community.id)}/${created.id}/rotate-secret`, {
        token,
        body: '',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.secret).toMatch(/^whsec_/);
    });

    it('answers 200 with a new secret; both secrets are live, the older with an expiry', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token);
      const res = await call(t.app, 'POST', `${base(community.id)}/${created.id}/rotate-secret`, { token });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ endpointId: created.id });
      expect(res.body.data.secret).toMatch(/^whsec_/);
      expect(res.body.data.secret).not.toBe(created.secret);
      const overlapMs =
        Date.parse(res.body.data.previousSecretsExpireAt) - Date.parse(res.body.data.rotatedAt);
      expect(overlapMs).toBe(t.config.webhookSecretOverlapMs);
      const rows = await t.prisma.webhookSecret.findMany({
        where: { endpointId: created.id },
        orderBy: { createdAt: 'asc' },
      });
      expect(rows).toHaveLength(2);
      expect(rows[0].expiresAt).not.toBeNull();
      expect(rows[1].expiresAt).toBeNull();
    });
  });

  describe('deliveries', () => {
    async function seedDeliveries(communityId: string, endpointId: string) {
      const start = Date.now() - 60_000;
      const statuses = ['SUCCESS', 'FAILED', 'FAILED', 'PENDING', 'SUCCESS'] as const;
      await t.prisma.webhookDelivery.createMany({
        data: statuses.map((status, i) => ({
          communityId,
          endpointId,
          messageId: i < 3 ? 'msg_retried' : `msg_${i}`,
          eventType: 'tweet.created',
          attempt: i < 3 ? i + 1 : 1,
          status,
          createdAt: new Date(start + i * 1000),
        })),
      });
    }

    it('pages newest first with {items, limit, offset, total, hasMore}, every attempt listed', async () => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token);
      await seedDeliveries(community.id, created.id);
      const url = `${base(community.id)}/${created.id}/deliveries`;
      const first = await call(t.app, 'GET', url, { token });
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ limit: 50, offset: 0, total: 5, hasMore: false });
      const items = first.body.data.items as { messageId: string; attempt: number; createdAt: string }[];
      expect(items.map((d) => d.createdAt)).toEqual([...items.map((d) => d.createdAt)].sort().reverse());
      expect(items.filter((d) => d.messageId === 'msg_retried').map((d) => d.attempt)).toEqual([3, 2, 1]);
      const page = await call(t.app, 'GET', url, { token, query: { limit: 2, offset: 2 } });
      expect(page.body.data).toMatchObject({ limit: 2, offset: 2, total: 5, hasMore: true });
      expect(
        page.body.data.items.map((d: { messageId: string; attempt: number }) => [d.messageId, d.attempt]),
      ).toEqual([
        ['msg_retried', 3],
        ['msg_retried', 2],
      ]);
      const last = await call(t.app, 'GET', url, { token, query: { limit: 2, offset: 4 } });
      expect(last.body.data).toMatchObject({ total: 5, hasMore: false });
      expect(last.body.data.items).toHaveLength(1);
      const failed = await call(t.app, 'GET', url, { token, query: { status: 'FAILED' } });
      expect(failed.body.data.total).toBe(2);
      expect(failed.body.data.items.every((d: { status: string }) => d.status === 'FAILED')).toBe(true);
      expect(JSON.stringify(first.body)).not.toContain(created.secret);
    });

    it.each([
      { limit: 0 },
      { limit: 101 },
      { limit: 'ten' },
      { offset: -1 },
      { status: 'DONE' },
      { page: 2 },
    ])('refuses %j with 400', async (query) => {
      const { community, token } = await owner();
      const created = await createEndpoint(community.id, token);
      const res = await call(t.app, 'GET', `${base(community.id)}/${created.id}/deliveries`, {
        token,
        query: query as unknown as Record<string, string>,
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    });

    it('answers 404 for an unknown endpoint', async () => {
      const { community, token } = await owner();
      const res = await call(t.app, 'GET', `${base(community.id)}/${crypto.randomUUID()}/deliveries`, {
        token,
      });
      expect(res.status).toBe(404);
    });
  });

  describe('GET /api/webhooks/event-types', () => {
    it('lists the subscribable catalog with descriptions for any logged-in user, webhook.test apart', async () => {
      const { token } = await memberWithToken(t.app, { plan: 'FREE', role: 'MEMBER' });
      const res = await call(t.app, 'GET', '/api/webhooks/event-types', { token });
      expect(res.status).toBe(200);
      expect(res.body.data.items.map((e: { name: string }) => e.name)).toEqual([...SUBSCRIBABLE_EVENTS]);
      expect(
        res.body.data.items.every(
          (e: { description: string; subscribable: boolean }) => e.description && e.subscribable,
        ),
      ).toBe(true);
      expect(res.body.data.testEvent).toMatchObject({ name: 'webhook.test', subscribable: false });
      expect((await call(t.app, 'GET', '/api/webhooks/event-types')).status).toBe(401);
    });

    it('works for a user who belongs to no community', async () => {
      const { user } = await memberWithToken(t.app, { plan: 'FREE' });
      await t.prisma.membership.deleteMany({ where: { userId: user.id } });
      const { accessToken } = await login(t.app, user.email);
      expect((await call(t.app, 'GET', '/api/webhooks/event-types', { token: accessToken })).status).toBe(
        200,
      );
    });
  });
});
