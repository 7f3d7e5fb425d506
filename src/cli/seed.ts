import type { INestApplicationContext } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import type { Plan, Role } from '../generated/prisma/enums';
import { ApiKeysService } from '../modules/account/api-keys.service';
import { CommunitiesService } from '../modules/account/communities.service';
import { CredentialsService } from '../modules/auth/credentials.service';
import { PasswordService } from '../modules/auth/password.service';
import { UsersStore } from '../modules/auth/users.store';
import { CommunitiesStore } from '../modules/community/communities.store';
import { CommentsStore } from '../modules/content/comments.store';
import { LikesStore } from '../modules/content/likes.store';
import { TasksStore } from '../modules/content/tasks.store';
import { TweetsStore } from '../modules/content/tweets.store';
import { SUBSCRIBABLE_EVENTS } from '../modules/events/event-catalog';
import { MembershipsService } from '../modules/members/memberships.service';
import { MembershipsStore } from '../modules/members/memberships.store';
import { WebhookSecretsService } from '../modules/webhooks/core/secrets/webhook-secrets.service';
import { WebhookEndpointsStore } from '../modules/webhooks/core/webhook-endpoints.store';
import { PrismaService } from '../prisma/prisma.service';
import { CliError, createCliContext } from './cli-context';
import {
  databaseOf,
  DEMO_RECEIVER_URL,
  DemoState,
  demoStatePath,
  readDemoState,
  writeDemoState,
} from './demo-state';

/** Every demo login uses this password: the demo is for trying the service locally, never production. */
export const DEMO_PASSWORD = 'demo-password-123';
export const DEMO_DOMAIN = 'demo.test';
const DEMO_PLANS: Plan[] = ['FREE', 'PRO', 'ENTERPRISE'];
const DEMO_ROLES: Role[] = ['OWNER', 'ADMIN', 'MODERATOR', 'MEMBER'];
const DEMO_SLUGS = DEMO_PLANS.map((plan) => `demo-${plan.toLowerCase()}`);

export interface SeedResult {
  password: string;
  platformAdmin: string;
  communities: { id: string; slug: string; plan: Plan }[];
  /** each role's login; the same people are members of every demo community with that role */
  logins: { email: string; role: Role }[];
  apiKey: { key: string; community: string; actsAs: string };
  /** outside production: demo-pro's endpoint at the local receiver (`npm run receiver`) */
  endpoint?: { id: string; communityId: string; url: string; events: string[]; secret: string };
}

/** The description that marks the demo's receiver endpoint (so a restart can find it again). */
export const DEMO_ENDPOINT_DESCRIPTION = 'Demo: the local receiver (npm run receiver)';

const roleEmail = (role: Role) => `${role.toLowerCase()}@${DEMO_DOMAIN}`;

/**
 * Writes the demo: a community per plan (demo-free, demo-pro, demo-enterprise), one user per role
 * who is a member of each with that role, a platform admin, some tweets, tasks, comments and likes,
 * and one API key of demo-pro. Rows are inserted through their stores in one transaction, not
 * through the services: the seed is the starting state, so no outbox events are written for it
 * (nothing could subscribe yet).
 * `force` first deletes the demo communities and users, so a seed can be redone.
 */
