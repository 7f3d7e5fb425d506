import type { Role } from '../../src/generated/prisma/enums';
import { useTestApp } from '../utils/app';
import {
  createUser,
  CREDENTIAL_KINDS,
  credentialsOf,
  memberWithCredentials,
  memberWithToken,
  unique,
} from '../utils/factories';
import { call } from '../utils/http';

describe('members: list, role, add (docs/api.md#members-customization-embed)', () => {
  const t = useTestApp();

  const events = (communityId: string, eventType: string) =>
    t.prisma.outboxEvent.findMany({ where: { communityId, eventType }, orderBy: { id: 'asc' } });

  /** A member whose display name in the community is their account's name. */
  async function join(communityId: string, role: Role, name = 'Someone', email?: string) {
    const user = await createUser(t.app, { name, email });
    const membership = await t.prisma.membership.create({
      data: { communityId, userId: user.id, role, displayName: name },
    });
    return { user, membership };
  }

  describe.each(CREDENTIAL_KINDS)('with %s', (kind) => {
    it('lists members newest joined first, with the counter total and the member shape', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'FREE' });
      const a = await join(owner.community.id, 'MEMBER', 'Ann');
      const b = await join(owner.community.id, 'MODERATOR', 'Bob');
      const res = await call(t.app, 'GET', '/api/sdk/members', {
        ...credentialsOf(owner, kind),
        query: { limit: 2 },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ page: 1, limit: 2, total: 3, hasMore: true });
      expect(res.body.data.items).toEqual([
        {
          id: b.membership.id,
          userId: b.user.id,
          email: b.user.email,
          name: 'Bob',
          role: 'MODERATOR',
          joinedAt: b.membership.joinedAt.toISOString(),
        },
        expect.objectContaining({ id: a.membership.id, role: 'MEMBER' }),
      ]);
      const page2 = await call(t.app, 'GET', '/api/sdk/members', {
        ...credentialsOf(owner, kind),
        query: { limit: 2, page: 2 },
      });
      expect(page2.body.data).toMatchObject({ page: 2, total: 3, hasMore: false });
      expect(page2.body.data.items.map((m: { id: string }) => m.id)).toEqual([owner.membership.id]);
    });

    it.each([
      ['page', '0'],
      ['page', '-1'],
      ['page', 'abc'],
      ['limit', '0'],
      ['limit', '101'],
      ['limit', '-1'],
      ['limit', 'abc'],
      ['limit', '2.5'],
      ['role', 'KING'],
    ])('refuses %s=%s with 400 naming the field', async (field, value) => {
      const owner = await memberWithCredentials(t.app);
      const res = await call(t.app, 'GET', '/api/sdk/members', {
        ...credentialsOf(owner, kind),
        query: { [field]: value },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('filters by role and searches by e-mail or name prefix, case-insensitively', async () => {
      const owner = await memberWithCredentials(t.app);
      const tag = unique('zq').replace('-', '');
      const byEmail = await join(owner.community.id, 'MEMBER', 'Plain', `${tag}.first@example.test`);
      const byName = await join(owner.community.id, 'MODERATOR', `${tag.toUpperCase()} Second`);
      await join(owner.community.id, 'MODERATOR', 'Other');
      const auth = credentialsOf(owner, kind);

      const mods = await call(t.app, 'GET', '/api/sdk/members', { ...auth, query: { role: 'MODERATOR' } });
      expect(mods.body.data.total).toBe(2);
      expect(mods.body.data.items.every((m: { role: string }) => m.role === 'MODERATOR')).toBe(true);

      const search = await call(t.app, 'GET', '/api/sdk/members', {
        ...auth,
        query: { search: tag.toUpperCase() },
      });
      expect(search.status).toBe(200);
      expect(search.body.data.total).toBe(2);
      expect(search.body.data.items.map((m: { id: string }) => m.id)).toEqual([
        byName.membership.id,
        byEmail.membership.id,
      ]);

      const both = await call(t.app, 'GET', '/api/sdk/members', {
        ...auth,
        query: { search: tag, role: 'MODERATOR' },
      });
      expect(both.body.data.items.map((m: { id: string }) => m.id)).toEqual([byName.membership.id]);
      expect(both.body.data.total).toBe(1);

      // LIKE wildcards in the search are literal characters, not patterns.
      const wildcard = await call(t.app, 'GET', '/api/sdk/members', { ...auth, query: { search: '%' } });
      expect(wildcard.body.data).toMatchObject({ items: [], total: 0 });
      // A prefix only: a fragment from the middle matches nothing.
      const middle = await call(t.app, 'GET', '/api/sdk/members', { ...auth, query: { search: 'first@' } });
      expect(middle.body.data.total).toBe(0);
    });

    it('refuses an unknown query field and an over-long search', async () => {
      const owner = await memberWithCredentials(t.app);
      const auth = credentialsOf(owner, kind);
      const unknown = await call(t.app, 'GET', '/api/sdk/members', { ...auth, query: { sort: 'name' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.details[0].field).toBe('sort');
      const long = await call(t.app, 'GET', '/api/sdk/members', {
        ...auth,
        query: { search: 'a'.repeat(101) },
      });
      expect(long.status).toBe(400);
      expect(long.body.details[0].field).toBe('search');
    });

    it('changes a role, answers the member and records member.updated', async () => {
      const owner = await memberWithCredentials(t.app);
      const target = await join(owner.community.id, 'MEMBER');
      const res = await call(t.app, 'PATCH', `/api/sdk/members/${target.membership.id}/role`, {
        ...credentialsOf(owner, kind),
        body: { role: 'MODERATOR' },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        id: target.membership.id,
        userId: target.user.id,
        role: 'MODERATOR',
      });
      const [event] = await events(owner.community.id, 'member.updated');
      expect(event.payload).toMatchObject({
        type: 'member.updated',
        communityId: owner.community.id,
        data: { member: { id: target.membership.id, role: 'MODERATOR' }, previousRole: 'MEMBER' },
      });
      // Setting the same role again changes nothing and records nothing.
      const again = await call(t.app, 'PATCH', `/api/sdk/members/${target.membership.id}/role`, {
        ...credentialsOf(owner, kind),
        body: { role: 'MODERATOR' },
      });
      expect(again.status).toBe(200);
      expect(await events(owner.community.id, 'member.updated')).toHaveLength(1);
    });

    it('refuses a bad role body naming the field, and a non-uuid id', async () => {
      const owner = await memberWithCredentials(t.app);
      const auth = credentialsOf(owner, kind);
      const url = `/api/sdk/members/${owner.membership.id}/role`;
      for (const body of [{ role: 'KING' }, { role: 3 }, {}]) {
        const res = await call(t.app, 'PATCH', url, { ...auth, body });
        expect(res.status).toBe(400);
        expect(res.body.details.map((d: { field: string }) => d.field)).toContain('role');
      }
      const extra = await call(t.app, 'PATCH', url, { ...auth, body: { role: 'ADMIN', admin: true } });
      expect(extra.status).toBe(400);
      expect(extra.body.details[0].field).toBe('admin');
      const badId = await call(t.app, 'PATCH', '/api/sdk/members/nope/role', {
        ...auth,
        body: { role: 'ADMIN' },
      });
      expect(badId.status).toBe(400);
    });

    it("isolates communities: B neither sees nor changes A's members (404)", async () => {
      const a = await memberWithCredentials(t.app);
      const b = await memberWithCredentials(t.app);
      const aMember = await join(a.community.id, 'MEMBER');
      const list = await call(t.app, 'GET', '/api/sdk/members', credentialsOf(b, kind));
      expect(list.body.data.total).toBe(1);
      expect(list.body.data.items.map((m: { id: string }) => m.id)).toEqual([b.membership.id]);
      const patch = await call(t.app, 'PATCH', `/api/sdk/members/${aMember.membership.id}/role`, {
        ...credentialsOf(b, kind),
        body: { role: 'ADMIN' },
      });
      expect(patch.status).toBe(404);
      expect(patch.body.code).toBe('NOT_FOUND');
      expect(
        (await t.prisma.membership.findUniqueOrThrow({ where: { id: aMember.membership.id } })).role,
      ).toBe('MEMBER');
    });

    it('adds one member (201) and reports whether it was new', async () => {
      const owner = await memberWithCredentials(t.app, { plan: 'FREE' });
      const email = `${unique('new')}@Example.test`;
      const res = await call(t.app, 'POST', '/api/sdk/members', {
        ...credentialsOf(owner, kind),
        body: { email, name: 'Newbie', role: 'MODERATOR' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        email: email.toLowerCase(),
        name: 'Newbie',
        role: 'MODERATOR',
        created: true,
      });
      expect(await events(owner.community.id, 'member.joined')).toHaveLength(1);
      const again = await call(t.app, 'POST', '/api/sdk/members', {
        ...credentialsOf(owner, kind),
        body: { email, role: 'ADMIN' },
      });
      expect(again.status).toBe(201);
      expect(again.body.data).toMatchObject({ id: res.body.data.id, role: 'ADMIN', created: false });
    });
  });

  describe('role rules', () => {
    it('an ADMIN cannot make someone OWNER nor change an OWNER', async () => {
      const owner = await memberWithToken(t.app);
      const admin = await memberWithToken(t.app, { communityId: owner.community.id, role: 'ADMIN' });
      const member = await join(owner.community.id, 'MEMBER');
      const raise = await call(t.app, 'PATCH', `/api/sdk/members/${member.membership.id}/role`, {
        token: admin.token,
        body: { role: 'OWNER' },
      });
      expect(raise.status).toBe(403);
      expect(raise.body.code).toBe('FORBIDDEN');
      const demote = await call(t.app, 'PATCH', `/api/sdk/members/${owner.membership.id}/role`, {
        token: admin.token,
        body: { role: 'MEMBER' },
      });
      expect(demote.status).toBe(403);
      const add = await call(t.app, 'POST', '/api/sdk/members', {
        token: admin.token,
        body: { email: owner.user.email, role: 'MEMBER' },
      });
      expect(add.status).toBe(403);
      // Up to their own role is fine.
      const toAdmin = await call(t.app, 'PATCH', `/api/sdk/members/${member.membership.id}/role`, {
        token: admin.token,
        body: { role: 'ADMIN' },
      });
      expect(toAdmin.status).toBe(200);
    });

    it('a MODERATOR lacks MEMBERS_MANAGE (403) but may list', async () => {
      const owner = await memberWithToken(t.app);
      const mod = await memberWithToken(t.app, { communityId: owner.community.id, role: 'MODERATOR' });
      const res = await call(t.app, 'PATCH', `/api/sdk/members/${owner.membership.id}/role`, {
        token: mod.token,
        body: { role: 'MEMBER' },
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toContain('MEMBERS_MANAGE');
      const add = await call(t.app, 'POST', '/api/sdk/members', {
        token: mod.token,
        body: { email: 'a@b.test' },
      });
      expect(add.status).toBe(403);
      expect((await call(t.app, 'GET', '/api/sdk/members', { token: mod.token })).status).toBe(200);
    });

    it('refuses demoting the last OWNER with 409, also through POST /members', async () => {
      const owner = await memberWithToken(t.app);
      const res = await call(t.app, 'PATCH', `/api/sdk/members/${owner.membership.id}/role`, {
        token: owner.token,
        body: { role: 'ADMIN' },
      });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('CONFLICT');
      const add = await call(t.app, 'POST', '/api/sdk/members', {
        token: owner.token,
        body: { email: owner.user.email, role: 'MEMBER' },
      });
      expect(add.status).toBe(409);
      expect(await events(owner.community.id, 'member.updated')).toHaveLength(0);
    });

    it('two concurrent self-demotions of the only two OWNERs leave one OWNER', async () => {
      for (let round = 0; round < 5; round++) {
        const first = await memberWithToken(t.app);
        const second = await memberWithToken(t.app, { communityId: first.community.id, role: 'OWNER' });
        const results = await Promise.all(
          [first, second].map((o) =>
            call(t.app, 'PATCH', `/api/sdk/members/${o.membership.id}/role`, {
              token: o.token,
              body: { role: 'ADMIN' },
            }),
          ),
        );
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
        const owners = await t.prisma.membership.count({
          where: { communityId: first.community.id, role: 'OWNER' },
        });
        expect(owners).toBe(1);
      }
    });
  });
});
