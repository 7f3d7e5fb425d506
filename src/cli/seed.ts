import type { INestApplicationContext } from '@nestjs/common';
import type { Plan, Role } from '../generated/prisma/enums';
import { ApiKeysService } from '../modules/admin/api-keys.service';
import { PasswordService } from '../modules/auth/password.service';
import { PrismaService } from '../prisma/prisma.service';
import { CliError, createCliContext } from './cli-context';

/** Every demo login uses this password: the demo is for trying the service locally, never production. */
export const DEMO_PASSWORD = 'demo-password-123';
export const DEMO_DOMAIN = 'demo.test';
const DEMO_PLANS: Plan[] = ['FREE', 'PRO', 'ENTERPRISE'];
const DEMO_ROLES: Role[] = ['OWNER', 'ADMIN', 'MODERATOR', 'MEMBER'];

export interface SeedResult {
  password: string;
  platformAdmin: string;
  communities: { id: string; slug: string; plan: Plan }[];
  /** each role's login; the same people are members of every demo community with that role */
  logins: { email: string; role: Role }[];
  apiKey: { key: string; community: string; actsAs: string };
}

const roleEmail = (role: Role) => `${role.toLowerCase()}@${DEMO_DOMAIN}`;

/**
 * Writes the demo: a community per plan (demo-free, demo-pro, demo-enterprise), one user per role
 * who is a member of each with that role, a platform admin, some tweets, tasks, comments and likes,
 * and one API key of demo-pro. Rows are inserted directly in one transaction: the seed is the
 * starting state, so no outbox events are written for it (nothing could subscribe yet).
 * `force` first deletes the demo communities and users, so a seed can be redone.
 */
export async function seedDemo(
  app: INestApplicationContext,
  options: { force?: boolean } = {},
): Promise<SeedResult> {
  const prisma = app.get(PrismaService);
  const passwordHash = await app.get(PasswordService).hash(DEMO_PASSWORD);
  const demoEmails = [...DEMO_ROLES.map(roleEmail), `platform-admin@${DEMO_DOMAIN}`];
  const demoSlugs = DEMO_PLANS.map((plan) => `demo-${plan.toLowerCase()}`);

  const result = await prisma.$transaction(
    async (tx) => {
      if (options.force) {
        // The community's cascade takes its content, comments and likes with it.
        await tx.community.deleteMany({ where: { slug: { in: demoSlugs } } });
        await tx.user.deleteMany({ where: { email: { in: demoEmails } } });
      }
      const users: Record<Role, { id: string; email: string; name: string }> = {} as never;
      for (const role of DEMO_ROLES) {
        users[role] = await tx.user.create({
          data: { email: roleEmail(role), name: `Demo ${role.toLowerCase()}`, passwordHash },
          select: { id: true, email: true, name: true },
        });
      }
      const admin = await tx.user.create({
        data: {
          email: `platform-admin@${DEMO_DOMAIN}`,
          name: 'Demo platform admin',
          passwordHash,
          isPlatformAdmin: true,
        },
        select: { email: true },
      });

      const communities = [];
      for (const plan of DEMO_PLANS) {
        const slug = `demo-${plan.toLowerCase()}`;
        const community = await tx.community.create({
          data: {
            slug,
            plan,
            name: `Demo ${plan.charAt(0)}${plan.slice(1).toLowerCase()}`,
            description: `A demo community on the ${plan} plan`,
          },
          select: { id: true, slug: true, plan: true },
        });
        communities.push(community);
        // Joined in role order, so each user's first-joined (default) community is demo-free.
        await tx.membership.createMany({
          data: DEMO_ROLES.map((role, i) => ({
            communityId: community.id,
            userId: users[role].id,
            role,
            // Names shown in a community belong to the membership; the demo people go by their own.
            displayName: users[role].name,
            joinedAt: new Date(Date.UTC(2026, 0, 1 + DEMO_PLANS.indexOf(plan), 0, i)),
          })),
        });
        const tweets: { id: string }[] = [];
        for (const [i, author] of (['OWNER', 'MEMBER', 'MODERATOR'] as Role[]).entries()) {
          tweets.push(
            await tx.tweet.create({
              data: {
                communityId: community.id,
                authorId: users[author].id,
                content: `Tweet ${i + 1} in ${slug} by the ${author.toLowerCase()}`,
              },
              select: { id: true },
            }),
          );
        }
        const task = await tx.task.create({
          data: {
            communityId: community.id,
            createdById: users.OWNER.id,
            title: `Welcome task of ${slug}`,
            description: 'Introduce yourself in a comment',
            dueAt: new Date(Date.UTC(2027, 0, 31)),
          },
          select: { id: true },
        });
        await tx.task.create({
          data: {
            communityId: community.id,
            createdById: users.ADMIN.id,
            title: 'Read the rules',
            status: 'DONE',
          },
        });
        await tx.comment.createMany({
          data: [
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
        });
        await tx.like.createMany({
          data: [users.MEMBER, users.MODERATOR].map((u) => ({
            communityId: community.id,
            parentType: 'tweets' as const,
            parentId: tweets[0].id,
            userId: u.id,
          })),
        });
      }
      return { users, admin, communities };
    },
    { timeout: 30_000 },
  );

  const pro = result.communities.find((c) => c.plan === 'PRO')!;
  const key = await app.get(ApiKeysService).create(pro.id, result.users.OWNER.id, 'demo key');
  return {
    password: DEMO_PASSWORD,
    platformAdmin: result.admin.email,
    communities: result.communities,
    logins: DEMO_ROLES.map((role) => ({ email: result.users[role].email, role })),
    apiKey: { key: key.key, community: pro.slug, actsAs: result.users.OWNER.email },
  };
}

/** Whether the database holds any community (the seed only fills an empty database). */
export async function hasCommunities(app: INestApplicationContext): Promise<boolean> {
  return (await app.get(PrismaService).community.findFirst({ select: { id: true } })) !== null;
}

export function formatSeedReport(seed: SeedResult): string[] {
  return [
    'Demo data:',
    `  communities: ${seed.communities.map((c) => `${c.slug} (${c.plan})`).join(', ')}`,
    `  logins (password "${seed.password}"; each is a member of every demo community with this role):`,
    ...seed.logins.map((l) => `    ${l.email.padEnd(24)} ${l.role}`),
    `    ${seed.platformAdmin.padEnd(24)} platform admin (member of none)`,
    `  API key of ${seed.apiKey.community} (acts as ${seed.apiKey.actsAs}; shown only now), send as X-Api-Key:`,
    `    ${seed.apiKey.key}`,
  ];
}

/** Seeds unless the database already has a community (or `force`); returns null when it skipped. */
export async function seedIfEmpty(options: { force?: boolean } = {}): Promise<SeedResult | null> {
  const app = await createCliContext();
  try {
    if (!options.force && (await hasCommunities(app))) return null;
    return await seedDemo(app, options);
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
    process.stdout.write(`${formatSeedReport(seed).join('\n')}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`Error: ${err instanceof CliError ? err.message : (err as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) void main().then((code) => process.exit(code));
