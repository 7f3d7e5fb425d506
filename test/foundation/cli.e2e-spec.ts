import type { INestApplicationContext } from '@nestjs/common';
import { createCliContext } from '../../src/cli/cli-context';
import { runCli } from '../../src/cli/main';
import { DEMO_PASSWORD, formatSeedReport, seedDemo } from '../../src/cli/seed';
import { createTestApp, TestApp } from '../utils/app';
import { createCommunity, unique } from '../utils/factories';
import { call } from '../utils/http';

// argon2id logins are CPU-bound by design: on a busy 2-core machine a test can take seconds.

/** Runs the CLI in-process against the run's database and captures what it prints. */
async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('CLI (contract §6)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('bootstraps a user, a community, a member and an API key that work against the API', async () => {
    const owner = `${unique('owner')}@example.test`;
    const slug = unique('cli');
    expect(
      await cli('user:create', '--email', owner, '--password', 'long-enough-pw', '--name', 'Olga'),
    ).toMatchObject({
      code: 0,
    });
    const created = await cli(
      'community:create',
      '--name',
      'CLI place',
      '--slug',
      slug,
      '--owner',
      owner,
      '--plan',
      'pro',
    );
    expect(created.code).toBe(0);
    expect(created.out).toContain(`Created community ${slug}`);
    const community = await t.prisma.community.findUniqueOrThrow({ where: { slug } });
    expect(community.plan).toBe('PRO');

    const member = `${unique('member')}@example.test`;
    const added = await cli('member:add', '--community', slug, '--email', member, '--role', 'moderator');
    expect(added).toMatchObject({ code: 0 });
    expect(added.out).toContain('as MODERATOR');

    const key = await cli('apikey:create', '--community', community.id, '--name', 'ci');
    expect(key.code).toBe(0);
    const printed = key.out.split('\n').find((line) => line.startsWith('cpk_'))!;
    expect(printed).toMatch(/^cpk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    const me = await call(t.app, 'GET', '/api/admin/sdk/me', { apiKey: printed });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ type: 'apiKey', user: { email: owner }, communityId: community.id });

    const login = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: owner, password: 'long-enough-pw' },
    });
    expect(login.status).toBe(200);
  });

  it('makes a platform admin with --platform-admin', async () => {
    const email = `${unique('admin')}@example.test`;
    expect(
      (await cli('user:create', '--email', email, '--password', 'long-enough-pw', '--platform-admin')).code,
    ).toBe(0);
    expect((await t.prisma.user.findUniqueOrThrow({ where: { email } })).isPlatformAdmin).toBe(true);
  });

  it.each([
    [['nope'], /Unknown command 'nope'/],
    [[], /Usage/],
    [['user:create', '--email', 'not-an-email', '--password', 'long-enough-pw'], /not an e-mail address/],
    [['user:create', '--email', 'a@example.test', '--password', 'short'], /at least 8 characters/],
    [['user:create', '--email', 'a@example.test'], /--password is required/],
    [['user:create', '--email', 'a@example.test', '--password', 'x', '--bogus'], /Unknown option '--bogus'/],
    [
      ['community:create', '--name', 'n', '--slug', 'Bad Slug', '--owner', 'a@example.test'],
      /--slug must be/,
    ],
    [
      [
        'community:create',
        '--name',
        'n',
        '--slug',
        'fine-slug',
        '--owner',
        'a@example.test',
        '--plan',
        'GOLD',
      ],
      /--plan must be one of FREE, PRO, ENTERPRISE/,
    ],
    [
      ['community:create', '--name', 'n', '--slug', 'fine-slug', '--owner', 'ghost@example.test'],
      /No user with the e-mail ghost@example.test/,
    ],
    [
      ['apikey:create', '--community', 'no-such-community'],
      /No community with id or slug 'no-such-community'/,
    ],
    [['member:add', '--community', 'no-such-community', '--email', 'a@example.test'], /No community/],
  ])('refuses %j with exit code 1 and a clear message', async (argv, message) => {
    const res = await cli(...argv);
    expect(res.code).toBe(1);
    expect(res.err + res.out).toMatch(message);
  });

  it('refuses a duplicate user and a taken slug with exit code 1', async () => {
    const email = `${unique('dup')}@example.test`;
    expect((await cli('user:create', '--email', email, '--password', 'long-enough-pw')).code).toBe(0);
    const again = await cli('user:create', '--email', email.toUpperCase(), '--password', 'long-enough-pw');
    expect(again).toMatchObject({ code: 1 });
    expect(again.err).toMatch(/already exists/);
    const slug = unique('dup');
    expect((await cli('community:create', '--name', 'a', '--slug', slug, '--owner', email)).code).toBe(0);
    const taken = await cli('community:create', '--name', 'b', '--slug', slug, '--owner', email);
    expect(taken.code).toBe(1);
    expect(taken.err).toMatch(/taken/);
  });

  it('community:verify-domain activates the pending custom domain without a DNS check', async () => {
    const host = `${unique('forum')}.example.com`;
    const community = await createCommunity(t.app, {
      plan: 'ENTERPRISE',
      customDomain: `${unique('old')}.example.com`,
    });
    await t.prisma.community.update({
      where: { id: community.id },
      data: {
        customDomainPending: host,
        customDomainToken: 't'.repeat(32),
        customDomainRequestedAt: new Date(),
      },
    });
    const res = await cli('community:verify-domain', '--community', community.slug);
    expect(res).toMatchObject({ code: 0 });
    expect(res.out).toContain(`Verified custom domain ${host} for ${community.slug}`);
    expect(await t.prisma.community.findUniqueOrThrow({ where: { id: community.id } })).toMatchObject({
      customDomain: host,
      customDomainPending: null,
      customDomainToken: null,
    });
    const events = await t.prisma.outboxEvent.findMany({ where: { communityId: community.id } });
    expect(events.map((e) => e.eventType)).toEqual(['community.updated']);

    // Nothing pending any more: a second run says so.
    const again = await cli('community:verify-domain', '--community', community.id);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/no pending custom domain/);
  });

  it('community:verify-domain refuses a domain active in another community, and lists itself in --help', async () => {
    const host = `${unique('taken')}.example.com`;
    await createCommunity(t.app, { plan: 'ENTERPRISE', customDomain: host });
    const late = await createCommunity(t.app, { plan: 'ENTERPRISE' });
    await t.prisma.community.update({
      where: { id: late.id },
      data: {
        customDomainPending: host,
        customDomainToken: 't'.repeat(32),
        customDomainRequestedAt: new Date(),
      },
    });
    const res = await cli('community:verify-domain', '--community', late.slug);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/used by another community/);
    expect((await t.prisma.community.findUniqueOrThrow({ where: { id: late.id } })).customDomain).toBeNull();

    expect((await cli('community:verify-domain')).err).toMatch(/--community is required/);
    expect((await cli('community:verify-domain', '--community', 'no-such-community')).err).toMatch(
      /No community with id or slug/,
    );
    expect((await cli('--help')).out).toMatch(
      /community:verify-domain --community S .*pending custom domain/,
    );
  });

  it('refuses a role name that is not a role', async () => {
    const res = await cli('member:add', '--community', 'x', '--email', 'a@example.test', '--role', 'king');
    expect(res.code).toBe(1);
  });
});

