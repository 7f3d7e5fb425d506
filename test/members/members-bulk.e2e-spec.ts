import type { Role } from '../../src/generated/prisma/enums';
import { useTestApp } from '../utils/app';
import {
  addMember,
  createUser,
  CREDENTIAL_KINDS,
  credentialsOf,
  memberWithCredentials,
  memberWithToken,
  unique,
} from '../utils/factories';
import { call } from '../utils/http';

describe('POST /api/sdk/members/bulk (docs/product-decisions.md#7-resources)', () => {
  const t = useTestApp();

  const eventCount = (communityId: string, eventType?: string) =>
    t.prisma.outboxEvent.count({ where: { communityId, ...(eventType ? { eventType } : {}) } });
  const email = () => `${unique('bulk')}@example.test`;
  /** A member known in the community by their account's name. */
  const joinAs = (communityId: string, user: { id: string; name: string }, role: Role) =>
    t.prisma.membership.create({ data: { communityId, userId: user.id, role, displayName: user.name } });

  describe.each(CREDENTIAL_KINDS)('with %s', (kind) => {
    it('creates new members, updates existing ones, and counts each exactly', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'ENTERPRISE' });
      const c = owner.community.id;
      const renamed = await createUser(t.app, { name: 'Old Name' });
      const renamedM = await joinAs(c, renamed, 'MEMBER');
      const reroled = await createUser(t.app, { name: 'Same' });
      const reroledM = await joinAs(c, reroled, 'MEMBER');
      const untouched = await createUser(t.app, { name: 'Keep' });
      await joinAs(c, untouched, 'MODERATOR');
      const outsider = await createUser(t.app, { name: 'Elsewhere' }); // a user, not yet a member
      const fresh = email();

      const res = await call(t.app, 'POST', '/api/sdk/members/bulk', {
        ...credentialsOf(owner, kind),
        body: {
          members: [
            { email: fresh.toUpperCase(), name: 'Fresh' },
            { email: renamed.email, name: 'New Name' },
            { email: reroled.email, role: 'ADMIN' },
            { email: untouched.email },
            { email: outsider.email, role: 'MODERATOR' },
          ],
        },
      });
      expect(res.status).toBe(200);
      const data = res.body.data;
      expect(data).toMatchObject({ created: 2, updated: 2, unchanged: 1 });
      expect(data.members.map((m: { email: string }) => m.email)).toEqual([
        fresh,
        renamed.email,
        reroled.email,
        untouched.email,
        outsider.email,
      ]);
      expect(data.members[0]).toMatchObject({ name: 'Fresh', role: 'MEMBER' });
      expect(data.members[0]).toEqual(
        expect.objectContaining({
          id: expect.any(String),
          userId: expect.any(String),
          joinedAt: expect.any(String),
        }),
      );
      expect(data.members[1]).toMatchObject({ id: renamedM.id, name: 'New Name', role: 'MEMBER' });
      expect(data.members[2]).toMatchObject({ id: reroledM.id, name: 'Same', role: 'ADMIN' });
      expect(data.members[3]).toMatchObject({ name: 'Keep', role: 'MODERATOR' });
      // An existing account joins under the name sent, else none: never its account name.
      expect(data.members[4]).toMatchObject({ userId: outsider.id, name: '', role: 'MODERATOR' });
      // Renaming a member changes the membership, never the user account.
      expect((await t.prisma.user.findUniqueOrThrow({ where: { id: renamed.id } })).name).toBe('Old Name');

      const newUser = await t.prisma.user.findUniqueOrThrow({ where: { email: fresh } });
      expect(newUser.passwordHash).toBeNull();
      expect(await eventCount(c, 'member.joined')).toBe(2);
      const updated = await t.prisma.outboxEvent.findMany({
        where: { communityId: c, eventType: 'member.updated' },
      });
      expect(
        updated.map((e) => (e.payload as { data: { member: { id: string } } }).data.member.id).sort(),
      ).toEqual([renamedM.id, reroledM.id].sort());
      const rerole = updated.find((e) => JSON.stringify(e.payload).includes(reroledM.id));
      expect(rerole?.payload).toMatchObject({ data: { previousRole: 'MEMBER', member: { role: 'ADMIN' } } });

      // The member counter (list total) follows the two new memberships.
      const list = await call(t.app, 'GET', '/api/sdk/members', credentialsOf(owner, kind));
      expect(list.body.data.total).toBe(6);
    });

    it('refuses a repeated e-mail naming the entry, and writes nothing', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'ENTERPRISE' });
      const a = email();
      const b = email();
      const res = await call(t.app, 'POST', '/api/sdk/members/bulk', {
        ...credentialsOf(owner, kind),
        body: { members: [{ email: a }, { email: b }, { email: a.toUpperCase() }] },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details).toEqual([
        { field: 'members.2.email', message: expect.stringContaining('members.0') },
      ]);
      expect(await t.prisma.user.count({ where: { email: { in: [a, b] } } })).toBe(0);
      expect(await eventCount(owner.community.id)).toBe(0);
    });

    it.each([
      ['no entries', { members: [] }, 'members'],
      [
        '1001 entries',
        { members: Array.from({ length: 1001 }, (_, i) => ({ email: `m${i}@x.test` })) },
        'members',
      ],
      ['not an array', { members: 'a@b.test' }, 'members'],
      ['a bad e-mail', { members: [{ email: 'nope' }] }, 'members.0.email'],
      ['an unknown entry field', { members: [{ email: 'a@b.test', admin: true }] }, 'members.0.admin'],
      ['an unknown role', { members: [{ email: 'a@b.test', role: 'KING' }] }, 'members.0.role'],
      ['a wrongly typed name', { members: [{ email: 'a@b.test', name: 5 }] }, 'members.0.name'],
      ['an over-long name', { members: [{ email: 'a@b.test', name: 'n'.repeat(101) }] }, 'members.0.name'],
      ['an unknown top-level field', { members: [{ email: 'a@b.test' }], dryRun: true }, 'dryRun'],
    ])('refuses %s with 400 naming the field', async (_label, body, field) => {
      const owner = await memberWithCredentials(t.app, { plan: 'ENTERPRISE' });
      const res = await call(t.app, 'POST', '/api/sdk/members/bulk', { ...credentialsOf(owner, kind), body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(await eventCount(owner.community.id)).toBe(0);
    });

    it('is refused on PRO with FEATURE_NOT_AVAILABLE members_bulk', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'PRO' });
      const res = await call(t.app, 'POST', '/api/sdk/members/bulk', {
        ...credentialsOf(owner, kind),
        body: { members: [{ email: email() }] },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FEATURE_NOT_AVAILABLE', featureKey: 'members_bulk' });
    });
  });

  it('an ADMIN cannot give OWNER nor change an OWNER in bulk; nothing is written', async () => {
    const owner = await memberWithToken(t.app, { plan: 'ENTERPRISE' });
    const admin = await memberWithToken(t.app, { communityId: owner.community.id, role: 'ADMIN' });
    const fresh = email();
    for (const members of [
      [{ email: fresh }, { email: email(), role: 'OWNER' }],
      [{ email: fresh }, { email: owner.user.email, role: 'MEMBER' }],
    ]) {
      const res = await call(t.app, 'POST', '/api/sdk/members/bulk', {
        token: admin.token,
        body: { members },
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toContain('members.1');
    }
    expect(await t.prisma.user.count({ where: { email: fresh } })).toBe(0);
    expect(await eventCount(owner.community.id)).toBe(0);
  });

  it('a MODERATOR lacks MEMBERS_MANAGE', async () => {
    const owner = await memberWithToken(t.app, { plan: 'ENTERPRISE' });
    const mod = await memberWithToken(t.app, { communityId: owner.community.id, role: 'MODERATOR' });
    const res = await call(t.app, 'POST', '/api/sdk/members/bulk', {
      token: mod.token,
      body: { members: [{ email: email() }] },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it('never demotes the last OWNER (409, nothing written), but may hand ownership over', async () => {
    const owner = await memberWithToken(t.app, { plan: 'ENTERPRISE' });
    const fresh = email();
    const refused = await call(t.app, 'POST', '/api/sdk/members/bulk', {
      token: owner.token,
      body: { members: [{ email: fresh }, { email: owner.user.email, role: 'ADMIN' }] },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('CONFLICT');
    expect(await t.prisma.user.count({ where: { email: fresh } })).toBe(0);
    expect(await eventCount(owner.community.id)).toBe(0);

    const handover = await call(t.app, 'POST', '/api/sdk/members/bulk', {
      token: owner.token,
      body: {
        members: [
          { email: fresh, role: 'OWNER' },
          { email: owner.user.email, role: 'ADMIN' },
        ],
      },
    });
    expect(handover.status).toBe(200);
    expect(handover.body.data).toMatchObject({ created: 1, updated: 1 });
    const owners = await t.prisma.membership.findMany({
      where: { communityId: owner.community.id, role: 'OWNER' },
    });
    expect(owners).toHaveLength(1);
    expect(owners[0].userId).toBe(handover.body.data.members[0].userId);
  });

  it("touches only the caller's community", async () => {
    const a = await memberWithToken(t.app, { plan: 'ENTERPRISE' });
    const b = await memberWithToken(t.app, { plan: 'ENTERPRISE' });
    const aMember = await createUser(t.app);
    await addMember(t.app, a.community.id, aMember.id, 'MODERATOR');
    const res = await call(t.app, 'POST', '/api/sdk/members/bulk', {
      token: b.token,
      body: { members: [{ email: aMember.email, role: 'MEMBER' }] },
    });
    expect(res.body.data).toMatchObject({ created: 1, updated: 0 });
    const inA = await t.prisma.membership.findFirstOrThrow({
      where: { communityId: a.community.id, userId: aMember.id },
    });
    expect(inA.role).toBe('MODERATOR');
    expect(await eventCount(a.community.id)).toBe(0);
  });
});
