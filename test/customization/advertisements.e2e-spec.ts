import { useTestApp } from '../utils/app';
import { CREDENTIAL_KINDS, credentialsOf, memberWithCredentials, memberWithToken } from '../utils/factories';
import { call } from '../utils/http';

const HOUR = 3_600_000;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
const IN_AN_HOUR = at(HOUR);

function ad(overrides: Record<string, unknown> = {}) {
  return {
    title: 'Spring sale',
    imageUrl: 'https://cdn.example.com/a.png',
    targetUrl: 'https://shop.example.com/sale',
    startsAt: at(-HOUR),
    endsAt: at(HOUR),
    ...overrides,
  };
}

describe('advertisements (docs/product-decisions.md#7-resources)', () => {
  const t = useTestApp();

  const BASE = '/api/sdk/customization/advertisements';
  const events = (communityId: string) =>
    t.prisma.outboxEvent.findMany({
      where: { communityId, eventType: 'customization.updated' },
      orderBy: { id: 'asc' },
    });

  describe.each(CREDENTIAL_KINDS)('with %s', (kind) => {
    it('creates, updates and deletes, recording customization.updated for each', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'PRO' });
      const auth = credentialsOf(owner, kind);
      const created = await call(t.app, 'POST', BASE, { ...auth, body: ad() });
      expect(created.status).toBe(201);
      const item = created.body.data;
      expect(item).toMatchObject({
        title: 'Spring sale',
        imageUrl: 'https://cdn.example.com/a.png',
        targetUrl: 'https://shop.example.com/sale',
        placement: 'sidebar',
        isActive: true,
      });
      expect(item.id).toMatch(/^[0-9a-f-]{36}$/);

      const updated = await call(t.app, 'PATCH', `${BASE}/${item.id}`, {
        ...auth,
        body: { title: 'Summer sale', isActive: false },
      });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toMatchObject({ id: item.id, title: 'Summer sale', isActive: false });
      expect(updated.body.data.startsAt).toBe(item.startsAt);

      const deleted = await call(t.app, 'DELETE', `${BASE}/${item.id}`, auth);
      expect(deleted.status).toBe(200);
      expect(deleted.body.data).toEqual({ id: item.id, deleted: true });
      expect((await call(t.app, 'DELETE', `${BASE}/${item.id}`, auth)).status).toBe(404);

      const recorded = (await events(owner.community.id)).map(
        (e) => e.payload as { data: Record<string, unknown> },
      );
      expect(recorded.map((p) => p.data.action)).toEqual(['created', 'updated', 'deleted']);
      expect(recorded[1].data).toMatchObject({
        kind: 'advertisement',
        advertisement: { title: 'Summer sale' },
      });
    });

    it('lists only active advertisements, newest start first, as a page', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'PRO' });
      const auth = credentialsOf(owner, kind);
      const make = async (body: Record<string, unknown>) =>
        (await call(t.app, 'POST', BASE, { ...auth, body: ad(body) })).body.data.id as string;
      const older = await make({ startsAt: at(-3 * HOUR) });
      const newer = await make({ startsAt: at(-HOUR), placement: 'banner' });
      await make({ startsAt: at(HOUR), endsAt: at(2 * HOUR) }); // not started
      await make({ startsAt: at(-3 * HOUR), endsAt: at(-HOUR) }); // over
      await make({ isActive: false }); // switched off

      const res = await call(t.app, 'GET', `${BASE}/active`, auth);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ page: 1, limit: 20, total: 2, hasMore: false });
      expect(res.body.data.items.map((a: { id: string }) => a.id)).toEqual([newer, older]);

      const banner = await call(t.app, 'GET', `${BASE}/active`, { ...auth, query: { placement: 'banner' } });
      expect(banner.body.data.items.map((a: { id: string }) => a.id)).toEqual([newer]);
      const paged = await call(t.app, 'GET', `${BASE}/active`, { ...auth, query: { limit: 1 } });
      expect(paged.body.data).toMatchObject({ total: 2, hasMore: true });

      const all = await call(t.app, 'GET', BASE, auth);
      expect(all.body.data.total).toBe(5);
    });

    it.each([
      ['page', '0'],
      ['limit', '101'],
      ['limit', '-1'],
      ['page', 'abc'],
    ])('refuses %s=%s on the active list', async (field, value) => {
      const owner = await memberWithCredentials(t.app, { plan: 'PRO' });
      const res = await call(t.app, 'GET', `${BASE}/active`, {
        ...credentialsOf(owner, kind),
        query: { [field]: value },
      });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it.each([
      ['startsAt after endsAt', ad({ startsAt: at(HOUR), endsAt: at(-HOUR) }), 'endsAt'],
      // one instant for both: two calls of at() may fall in different milliseconds
      ['startsAt equal to endsAt', ad({ startsAt: IN_AN_HOUR, endsAt: IN_AN_HOUR }), 'endsAt'],
      ['a non-http image URL', ad({ imageUrl: 'javascript:alert(1)' }), 'imageUrl'],
      ['a relative target URL', ad({ targetUrl: '/sale' }), 'targetUrl'],
      ['a bad date', ad({ startsAt: 'tomorrow' }), 'startsAt'],
      ['an over-long title', ad({ title: 't'.repeat(201) }), 'title'],
      ['a wrongly typed isActive', ad({ isActive: 'yes' }), 'isActive'],
      ['a bad placement', ad({ placement: 'Top Banner' }), 'placement'],
      ['an unknown field', ad({ priority: 1 }), 'priority'],
      ['a missing title', { ...ad(), title: undefined }, 'title'],
    ])('refuses %s with 400 naming the field, and records nothing', async (_label, body, field) => {
      const owner = await memberWithCredentials(t.app, { plan: 'PRO' });
      const res = await call(t.app, 'POST', BASE, { ...credentialsOf(owner, kind), body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await events(owner.community.id)).toHaveLength(0);
    });

    it('checks the window a PATCH leaves behind', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'PRO' });
      const auth = credentialsOf(owner, kind);
      const id = (await call(t.app, 'POST', BASE, { ...auth, body: ad() })).body.data.id;
      const res = await call(t.app, 'PATCH', `${BASE}/${id}`, { ...auth, body: { startsAt: at(2 * HOUR) } });
      expect(res.status).toBe(400);
      expect(res.body.details[0].field).toBe('endsAt');
      expect(await events(owner.community.id)).toHaveLength(1);
    });

    it("isolates communities: B cannot see, change or delete A's advertisement (404)", async () => {
      const a = await memberWithCredentials(t.app, { plan: 'PRO' });
      const b = await memberWithCredentials(t.app, { plan: 'PRO' });
      const id = (await call(t.app, 'POST', BASE, { ...credentialsOf(a, kind), body: ad() })).body.data.id;
      const authB = credentialsOf(b, kind);
      expect((await call(t.app, 'GET', `${BASE}/active`, authB)).body.data.total).toBe(0);
      const patch = await call(t.app, 'PATCH', `${BASE}/${id}`, { ...authB, body: { title: 'Mine' } });
      expect(patch.status).toBe(404);
      expect(patch.body.code).toBe('NOT_FOUND');
      expect((await call(t.app, 'DELETE', `${BASE}/${id}`, authB)).status).toBe(404);
      expect((await t.prisma.advertisement.findUniqueOrThrow({ where: { id } })).title).toBe('Spring sale');
      expect(await events(b.community.id)).toHaveLength(0);
    });

    it('is refused on FREE with FEATURE_NOT_AVAILABLE advertisements', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'FREE' });
      const res = await call(t.app, 'GET', `${BASE}/active`, credentialsOf(owner, kind));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FEATURE_NOT_AVAILABLE', featureKey: 'advertisements' });
    });
  });

  it('any member reads active ones; only CUSTOMIZATION_MANAGE changes them', async () => {
    const owner = await memberWithToken(t.app, { plan: 'PRO' });
    const member = await memberWithToken(t.app, { communityId: owner.community.id, role: 'MEMBER' });
    const id = (await call(t.app, 'POST', BASE, { token: owner.token, body: ad() })).body.data.id;
    const active = await call(t.app, 'GET', `${BASE}/active`, { token: member.token });
    expect(active.body.data.items.map((a: { id: string }) => a.id)).toEqual([id]);
    expect((await call(t.app, 'POST', BASE, { token: member.token, body: ad() })).status).toBe(403);
    expect(
      (await call(t.app, 'PATCH', `${BASE}/${id}`, { token: member.token, body: { title: 'x' } })).status,
    ).toBe(403);
    expect((await call(t.app, 'DELETE', `${BASE}/${id}`, { token: member.token })).status).toBe(403);
  });
});
