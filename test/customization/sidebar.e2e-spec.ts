import { useTestApp } from '../utils/app';
import { CREDENTIAL_KINDS, credentialsOf, memberWithCredentials, memberWithToken } from '../utils/factories';
import { call } from '../utils/http';

describe('sidebar: GET/PUT /api/sdk/customization/sidebar (docs/product-decisions.md#7-resources)', () => {
  const t = useTestApp();

  const URL = '/api/sdk/customization/sidebar';
  const events = (communityId: string) =>
    t.prisma.outboxEvent.findMany({ where: { communityId, eventType: 'customization.updated' } });

  describe.each(CREDENTIAL_KINDS)('with %s', (kind) => {
    it('starts empty, is replaced whole, and records customization.updated', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'PRO' });
      const auth = credentialsOf(owner, kind);
      const empty = await call(t.app, 'GET', URL, auth);
      expect(empty.status).toBe(200);
      expect(empty.body.data).toEqual({ items: [], updatedAt: null });

      const items = [
        { label: 'Home', url: '/', icon: 'home' },
        { label: 'Docs', url: 'https://docs.example.com/start' },
      ];
      const put = await call(t.app, 'PUT', URL, { ...auth, body: { items } });
      expect(put.status).toBe(200);
      expect(put.body.data.items).toEqual(items);
      expect(Date.parse(put.body.data.updatedAt)).not.toBeNaN();

      const replaced = await call(t.app, 'PUT', URL, {
        ...auth,
        body: { items: [{ label: 'Only', url: '/only' }] },
      });
      expect(replaced.body.data.items).toEqual([{ label: 'Only', url: '/only' }]);
      const read = await call(t.app, 'GET', URL, auth);
      expect(read.body.data).toEqual(replaced.body.data);

      const recorded = await events(owner.community.id);
      expect(recorded).toHaveLength(2);
      expect(recorded.map((e) => e.payload)).toContainEqual(
        expect.objectContaining({ data: { kind: 'sidebar', sidebar: replaced.body.data } }),
      );
    });

    it('accepts 50 items and an empty list', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'PRO' });
      const auth = credentialsOf(owner, kind);
      const fifty = Array.from({ length: 50 }, (_, i) => ({ label: `L${i}`, url: `/p/${i}` }));
      expect(
        (await call(t.app, 'PUT', URL, { ...auth, body: { items: fifty } })).body.data.items,
      ).toHaveLength(50);
      expect((await call(t.app, 'PUT', URL, { ...auth, body: { items: [] } })).body.data.items).toEqual([]);
    });

    it.each([
      ['51 items', { items: Array.from({ length: 51 }, () => ({ label: 'x', url: '/' })) }, 'items'],
      ['no items field', {}, 'items'],
      ['an empty label', { items: [{ label: '', url: '/' }] }, 'items.0.label'],
      ['a 61-character label', { items: [{ label: 'l'.repeat(61), url: '/' }] }, 'items.0.label'],
      ['a javascript: URL', { items: [{ label: 'x', url: 'javascript:alert(1)' }] }, 'items.0.url'],
      ['a protocol-relative URL', { items: [{ label: 'x', url: '//evil.example' }] }, 'items.0.url'],
      ['a bare word URL', { items: [{ label: 'x', url: 'home' }] }, 'items.0.url'],
      ['a 61-character icon', { items: [{ label: 'x', url: '/', icon: 'i'.repeat(61) }] }, 'items.0.icon'],
      ['a wrongly typed label', { items: [{ label: 7, url: '/' }] }, 'items.0.label'],
      ['an unknown item field', { items: [{ label: 'x', url: '/', color: '#fff' }] }, 'items.0.color'],
      ['an unknown field', { items: [], theme: 'dark' }, 'theme'],
    ])('refuses %s with 400 naming the field, and records nothing', async (_label, body, field) => {
      const owner = await memberWithCredentials(t.app, { plan: 'PRO' });
      const res = await call(t.app, 'PUT', URL, { ...credentialsOf(owner, kind), body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await events(owner.community.id)).toHaveLength(0);
    });

    it('is refused on FREE with FEATURE_NOT_AVAILABLE customization', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'FREE' });
      const res = await call(t.app, 'PUT', URL, { ...credentialsOf(owner, kind), body: { items: [] } });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FEATURE_NOT_AVAILABLE', featureKey: 'customization' });
    });

    it("keeps communities apart: B's sidebar is B's alone", async () => {
      const a = await memberWithCredentials(t.app, { plan: 'PRO' });
      const b = await memberWithCredentials(t.app, { plan: 'PRO' });
      await call(t.app, 'PUT', URL, {
        ...credentialsOf(a, kind),
        body: { items: [{ label: 'A', url: '/a' }] },
      });
      const readB = await call(t.app, 'GET', URL, credentialsOf(b, kind));
      expect(readB.body.data.items).toEqual([]);
    });
  });

  it('any member reads it; only CUSTOMIZATION_MANAGE replaces it', async () => {
    const owner = await memberWithToken(t.app, { plan: 'PRO' });
    const member = await memberWithToken(t.app, { communityId: owner.community.id, role: 'MEMBER' });
    await call(t.app, 'PUT', URL, { token: owner.token, body: { items: [{ label: 'A', url: '/a' }] } });
    const read = await call(t.app, 'GET', URL, { token: member.token });
    expect(read.body.data.items).toEqual([{ label: 'A', url: '/a' }]);
    const put = await call(t.app, 'PUT', URL, { token: member.token, body: { items: [] } });
    expect(put.status).toBe(403);
    expect(put.body.code).toBe('FORBIDDEN');
  });
});
