import { PrismaService } from '../../src/prisma/prisma.service';
import { useTestApp } from '../utils/app';
import { call } from '../utils/http';
import { CREDENTIAL_KINDS, memberCaller, outboxOf, unique } from '../utils/factories';

const t = useTestApp();

const domain = () => `${unique('d')}.example.com`;

describe.each(CREDENTIAL_KINDS)('community with %s credentials', (kind) => {
  it('answers the community (the shape of docs/api.md#community-and-content) to any member', async () => {
    const owner = await memberCaller(t.app, kind);
    const member = await memberCaller(t.app, kind, { role: 'MEMBER', communityId: owner.communityId });
    const res = await call(t.app, 'GET', '/api/sdk/community', { ...member.auth });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: owner.communityId,
      slug: expect.any(String),
      name: expect.any(String),
      plan: 'FREE',
      customDomain: null,
      customDomainPending: null,
      createdAt: expect.any(String),
      description: '',
      visibility: 'PUBLIC',
      allowMemberPosts: true,
      branding: { logoUrl: null, faviconUrl: null, primaryColor: null, accentColor: null },
    });
    const settings = await call(t.app, 'GET', '/api/sdk/community/settings', { ...member.auth });
    expect(settings.status).toBe(200);
    expect(settings.body.data).toEqual({
      name: res.body.data.name,
      description: '',
      visibility: 'PUBLIC',
      allowMemberPosts: true,
      customDomain: null,
      customDomainPending: null,
      portalAllowedOrigins: [],
    });
  });

  it('patches settings (only the fields sent) and writes community.updated', async () => {
    const admin = await memberCaller(t.app, kind, { role: 'ADMIN' });
    const res = await call(t.app, 'PATCH', '/api/sdk/community/settings', {
      ...admin.auth,
      body: { name: 'Renamed', visibility: 'PRIVATE', allowMemberPosts: false },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      name: 'Renamed',
      description: '',
      visibility: 'PRIVATE',
      allowMemberPosts: false,
      customDomain: null,
      customDomainPending: null,
      portalAllowedOrigins: [],
    });
    const events = await outboxOf(t.app, admin.communityId, 'community.updated');
    expect(events).toHaveLength(1);
    expect(events[0].payload).toMatchObject({
      type: 'community.updated',
      communityId: admin.communityId,
      data: {
        community: { id: admin.communityId, name: 'Renamed', visibility: 'PRIVATE' },
        changed: ['name', 'visibility', 'allowMemberPosts'],
      },
    });
    const same = await call(t.app, 'PATCH', '/api/sdk/community/settings', {
      ...admin.auth,
      body: { name: 'Renamed' },
    });
    expect(same.status).toBe(200);
    expect(await outboxOf(t.app, admin.communityId, 'community.updated')).toHaveLength(1);
  });

  it.each([
    [{ visibility: 'SECRET' }, 'visibility'],
    [{ allowMemberPosts: 'yes' }, 'allowMemberPosts'],
    [{ name: '' }, 'name'],
    [{ name: 'n'.repeat(101) }, 'name'],
    [{ description: 'd'.repeat(2001) }, 'description'],
    [{ customDomain: 'not a host' }, 'customDomain'],
    [{ customDomain: 'localhost' }, 'customDomain'],
    [{ customDomain: '10.0.0.1' }, 'customDomain'],
    [{ color: 'red' }, 'color'],
    [{}, 'body'],
  ])('refuses settings %j with 400 naming the field, writing no event', async (body, field) => {
    const owner = await memberCaller(t.app, kind, { plan: 'ENTERPRISE' });
    const res = await call(t.app, 'PATCH', '/api/sdk/community/settings', { ...owner.auth, body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await outboxOf(t.app, owner.communityId, 'community.updated')).toHaveLength(0);
  });

  it('refuses a MEMBER or MODERATOR patching settings or branding (403)', async () => {
    for (const role of ['MEMBER', 'MODERATOR'] as const) {
      const caller = await memberCaller(t.app, kind, { role });
      const settings = await call(t.app, 'PATCH', '/api/sdk/community/settings', {
        ...caller.auth,
        body: { name: 'Mine now' },
      });
      expect(settings.status).toBe(403);
      expect(settings.body.code).toBe('FORBIDDEN');
      const branding = await call(t.app, 'PATCH', '/api/sdk/community/branding', {
        ...caller.auth,
        body: { primaryColor: '#000000' },
      });
      expect(branding.status).toBe(403);
      expect(await outboxOf(t.app, caller.communityId, 'community.updated')).toHaveLength(0);
    }
  });

  it.each(['FREE', 'PRO'] as const)(
    'refuses a custom domain on a %s community with FEATURE_NOT_AVAILABLE, but lets null through',
    async (plan) => {
      const owner = await memberCaller(t.app, kind, { plan });
      const res = await call(t.app, 'PATCH', '/api/sdk/community/settings', {
        ...owner.auth,
        body: { customDomain: domain() },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FEATURE_NOT_AVAILABLE', featureKey: 'custom_domain' });
      const removal = await call(t.app, 'PATCH', '/api/sdk/community/settings', {
        ...owner.auth,
        body: { customDomain: null },
      });
      expect(removal.status).toBe(200);
      expect(await outboxOf(t.app, owner.communityId, 'community.updated')).toHaveLength(0);
    },
  );

  it('records a requested custom domain as pending (lower-cased), refuses a taken one, and removes it on ENTERPRISE', async () => {
    // Verification, and the Host resolving only afterwards, are covered in custom-domain.e2e-spec.ts.
    const a = await memberCaller(t.app, kind, { plan: 'ENTERPRISE' });
    const b = await memberCaller(t.app, kind, { plan: 'ENTERPRISE' });
    const host = domain();
    const set = await call(t.app, 'PATCH', '/api/sdk/community/settings', {
      ...a.auth,
      body: { customDomain: host.toUpperCase() },
    });
    expect(set.status).toBe(200);
    expect(set.body.data.customDomain).toBeNull();
    expect(set.body.data.customDomainPending).toMatchObject({ domain: host });

    const active = domain();
    await t.app.get(PrismaService).community.update({
      where: { id: a.communityId },
      data: { customDomain: active },
    });
    const taken = await call(t.app, 'PATCH', '/api/sdk/community/settings', {
      ...b.auth,
      body: { customDomain: active },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('CONFLICT');
    expect(await outboxOf(t.app, b.communityId, 'community.updated')).toHaveLength(0);

    const removed = await call(t.app, 'PATCH', '/api/sdk/community/settings', {
      ...a.auth,
      body: { customDomain: null },
    });
    expect(removed.body.data).toMatchObject({ customDomain: null, customDomainPending: null });
    const events = await outboxOf(t.app, a.communityId, 'community.updated');
    expect(events.map((e) => (e.payload as { data: { changed: string[] } }).data.changed)).toEqual([
      ['customDomainPending'],
      ['customDomain', 'customDomainPending'],
    ]);
  });

  it('patches branding, answers the branding, clears with null, and writes community.updated', async () => {
    const owner = await memberCaller(t.app, kind);
    const res = await call(t.app, 'PATCH', '/api/sdk/community/branding', {
      ...owner.auth,
      body: {
        logoUrl: 'https://cdn.example.com/logo.png',
        faviconUrl: 'http://cdn.example.com/favicon.ico',
        primaryColor: '#1A2B3C',
        accentColor: '#ffcc00',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      logoUrl: 'https://cdn.example.com/logo.png',
      faviconUrl: 'http://cdn.example.com/favicon.ico',
      primaryColor: '#1A2B3C',
      accentColor: '#ffcc00',
    });
    const cleared = await call(t.app, 'PATCH', '/api/sdk/community/branding', {
      ...owner.auth,
      body: { logoUrl: null },
    });
    expect(cleared.body.data).toMatchObject({ logoUrl: null, primaryColor: '#1A2B3C' });
    const events = await outboxOf(t.app, owner.communityId, 'community.updated');
    expect(events).toHaveLength(2);
    expect(events[0].payload).toMatchObject({
      communityId: owner.communityId,
      data: { community: { branding: { primaryColor: '#1A2B3C' } } },
    });
    const community = await call(t.app, 'GET', '/api/sdk/community', { ...owner.auth });
    expect(community.body.data.branding).toEqual(cleared.body.data);
  });

  it.each([
    [{ primaryColor: 'red' }, 'primaryColor'],
    [{ primaryColor: '#12345' }, 'primaryColor'],
    [{ accentColor: '#GGGGGG' }, 'accentColor'],
    [{ accentColor: 123456 }, 'accentColor'],
    [{ logoUrl: 'ftp://example.com/logo.png' }, 'logoUrl'],
    [{ logoUrl: 'javascript:alert(1)' }, 'logoUrl'],
    [{ faviconUrl: 'not a url' }, 'faviconUrl'],
    [{ faviconUrl: `https://example.com/${'a'.repeat(2048)}` }, 'faviconUrl'],
    [{ bannerUrl: 'https://example.com/b.png' }, 'bannerUrl'],
  ])('refuses branding %j with 400 naming the field, writing no event', async (body, field) => {
    const owner = await memberCaller(t.app, kind);
    const res = await call(t.app, 'PATCH', '/api/sdk/community/branding', { ...owner.auth, body });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await outboxOf(t.app, owner.communityId, 'community.updated')).toHaveLength(0);
  });

  it("isolates communities: B's patch never touches A", async () => {
    const a = await memberCaller(t.app, kind);
    const b = await memberCaller(t.app, kind);
    await call(t.app, 'PATCH', '/api/sdk/community/settings', { ...b.auth, body: { name: 'B renamed' } });
    const aNow = await t.app.get(PrismaService).community.findUniqueOrThrow({ where: { id: a.communityId } });
    expect(aNow.name).not.toBe('B renamed');
    const bView = await call(t.app, 'GET', '/api/sdk/community', { ...b.auth });
    expect(bView.body.data).toMatchObject({ id: b.communityId, name: 'B renamed' });
    const crossed = await call(t.app, 'GET', '/api/sdk/community', {
      ...b.auth,
      headers: { 'x-community-id': a.communityId },
    });
    expect(crossed.status).toBe(403);
  });
});
