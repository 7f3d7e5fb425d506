import { COMMANDS } from '../../src/cli/commands';
import { runCli } from '../../src/cli/main';
import { useTestApp } from '../utils/app';
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
  const t = useTestApp();

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
