import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { formatBanner } from '../../src/cli/banner';
import { ApiKeysService } from '../../src/modules/account/api-keys.service';
import { createCliContext } from '../../src/cli/cli-context';
import { DemoState, readDemoState } from '../../src/cli/demo-state';
import { RunningReceiver, startReceiver } from '../../src/cli/receiver';
import { DEMO_PASSWORD, formatSeedReport, refreshDemoState, SeedResult, seedDemo } from '../../src/cli/seed';
import { createTestApp, TestApp } from '../utils/app';
import { call } from '../utils/http';

/** The demo a fresh clone's `npm start` seeds (docs/product-decisions.md#6-bootstrapping), and its first hour. */
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
