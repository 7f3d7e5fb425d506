import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { formatBanner } from '../../src/cli/banner';
import { ApiKeysService } from '../../src/modules/account/api-keys.service';
import { createCliContext } from '../../src/cli/cli-context';
import { COMMANDS } from '../../src/cli/commands';
import { runCli } from '../../src/cli/main';
import { DemoState, readDemoState } from '../../src/cli/demo-state';
import { RunningReceiver, startReceiver } from '../../src/cli/receiver';
import { DEMO_PASSWORD, formatSeedReport, refreshDemoState, SeedResult, seedDemo } from '../../src/cli/seed';
import { createTestApp, TestApp } from '../utils/app';
import { createCommunity, unique } from '../utils/factories';
import { call } from '../utils/http';

// argon2id logins are CPU-bound by design: on a busy 2-core machine a test can take seconds.

/** Runs the CLI in-process against the run's database and captures what it prints. */
async function cli(...argv: string[]) {
  return cliWith({}, ...argv);
}

/** The same, with what the terminal would give: standard input, or answers to a hidden prompt. */
async function cliWith(terminal: { stdin?: string; answers?: string[] }, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const answers = [...(terminal.answers ?? [])];
  const code = await runCli(argv, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    readStdin: async () => terminal.stdin ?? '',
    prompt: terminal.answers ? async () => answers.shift() ?? '' : null,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Runs `work` with DATABASE_URL pointing at a port where nothing listens. */
async function withUnreachableDatabase<T>(work: () => Promise<T>): Promise<T> {
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = 'postgresql://postgres@127.0.0.1:1/nowhere';
  try {
    return await work();
  } finally {
    process.env.DATABASE_URL = saved;
  }
}

describe('CLI (docs/product-decisions.md#6-bootstrapping)', () => {
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
        '0b7e6f4e-1d2c-4c3b-9a8f-1e2d3c4b5a69',
        '--owner',
        'a@example.test',
      ],
      /--slug must not have the shape of a uuid/,
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
    expect((await cli('--help')).out).toContain('community:verify-domain --community S');
  });

  it.each(Object.keys(COMMANDS))(
    '%s --help prints its usage, description and options, exit 0, without a database',
    async (name) => {
      const res = await withUnreachableDatabase(() => cli(name, '--help'));
      expect(res.code).toBe(0);
      expect(res.out).toContain(`Usage: npm run cli -- ${COMMANDS[name].usage}`);
      for (const option of Object.keys(COMMANDS[name].options)) expect(res.out).toContain(`--${option}`);
      expect(res.out).toContain(COMMANDS[name].description);
      expect((await cli(name, '--email', 'x', '-h')).out).toContain('Options:');
    },
  );

  it('--help on the CLI itself lists every command and exits 0', async () => {
    const res = await cli('--help');
    expect(res.code).toBe(0);
    for (const command of Object.values(COMMANDS)) expect(res.out).toContain(command.usage);
    expect((await cli('help', 'user:set-password')).out).toContain('--password-stdin');
  });

  it('an unreachable database is one clear line and exit code 1', async () => {
    const res = await withUnreachableDatabase(() =>
      cli('user:create', '--email', 'a@example.test', '--password', 'long-enough-pw'),
    );
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/^Error: Cannot reach PostgreSQL at 127\.0\.0\.1:1 \(DATABASE_URL\): .+$/);
    expect(res.err.split('\n')).toHaveLength(1);
  });

  it('user:set-password gives a member added by member:add a password it can log in with', async () => {
    const owner = `${unique('owner')}@example.test`;
    const slug = unique('pw');
    expect((await cli('user:create', '--email', owner, '--password', 'long-enough-pw')).code).toBe(0);
    expect((await cli('community:create', '--name', 'PW', '--slug', slug, '--owner', owner)).code).toBe(0);
    const member = `${unique('member')}@example.test`;
    expect((await cli('member:add', '--community', slug, '--email', member)).code).toBe(0);
    const before = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: member, password: 'a-new-password' },
    });
    expect(before.status).toBe(401);

    const piped = await cliWith(
      { stdin: 'a-new-password\n' },
      'user:set-password',
      '--email',
      member.toUpperCase(),
      '--password-stdin',
    );
    expect(piped).toMatchObject({ code: 0 });
    expect(piped.out).not.toContain('a-new-password');
    const login = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: member, password: 'a-new-password', communityId: slug },
    });
    expect(login.status).toBe(200);

    // Interactive: typed twice at a hidden prompt; the old refresh token stops working.
    const prompted = await cliWith(
      { answers: ['another-password', 'another-password'] },
      'user:set-password',
      '--email',
      member,
    );
    expect(prompted.code).toBe(0);
    const refreshed = await call(t.app, 'POST', '/api/auth/refresh-token', {
      body: { refreshToken: login.body.data.refreshToken },
    });
    expect(refreshed.status).toBe(401);
    const again = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: member, password: 'another-password' },
    });
    expect(again.status).toBe(200);
  });

  it.each([
    [{ stdin: 'short' }, ['--email', 'OWNER', '--password-stdin'], /at least 8 characters/],
    [{ answers: ['long-enough-1', 'long-enough-2'] }, ['--email', 'OWNER'], /differ/],
    [{}, ['--email', 'OWNER'], /No terminal.*--password-stdin/],
    [{ stdin: 'long-enough-pw' }, ['--email', 'ghost@example.test', '--password-stdin'], /No user/],
    [{}, ['--password-stdin'], /--email is required/],
  ])('user:set-password refuses %j %j', async (terminal, args, message) => {
    const owner = `${unique('owner')}@example.test`;
    expect((await cli('user:create', '--email', owner, '--password', 'long-enough-pw')).code).toBe(0);
    const res = await cliWith(terminal, 'user:set-password', ...args.map((a) => (a === 'OWNER' ? owner : a)));
    expect(res.code).toBe(1);
    expect(res.err).toMatch(message);
    const login = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: owner, password: 'long-enough-pw' },
    });
    expect(login.status).toBe(200);
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