export async function seedDemo(
  app: INestApplicationContext,
  options: { force?: boolean; receiverUrl?: string } = {},
): Promise<SeedResult> {
  const prisma = app.get(PrismaService);
  const passwordHash = await app.get(PasswordService).hash(DEMO_PASSWORD);
  const demoEmails = [...DEMO_ROLES.map(roleEmail), `platform-admin@${DEMO_DOMAIN}`];
  const usersStore = app.get(UsersStore);
  const communitiesStore = app.get(CommunitiesStore);
  const membershipsStore = app.get(MembershipsStore);
  const [tweetsStore, tasksStore, commentsStore, likesStore] = [
    app.get(TweetsStore),
    app.get(TasksStore),
    app.get(CommentsStore),
    app.get(LikesStore),
  ];

  const result = await prisma.$transaction(
    async (tx) => {
      if (options.force) {
        // The community's cascade takes its content, comments and likes with it.
        await communitiesStore.deleteBySlugs(tx, DEMO_SLUGS);
        await usersStore.deleteByEmails(tx, demoEmails);
      }
      const users: Record<Role, { id: string; email: string; name: string }> = {} as never;
      for (const role of DEMO_ROLES) {
        const { id, email, name } = await usersStore.create(
          {
            email: roleEmail(role),
            name: `Demo ${role.toLowerCase()}`,
            passwordHash,
            isPlatformAdmin: false,
          },
          tx,
        );
        users[role] = { id, email, name };
      }
      const admin = await usersStore.create(
        {
          email: `platform-admin@${DEMO_DOMAIN}`,
          name: 'Demo platform admin',
          passwordHash,
          isPlatformAdmin: true,
        },
        tx,
      );

      const communities = [];
      for (const plan of DEMO_PLANS) {
        const slug = `demo-${plan.toLowerCase()}`;
        const created = await communitiesStore.create(tx, {
          slug,
          plan,
          name: `Demo ${plan.charAt(0)}${plan.slice(1).toLowerCase()}`,
          description: `A demo community on the ${plan} plan`,
        });
        const community = { id: created.id, slug: created.slug, plan: created.plan };
        communities.push(community);
        // Joined in role order, so each user's first-joined (default) community is demo-free.
        await membershipsStore.createMany(
          tx,
          DEMO_ROLES.map((role, i) => ({
            communityId: community.id,
            userId: users[role].id,
            role,
            // Names shown in a community belong to the membership; the demo people go by their own.
            displayName: users[role].name,
            joinedAt: new Date(Date.UTC(2026, 0, 1 + DEMO_PLANS.indexOf(plan), 0, i)),
          })),
        );
        const tweets: { id: string }[] = [];
        for (const [i, author] of (['OWNER', 'MEMBER', 'MODERATOR'] as Role[]).entries()) {
          tweets.push(
            await tweetsStore.create(tx, {
              communityId: community.id,
              authorId: users[author].id,
              content: `Tweet ${i + 1} in ${slug} by the ${author.toLowerCase()}`,
            }),
          );
        }
        const task = await tasksStore.create(
          {
            communityId: community.id,
            createdById: users.OWNER.id,
            title: `Welcome task of ${slug}`,
            description: 'Introduce yourself in a comment',
            dueAt: new Date(Date.UTC(2027, 0, 31)),
          },
          tx,
        );
        await tasksStore.create(
          { communityId: community.id, createdById: users.ADMIN.id, title: 'Read the rules', status: 'DONE' },
          tx,
        );
        await commentsStore.createMany(
          [
            {
              communityId: community.id,
              parentType: 'tweets',
              parentId: tweets[0].id,
              authorId: users.MEMBER.id,
              content: 'Nice one!',
            },
            {
              communityId: community.id,
              parentType: 'tweets',
              parentId: tweets[0].id,
              authorId: users.ADMIN.id,
              content: 'Agreed.',
            },
            {
              communityId: community.id,
              parentType: 'tasks',
              parentId: task.id,
              authorId: users.MEMBER.id,
              content: 'Hello, I am the demo member.',
            },
          ],
          tx,
        );
        await likesStore.createMany(
          [users.MEMBER, users.MODERATOR].map((u) => ({
            communityId: community.id,
            parentType: 'tweets' as const,
            parentId: tweets[0].id,
            userId: u.id,
          })),
          tx,
        );
      }
      return { users, admin: { email: admin.email }, communities };
    },
    { timeout: 30_000 },
  );

  const pro = result.communities.find((c) => c.plan === 'PRO')!;
  const key = await app.get(ApiKeysService).create(pro.id, result.users.OWNER.id, 'demo key');
  const endpoint = app.get(AppConfig).isProduction
    ? undefined
    : await createDemoEndpoint(app, pro.id, options.receiverUrl ?? DEMO_RECEIVER_URL);
  return {
    password: DEMO_PASSWORD,
    platformAdmin: result.admin.email,
    communities: result.communities,
    logins: DEMO_ROLES.map((role) => ({ email: result.users[role].email, role })),
    apiKey: { key: key.key, community: pro.slug, actsAs: result.users.OWNER.email },
    endpoint,
  };
}

/**
 * demo-pro's endpoint at the local receiver, subscribed to every event. Written directly (the seed
 * is the starting state): an http target on 127.0.0.1 is delivered to only while
 * WEBHOOK_ALLOW_INSECURE_TARGETS=true, which `npm start` sets in development.
 */
async function createDemoEndpoint(app: INestApplicationContext, communityId: string, url: string) {
  const events = [...SUBSCRIBABLE_EVENTS];
  return app.get(PrismaService).$transaction(async (tx) => {
    const endpoint = await app
      .get(WebhookEndpointsStore)
      .create(tx, communityId, { url, events, description: DEMO_ENDPOINT_DESCRIPTION });
    const secret = await app.get(WebhookSecretsService).create(tx, communityId, endpoint.id);
    return { id: endpoint.id, communityId, url, events, secret };
  });
}

/**
 * Writes the state file from the database, the one place a DemoState is built: after a seed (with
 * the key it just minted) and on every `npm start`. Community ids, the endpoint and its live
 * secrets (decrypted: they may have been rotated) are read again; the API key (the seed's, else the
 * file's) is kept while it still works, else a new one is minted (a key is never readable back).
 * Returns null when the database has no demo.
 */