describe('demo seed', () => {
  let t: TestApp;
  let ctx: INestApplicationContext;
  beforeAll(async () => {
    t = await createTestApp();
    ctx = await createCliContext();
  });
  afterAll(async () => {
    await ctx.close();
    await t.close();
  });

  it('seeds a community per plan, users of each role, content, and a working API key; --force redoes it', async () => {
    const seed = await seedDemo(ctx, { force: true });
    expect(seed.communities.map((c) => [c.slug, c.plan])).toEqual([
      ['demo-free', 'FREE'],
      ['demo-pro', 'PRO'],
      ['demo-enterprise', 'ENTERPRISE'],
    ]);
    expect(seed.logins.map((l) => l.role)).toEqual(['OWNER', 'ADMIN', 'MODERATOR', 'MEMBER']);
    const report = formatSeedReport(seed).join('\n');
    expect(report).toContain(seed.apiKey.key);
    expect(report).toContain(DEMO_PASSWORD);

    for (const { email, role } of seed.logins) {
      const res = await call(t.app, 'POST', '/api/auth/login', {
        body: { email, password: DEMO_PASSWORD, communityId: 'demo-enterprise' },
      });
      expect(res.status).toBe(200);
      const claims = JSON.parse(Buffer.from(res.body.data.accessToken.split('.')[1], 'base64url').toString());
      expect(claims.role).toBe(role);
    }
    const admin = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: seed.platformAdmin, password: DEMO_PASSWORD },
    });
    expect(admin.status).toBe(200);

    const me = await call(t.app, 'GET', '/api/admin/sdk/me', { apiKey: seed.apiKey.key });
    expect(me.body.data).toMatchObject({ type: 'apiKey', user: { email: seed.apiKey.actsAs } });

    const pro = seed.communities[1];
    const counters = await t.prisma.communityCounter.findMany({ where: { communityId: pro.id } });
    const count = Object.fromEntries(counters.map((c) => [c.scope, Number(c.value)]));
    expect(count).toMatchObject({ tweets: 3, tasks: 2, members: 4 });
    const liked = await t.prisma.tweet.findFirstOrThrow({ where: { communityId: pro.id, likeCount: 2 } });
    expect(liked.commentCount).toBe(2);
    expect(await t.prisma.outboxEvent.count({ where: { communityId: pro.id } })).toBe(0);

    const again = await seedDemo(ctx, { force: true });
    expect(again.communities[0].id).not.toBe(seed.communities[0].id);
    expect(await t.prisma.community.count({ where: { slug: { startsWith: 'demo-' } } })).toBe(3);
    const stale = await call(t.app, 'GET', '/api/admin/sdk/me', { apiKey: seed.apiKey.key });
    expect(stale.status).toBe(401);
  });
});