describe('the first hour: demo endpoint, local receiver, state file and banner', () => {
  let t: TestApp;
  let ctx: INestApplicationContext;
  let receiver: RunningReceiver;
  let printed: string[];
  let dir: string;
  let seed: SeedResult;
  beforeAll(async () => {
    // What npm start gives the API in development: local http targets allowed.
    t = await createTestApp({ WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' });
    ctx = await createCliContext();
    dir = mkdtempSync(join(tmpdir(), 'cp-demo-state-'));
    printed = [];
    // Port 0: the test's own port. The receiver reads `secrets` on each request: the seed makes the secret.
    const secrets: string[] = [];
    receiver = await startReceiver({
      port: 0,
      host: '127.0.0.1',
      status: 200,
      secrets,
      out: (l) => printed.push(l),
    });
    seed = await seedDemo(ctx, { force: true, receiverUrl: `${receiver.url}/webhooks` });
    secrets.push(seed.endpoint!.secret);
  });
  afterAll(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
    await ctx.close();
    await t.close();
  });

  const banner = (state: DemoState) =>
    formatBanner({
      apiBase: '/api',
      state,
      statePath: join(dir, 'demo.json'),
      insecureTargets: 'set-by-start',
    }).join('\n');

  it('gives demo-pro an endpoint at the receiver, which verifies a signed delivery and prints it', async () => {
    const pro = seed.communities.find((c) => c.slug === 'demo-pro')!;
    expect(seed.endpoint).toMatchObject({ communityId: pro.id, url: `${receiver.url}/webhooks` });
    const owner = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: seed.apiKey.actsAs, password: DEMO_PASSWORD, communityId: pro.id },
    });
    const sent = await call(t.app, 'POST', `/api/communities/${pro.id}/webhooks/${seed.endpoint!.id}/test`, {
      token: owner.body.data.accessToken,
    });
    expect(sent.status).toBe(200);
    const output = printed.join('\n');
    expect(output).toMatch(/webhook\.test {2}msg_\S+ {2}verified \(secret 1\)/);
    expect(output).toContain(`community  ${pro.id}`);
    expect(output).toContain('answered   200');
  });

  it('refuses a request no secret signed (401) and answers --status to a signed one', async () => {
    const secret = seed.endpoint!.secret;
    const failing = await startReceiver({
      port: 0,
      host: '127.0.0.1',
      status: 500,
      secrets: [secret],
      out: () => undefined,
    });
    try {
      const body = JSON.stringify({
        id: 'msg_1',
        type: 'tweet.created',
        timestamp: new Date().toISOString(),
        data: {},
      });
      const headers = new Webhook(secret).sign('msg_1', new Date(), body);
      const signed = await fetch(`${failing.url}/webhooks`, {
        method: 'POST',
        body,
        headers: {
          'webhook-id': 'msg_1',
          'webhook-timestamp': `${Math.floor(Date.now() / 1000)}`,
          'webhook-signature': headers,
        },
      });
      expect(signed.status).toBe(500);
      const forged = await fetch(`${failing.url}/webhooks`, {
        method: 'POST',
        body: body.replace('tweet', 'like'),
        headers: {
          'webhook-id': 'msg_1',
          'webhook-timestamp': `${Math.floor(Date.now() / 1000)}`,
          'webhook-signature': headers,
        },
      });
      expect(forged.status).toBe(401);
    } finally {
      await failing.close();
    }
  });

  it('keeps the state outside the repository (owner-only), keeps a working key and re-mints a revoked one', async () => {
    const path = join(dir, 'demo.json');
    const url = t.config.DATABASE_URL;
    // what a fresh seed writes: the state built from the database, with the key the seed minted
    const written = (await refreshDemoState(ctx, path, url, { apiKey: seed.apiKey.key }))!;
    expect(written.apiKey.key).toBe(seed.apiKey.key);
    expect(written.endpoint!.secrets).toEqual([seed.endpoint!.secret]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readDemoState(path, 'postgresql://postgres@127.0.0.1:5432/another_database')).toBeNull();

    const kept = (await refreshDemoState(ctx, path, url))!;
    expect(kept.apiKey.key).toBe(seed.apiKey.key);
    expect(kept.endpoint!.secrets).toEqual([seed.endpoint!.secret]);
    expect(kept.communities.map((c) => c.id)).toEqual(seed.communities.map((c) => c.id));
    expect(await t.prisma.apiKey.count({ where: { communityId: kept.apiKey.communityId } })).toBe(1);

    // a working key of another community is not taken for demo-pro's; neither is a malformed one
    const free = seed.communities.find((c) => c.slug === 'demo-free')!;
    const owner = await t.prisma.user.findUniqueOrThrow({ where: { email: seed.apiKey.actsAs } });
    const freeKey = await ctx.get(ApiKeysService).create(free.id, owner.id, 'free key');
    const other = join(dir, 'other.json');
    for (const candidate of [freeKey.key, 'cpk_not-a-key']) {
      const state = (await refreshDemoState(ctx, other, url, { apiKey: candidate }))!;
      expect(state.apiKey.key).not.toBe(candidate);
      expect(state.apiKey.communityId).toBe(kept.apiKey.communityId);
    }

    await t.prisma.apiKey.updateMany({
      where: { communityId: kept.apiKey.communityId },
      data: { revokedAt: new Date() },
    });
    const minted = (await refreshDemoState(ctx, path, url))!;
    expect(minted.apiKey.key).not.toBe(seed.apiKey.key);
    expect(readDemoState(path, url)!.apiKey.key).toBe(minted.apiKey.key);
    const me = await call(t.app, 'GET', '/api/admin/sdk/me', { apiKey: minted.apiKey.key });
    expect(me.body.data).toMatchObject({ communityId: kept.apiKey.communityId });
  });

  it('banner: URLs, each login and the community it acts in, the key, and commands that work as pasted', async () => {
    const path = join(dir, 'demo.json');
    const state = (await refreshDemoState(ctx, path, t.config.DATABASE_URL))!;
    const text = banner(state);
    const free = state.communities.find((c) => c.slug === 'demo-free')!;
    const pro = state.communities.find((c) => c.slug === 'demo-pro')!;
    expect(text).toContain('API   /api');
    expect(text).toContain('Docs  /api/docs');
    for (const c of state.communities) expect(text).toMatch(new RegExp(`${c.slug} +${c.id} +${c.plan}`));
    for (const l of state.logins) expect(text).toMatch(new RegExp(`${l.email} +${l.role}`));
    expect(text).toContain(`acts in demo-free (${free.id})`);
    expect(text).toContain(state.apiKey.key);
    expect(text).toContain(path);
    expect(text).toContain('npm run receiver');
    expect(text).toContain('WEBHOOK_ALLOW_INSECURE_TARGETS=true was set by npm start');

    // A login that names no community lands in demo-free, as the banner says.
    const plain = await call(t.app, 'POST', '/api/auth/login', {
      body: { email: 'owner@demo.test', password: DEMO_PASSWORD },
    });
    const claims = JSON.parse(Buffer.from(plain.body.data.accessToken.split('.')[1], 'base64url').toString());
    expect(claims.tenantId).toBe(free.id);

    // The login command, as printed, acts in demo-pro.
    const loginBody = /-d '(\{"email".*\})'/.exec(text)![1];
    const login = await call(t.app, 'POST', '/api/auth/login', { body: JSON.parse(loginBody) });
    expect(login.status).toBe(200);
    const proClaims = JSON.parse(
      Buffer.from(login.body.data.accessToken.split('.')[1], 'base64url').toString(),
    );
    expect(proClaims.tenantId).toBe(pro.id);

    // The tweet command, as printed, creates a tweet in demo-pro with the key.
    const tweetKey = /-H 'X-Api-Key: (cpk_\w+)'/.exec(text)![1];
    const tweetBody = /-d '(\{"content".*\})'/.exec(text)![1];
    const tweet = await call(t.app, 'POST', '/api/sdk/tweets', {
      apiKey: tweetKey,
      body: JSON.parse(tweetBody),
    });
    expect(tweet.status).toBe(201);
    expect(tweet.body.data.communityId).toBe(pro.id);

    const off = formatBanner({ apiBase: '/api', state, statePath: path, insecureTargets: 'off' }).join('\n');
    expect(off).toContain('WEBHOOK_ALLOW_INSECURE_TARGETS is false');
    expect(
      formatBanner({ apiBase: '/api', state: null, statePath: path, insecureTargets: 'off' }).join('\n'),
    ).toContain('npm run db:seed -- --force');
  });
});