export async function refreshDemoState(
  app: INestApplicationContext,
  path: string,
  databaseUrl: string,
  options: { apiKey?: string } = {},
): Promise<DemoState | null> {
  const communities = await app.get(CommunitiesService).findBySlugs(DEMO_SLUGS);
  const pro = communities.find((c) => c.slug === 'demo-pro');
  if (!pro) return null;
  const owner = await app.get(MembershipsService).firstOwner(pro.id);
  if (!owner) return null;

  const candidate = options.apiKey ?? readDemoState(path, databaseUrl)?.apiKey.key;
  const works =
    candidate !== undefined &&
    (await app.get(CredentialsService).liveApiKey(candidate))?.communityId === pro.id;
  const key = works ? candidate : (await app.get(ApiKeysService).create(pro.id, owner.id, 'demo key')).key;
  const apiKey = { key, communityId: pro.id, community: pro.slug, actsAs: owner.email };

  let endpoint: DemoState['endpoint'];
  if (!app.get(AppConfig).isProduction) {
    // the oldest endpoint the seed made (the list is newest first)
    const row = (await app.get(WebhookEndpointsStore).list(pro.id))
      .filter((candidate) => candidate.description === DEMO_ENDPOINT_DESCRIPTION)
      .at(-1);
    if (row) {
      const secrets = await app.get(WebhookSecretsService).liveSecrets(pro.id, row.id);
      endpoint = { id: row.id, communityId: pro.id, url: row.url, events: row.events, secrets };
    } else {
      const { secret, ...created } = await createDemoEndpoint(app, pro.id, DEMO_RECEIVER_URL);
      endpoint = { ...created, secrets: [secret] };
    }
  }

  const state: DemoState = {
    database: databaseOf(databaseUrl),
    password: DEMO_PASSWORD,
    communities,
    logins: DEMO_ROLES.map((role) => ({ email: roleEmail(role), role })),
    platformAdmin: `platform-admin@${DEMO_DOMAIN}`,
    defaultCommunity: communities[0].slug,
    apiKey,
    endpoint,
    writtenAt: new Date().toISOString(),
  };
  writeDemoState(path, state);
  return state;
}

export function formatSeedReport(seed: SeedResult): string[] {
  return [
    'Demo data:',
    `  communities: ${seed.communities.map((c) => `${c.slug} (${c.plan})`).join(', ')}`,
    `  logins (password "${seed.password}"; each is a member of every demo community with this role):`,
    ...seed.logins.map((l) => `    ${l.email.padEnd(24)} ${l.role}`),
    `    ${seed.platformAdmin.padEnd(24)} platform admin (member of none)`,
    `  API key of ${seed.apiKey.community} (acts as ${seed.apiKey.actsAs}), send as X-Api-Key:`,
    `    ${seed.apiKey.key}`,
    ...(seed.endpoint
      ? [
          `  webhook endpoint of ${seed.apiKey.community}: ${seed.endpoint.url} (every event; npm run receiver listens there)`,
          `    signing secret ${seed.endpoint.secret}`,
        ]
      : []),
  ];
}

/**
 * Seeds unless the database already has a community (or `force`); returns null when it skipped.
 * A fresh seed is written to the state file (demoStatePath) so later starts can show it again.
 */
export async function seedIfEmpty(options: { force?: boolean } = {}): Promise<SeedResult | null> {
  const app = await createCliContext();
  try {
    if (!options.force && (await app.get(CommunitiesService).anyExists())) return null;
    const seed = await seedDemo(app, options);
    await refreshDemoState(app, demoStatePath(), app.get(AppConfig).DATABASE_URL, {
      apiKey: seed.apiKey.key,
    });
    return seed;
  } finally {
    await app.close();
  }
}

/**
 * What `npm start` runs before the API and the worker: seeds an empty database, then brings the
 * state file up to date (new ids after a reseed, rotated secrets, a new key when the old one is
 * gone). Returns the state for the banner (null: no demo in this database) and whether it seeded.
 */
export async function prepareDemo(): Promise<{
  seeded: boolean;
  state: DemoState | null;
  statePath: string;
}> {
  const statePath = demoStatePath();
  const app = await createCliContext();
  try {
    const seeded = !(await app.get(CommunitiesService).anyExists());
    const seed = seeded ? await seedDemo(app) : undefined;
    const state = await refreshDemoState(app, statePath, app.get(AppConfig).DATABASE_URL, {
      apiKey: seed?.apiKey.key,
    });
    return { seeded, state, statePath };
  } finally {
    await app.close();
  }
}

async function main(): Promise<number> {
  const force = process.argv.includes('--force');
  const unknown = process.argv.slice(2).filter((a) => a !== '--force');
  if (unknown.length > 0) {
    process.stderr.write(`Unknown argument(s): ${unknown.join(' ')}\nUsage: npm run db:seed [-- --force]\n`);
    return 1;
  }
  try {
    const seed = await seedIfEmpty({ force });
    if (!seed) {
      process.stdout.write(
        'The database already has communities: nothing seeded (use --force to redo the demo).\n',
      );
      return 0;
    }
    process.stdout.write(`${formatSeedReport(seed).join('\n')}\n  (kept in ${demoStatePath()})\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`Error: ${err instanceof CliError ? err.message : (err as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) void main().then((code) => process.exit(code));
