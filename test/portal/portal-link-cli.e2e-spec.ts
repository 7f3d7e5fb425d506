import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { MALLOC_ENVIRONMENT } from '../../src/bootstrap/memory-flags';
import { runCli } from '../../src/cli/main';
import { createTestApp, TestApp } from '../utils/app';
import { addMember, createUser, memberWithToken } from '../utils/factories';
import { call } from '../utils/http';

const root = resolve(__dirname, '..', '..');
const BASE_URL = 'https://hooks.example.com';

/** `npm run cli -- portal:link …` as a person runs it: the built CLI, in a process of its own. */
async function portalLink(...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [join(root, 'dist', 'cli', 'main.js'), 'portal:link', ...args],
      {
        cwd: root,
        env: { ...MALLOC_ENVIRONMENT, ...process.env, PUBLIC_BASE_URL: BASE_URL },
        timeout: 60_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The same command run in this process (quicker), for the refusals, which print one line and exit 1. */
async function refusal(...args: string[]) {
  const err: string[] = [];
  const code = await runCli(['portal:link', ...args], {
    out: () => undefined,
    err: (line) => err.push(line),
  });
  return { code, stderr: err.join('\n') };
}

/**
 * One step from a terminal to the webhook portal (docs/getting-started.md#5-the-webhook-portal): the
 * printed link is the API route's, and it opens a portal session on that community's webhook routes.
 */
describe('npm run cli -- portal:link', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ PUBLIC_BASE_URL: BASE_URL });
  });
  afterAll(() => t.close());

  /** Follows the printed link as the portal page does: the page, then the token's exchange, then a webhook route. */
  async function open(link: string, communityId: string) {
    const url = new URL(link);
    expect(`${url.origin}${url.pathname}`).toBe(`${BASE_URL}/portal/`);
    expect(url.searchParams.get('community')).toBe(communityId);
    const page = await call(t.app, 'GET', `${url.pathname}${url.search}`, {
      headers: { accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    const token = url.hash.replace(/^#token=/, '');
    const session = await call(t.app, 'POST', '/api/webhooks/portal-sessions', {
      body: { token, community: communityId },
    });
    expect(session.status).toBe(201);
    expect(session.body.data.communityId).toBe(communityId);
    const endpoints = await call(t.app, 'GET', `/api/communities/${communityId}/webhooks`, {
      token: session.body.data.accessToken,
    });
    expect(endpoints.status).toBe(200);
    // single use, as every portal link
    const again = await call(t.app, 'POST', '/api/webhooks/portal-sessions', { body: { token } });
    expect(again.status).toBe(401);
  }

  it('prints a link that opens the portal as the first OWNER, by slug', async () => {
    const owner = await memberWithToken(t.app, { plan: 'PRO' });
    const res = await portalLink('--community', owner.community.slug);
    expect(res).toMatchObject({ code: 0, stderr: '' });
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toContain(`${owner.community.slug} as ${owner.user.email}`);
    await open(lines[lines.length - 1], owner.community.id);
    const rows = await t.prisma.webhookPortalLink.findMany({ where: { communityId: owner.community.id } });
    expect(rows.map((row) => row.createdById)).toEqual([owner.user.id]);
  });

  it('with --email, as that member when they hold WEBHOOKS_MANAGE; refuses anyone else in one line', async () => {
    const owner = await memberWithToken(t.app, { plan: 'PRO' });
    const admin = await createUser(t.app);
    await addMember(t.app, owner.community.id, admin.id, 'ADMIN');
    const res = await portalLink('--community', owner.community.id, '--email', admin.email.toUpperCase());
    expect(res.code).toBe(0);
    await open(res.stdout.trim().split('\n').pop()!, owner.community.id);
    expect(
      (await t.prisma.webhookPortalLink.findMany({ where: { communityId: owner.community.id } })).map(
        (row) => row.createdById,
      ),
    ).toEqual([admin.id]);

    const moderator = await createUser(t.app);
    await addMember(t.app, owner.community.id, moderator.id, 'MODERATOR');
    const outsider = await createUser(t.app);
    for (const email of [moderator.email, outsider.email]) {
      const refused = await refusal('--community', owner.community.slug, '--email', email);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `Error: ${email} cannot manage the webhooks of ${owner.community.slug}: that needs a member with ` +
          'WEBHOOKS_MANAGE (ADMIN or OWNER) in a community whose plan has webhooks',
      );
    }
    const unknown = await refusal('--community', owner.community.slug, '--email', 'nobody@example.test');
    expect(unknown).toEqual({ code: 1, stderr: 'Error: No user with the e-mail nobody@example.test' });
  });

  it('refuses a community whose plan has no webhooks, and mints nothing', async () => {
    const owner = await memberWithToken(t.app, { plan: 'FREE' });
    const res = await refusal('--community', owner.community.slug);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/cannot manage the webhooks of .*a community whose plan has webhooks$/);
    expect(await t.prisma.webhookPortalLink.count({ where: { communityId: owner.community.id } })).toBe(0);
  });
});
