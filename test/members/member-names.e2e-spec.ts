import { runCli } from '../../src/cli/main';
import { useTestApp } from '../utils/app';
import {
  createUser,
  CREDENTIAL_KINDS,
  credentialsOf,
  login,
  memberWithCredentials,
  memberWithToken,
  unique,
} from '../utils/factories';
import { call } from '../utils/http';

/**
 * docs/product-decisions.md#7-resources: names shown in a community belong to the membership. A community
 * never changes a user account, and adding an existing account reveals nothing the caller did not send.
 */
describe('members: display names per membership (docs/product-decisions.md#7-resources)', () => {
  const t = useTestApp();

  const email = (prefix = 'm') => `${unique(prefix)}@example.test`;
  const userRow = (id: string) => t.prisma.user.findUniqueOrThrow({ where: { id } });
  const eventsOf = (communityId: string, eventType?: string) =>
    t.prisma.outboxEvent.findMany({
      where: { communityId, ...(eventType ? { eventType } : {}) },
      orderBy: { id: 'asc' },
    });
  /** The parts of a member answer that are not ids (nor the e-mail the caller sent). */
  const withoutIds = ({ id, userId, email: _e, joinedAt, ...rest }: Record<string, unknown>) => {
    expect([id, userId, joinedAt].every((v) => typeof v === 'string')).toBe(true);
    return rest;
  };

  /**
   * Community B made the real way: its owner creates it through the service route (so they join
   * under their own account name), and it has one more member with a private account name.
   */
  async function communityB() {
    const owner = await createUser(t.app, { name: 'Bella Owner' });
    const { accessToken } = await login(t.app, owner.email);
    const slug = unique('b');
    const res = await call(t.app, 'POST', '/api/admin/sdk/communities', {
      token: accessToken,
      body: { name: 'B', slug },
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    const token = (await login(t.app, owner.email, id)).accessToken;
    const member = await createUser(t.app, { name: 'Secret Bea' });
    await t.prisma.membership.create({ data: { communityId: id, userId: member.id, displayName: 'Bea' } });
    const list = async () => {
      const page = await call(t.app, 'GET', '/api/sdk/members', { token });
      expect(page.status).toBe(200);
      return page.body.data as { total: number; items: Record<string, unknown>[] };
    };
    return { id, owner, member, token, list, before: await list() };
  }

  it('the creator of a community joins under their own account name', async () => {
    const b = await communityB();
    expect(b.before.items.find((m) => m.userId === b.owner.id)).toMatchObject({
      name: 'Bella Owner',
      role: 'OWNER',
    });
  });

  describe.each(CREDENTIAL_KINDS)('with %s', (kind) => {
    it("an ADMIN of A adding B's owner and member changes nothing in B nor in the accounts, and learns nothing", async () => {
      const b = await communityB();
      const a = await memberWithCredentials(t.app, { role: 'ADMIN' });
      const accountsBefore = [await userRow(b.owner.id), await userRow(b.member.id)];
      const eventsOfB = (await eventsOf(b.id)).length;

      const named = await call(t.app, 'POST', '/api/sdk/members', {
        ...credentialsOf(a, kind),
        body: { email: b.owner.email.toUpperCase(), name: 'Renamed by A' },
      });
      expect(named.status).toBe(201);
      expect(named.body.data).toEqual({
        id: expect.any(String),
        userId: b.owner.id,
        email: b.owner.email,
        name: 'Renamed by A',
        role: 'MEMBER',
        joinedAt: expect.any(String),
        created: true,
      });
      const unnamed = await call(t.app, 'POST', '/api/sdk/members', {
        ...credentialsOf(a, kind),
        body: { email: b.member.email },
      });
      expect(unnamed.status).toBe(201);
      expect(unnamed.body.data).toMatchObject({ userId: b.member.id, name: '', created: true });
      // Neither answer carries anything of the accounts that A did not send.
      for (const secret of ['Bella Owner', 'Secret Bea', 'Bea']) {
        expect(JSON.stringify([named.body, unnamed.body])).not.toContain(secret);
      }

      expect([await userRow(b.owner.id), await userRow(b.member.id)]).toEqual(accountsBefore);
      expect(await b.list()).toEqual(b.before);
      expect(await eventsOf(b.id)).toHaveLength(eventsOfB);
      const joined = await eventsOf(a.community.id, 'member.joined');
      expect(
        joined.map((e) => (e.payload as { data: { member: { name: string } } }).data.member.name),
      ).toEqual(['Renamed by A', '']);

      // A's own list shows A's names (A's admin came from the factory, with no display name).
      const inA = await call(t.app, 'GET', '/api/sdk/members', credentialsOf(a, kind));
      expect(inA.body.data.total).toBe(3);
      expect(inA.body.data.items.map((m: { name: string }) => m.name)).toEqual(['', 'Renamed by A', '']);
    });

    it('answers the same for an existing account as for a new one (apart from ids)', async () => {
      const b = await communityB();
      const a = await memberWithCredentials(t.app, { plan: 'ENTERPRISE' });
      const add = (body: Record<string, unknown>) =>
        call(t.app, 'POST', '/api/sdk/members', { ...credentialsOf(a, kind), body });

      for (const extra of [{ name: 'Pat', role: 'MODERATOR' }, {}]) {
        const existing = await add({
          email: (await createUser(t.app, { name: 'Real Name' })).email,
          ...extra,
        });
        const fresh = await add({ email: email('fresh'), ...extra });
        expect([existing.status, fresh.status]).toEqual([201, 201]);
        expect(withoutIds(existing.body.data)).toEqual(withoutIds(fresh.body.data));
        expect(existing.body.data.created).toBe(true);
      }

      const bulk = await call(t.app, 'POST', '/api/sdk/members/bulk', {
        ...credentialsOf(a, kind),
        body: {
          members: [
            { email: b.owner.email, name: 'Same' },
            { email: email('fresh'), name: 'Same' },
            { email: b.member.email },
            { email: email('fresh') },
          ],
        },
      });
      expect(bulk.status).toBe(200);
      expect(bulk.body.data).toMatchObject({ created: 4, updated: 0, unchanged: 0 });
      const [owner, fresh, member, freshUnnamed] = bulk.body.data.members;
      expect(withoutIds(owner)).toEqual(withoutIds(fresh));
      expect(withoutIds(member)).toEqual(withoutIds(freshUnnamed));
      expect(withoutIds(owner)).toEqual({ name: 'Same', role: 'MEMBER' });
      expect(withoutIds(member)).toEqual({ name: '', role: 'MEMBER' });
    });
  });

  it("bulk: A adding B's owner and member changes nothing in B nor in the accounts", async () => {
    const b = await communityB();
    const aOwner = await memberWithCredentials(t.app, { plan: 'ENTERPRISE' });
    const a = await memberWithToken(t.app, { communityId: aOwner.community.id, role: 'ADMIN' });
    const accountsBefore = [await userRow(b.owner.id), await userRow(b.member.id)];
    const res = await call(t.app, 'POST', '/api/sdk/members/bulk', {
      token: a.token,
      body: {
        members: [
          { email: b.owner.email, name: 'Renamed by A' },
          { email: b.member.email, role: 'MODERATOR' },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 2, updated: 0, unchanged: 0 });
    expect(res.body.data.members).toEqual([
      expect.objectContaining({ userId: b.owner.id, name: 'Renamed by A', role: 'MEMBER' }),
      expect.objectContaining({ userId: b.member.id, name: '', role: 'MODERATOR' }),
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/Bella|Bea/);
    expect([await userRow(b.owner.id), await userRow(b.member.id)]).toEqual(accountsBefore);
    expect(await b.list()).toEqual(b.before);
  });

  it('a rename changes the membership only, raises member.updated with the display name, and is counted', async () => {
    const b = await communityB();
    const a = await memberWithCredentials(t.app, { plan: 'ENTERPRISE' });
    const account = await userRow(b.member.id);
    const first = await call(t.app, 'POST', '/api/sdk/members', {
      token: a.token,
      body: { email: b.member.email, name: 'First' },
    });
    const again = await call(t.app, 'POST', '/api/sdk/members', {
      token: a.token,
      body: { email: b.member.email, name: 'Second' },
    });
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ id: first.body.data.id, name: 'Second', created: false });
    // Re-adding with the same name (or none) keeps the name and records nothing.
    for (const body of [{ email: b.member.email, name: 'Second' }, { email: b.member.email }]) {
      const same = await call(t.app, 'POST', '/api/sdk/members', { token: a.token, body });
      expect(same.body.data).toMatchObject({ name: 'Second', created: false });
    }

    const bulk = await call(t.app, 'POST', '/api/sdk/members/bulk', {
      token: a.token,
      body: {
        members: [
          { email: b.member.email, name: 'Third' },
          { email: a.user.email, name: 'Test User' },
          { email: email('fresh'), name: 'New' },
        ],
      },
    });
    // The caller was created by the factory with an empty display name: setting it is an update.
    expect(bulk.body.data).toMatchObject({ created: 1, updated: 2, unchanged: 0 });
    const unchanged = await call(t.app, 'POST', '/api/sdk/members/bulk', {
      token: a.token,
      body: { members: [{ email: b.member.email, name: 'Third' }, { email: a.user.email }] },
    });
    expect(unchanged.body.data).toMatchObject({ created: 0, updated: 0, unchanged: 2 });

    const updated = await eventsOf(a.community.id, 'member.updated');
    expect(
      updated.map((e) => (e.payload as { data: { member: { name: string }; previousRole: string } }).data),
    ).toEqual([
      expect.objectContaining({
        member: expect.objectContaining({ name: 'Second' }),
        previousRole: 'MEMBER',
      }),
      expect.objectContaining({ member: expect.objectContaining({ name: 'Third' }), previousRole: 'MEMBER' }),
      expect.objectContaining({
        member: expect.objectContaining({ name: 'Test User' }),
        previousRole: 'OWNER',
      }),
    ]);
    expect(await userRow(b.member.id)).toEqual(account);
    expect(await b.list()).toEqual(b.before);
  });

  it('search matches the display name, not the account name', async () => {
    const b = await communityB();
    const a = await memberWithCredentials(t.app);
    const tag = unique('q').replace('-', '');
    const account = await createUser(t.app, { name: `Acct${tag}` });
    await t.prisma.membership.create({
      data: { communityId: a.community.id, userId: account.id, displayName: `Shown${tag}` },
    });
    const search = (who: { token: string }, text: string) =>
      call(t.app, 'GET', '/api/sdk/members', { token: who.token, query: { search: text } });
    const found = await search(a, `shown${tag}`.toUpperCase());
    expect(found.body.data.items.map((m: { userId: string }) => m.userId)).toEqual([account.id]);
    expect((await search(a, `acct${tag}`)).body.data.total).toBe(0);
    // B's display name of its owner is B's: A searching for it finds nothing (the owner is no member of A).
    expect((await search(a, 'bella')).body.data.total).toBe(0);
    expect((await search(b, 'bella')).body.data.items).toEqual([
      expect.objectContaining({ userId: b.owner.id, name: 'Bella Owner' }),
    ]);
  });

  describe('CLI', () => {
    async function cli(...argv: string[]) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
      return { code, out: out.join('\n'), err: err.join('\n') };
    }
    const displayName = async (communityId: string, userId: string) =>
      (
        await t.prisma.membership.findUniqueOrThrow({
          where: { communityId_userId: { communityId, userId } },
        })
      ).displayName;

    it('community:create joins the owner under their account name; member:add --name sets the display name only', async () => {
      const owner = await createUser(t.app, { name: 'Cli Owner' });
      const slug = unique('cli');
      expect(
        (await cli('community:create', '--name', 'C', '--slug', slug, '--owner', owner.email)).code,
      ).toBe(0);
      const community = await t.prisma.community.findUniqueOrThrow({ where: { slug } });
      expect(await displayName(community.id, owner.id)).toBe('Cli Owner');

      const other = await createUser(t.app, { name: 'Account Name' });
      const account = await userRow(other.id);
      expect((await cli('member:add', '--community', slug, '--email', other.email)).code).toBe(0);
      expect(await displayName(community.id, other.id)).toBe('');
      expect(
        (await cli('member:add', '--community', slug, '--email', other.email, '--name', 'Shown')).code,
      ).toBe(0);
      expect(await displayName(community.id, other.id)).toBe('Shown');
      expect(await userRow(other.id)).toEqual(account);

      const fresh = email('cli');
      expect(
        (await cli('member:add', '--community', slug, '--email', fresh, '--name', 'Newcomer')).code,
      ).toBe(0);
      const created = await t.prisma.user.findUniqueOrThrow({ where: { email: fresh } });
      expect(created.name).toBe('Newcomer');
      expect(await displayName(community.id, created.id)).toBe('Newcomer');

      const long = await cli('member:add', '--community', slug, '--email', fresh, '--name', 'n'.repeat(101));
      expect(long.code).not.toBe(0);
      expect(long.err).toContain('--name');
    });
  });
});
