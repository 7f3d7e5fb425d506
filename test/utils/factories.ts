import { randomBytes } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Plan, Role } from '../../src/generated/prisma/enums';
import { PasswordService } from '../../src/modules/auth/password.service';
import { ApiKeysService } from '../../src/modules/account/api-keys.service';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service';
import { PrismaService } from '../../src/prisma/prisma.service';
import { call, CallOptions } from './http';

export const TEST_PASSWORD = 'correct horse battery staple';

/** What the row factories need of an app: its providers (an HTTP app, or a unit spec's compiled module). */
type Providers = Pick<INestApplicationContext, 'get'>;

/** A short unique suffix, so tests never depend on each other's rows. */
export function unique(prefix = 'x'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

let cachedHash: Promise<string> | undefined;

export async function createUser(
  app: Providers,
  overrides: { email?: string; name?: string; isPlatformAdmin?: boolean } = {},
) {
  cachedHash ??= app.get(PasswordService).hash(TEST_PASSWORD);
  return app.get(PrismaService).user.create({
    data: {
      email: (overrides.email ?? `${unique('user')}@example.test`).toLowerCase(),
      name: overrides.name ?? 'Test User',
      passwordHash: await cachedHash,
      isPlatformAdmin: overrides.isPlatformAdmin ?? false,
    },
  });
}

export async function createCommunity(
  app: Providers,
  overrides: {
    plan?: Plan;
    slug?: string;
    customDomain?: string;
    featureOverrides?: Record<string, boolean>;
  } = {},
) {
  const slug = overrides.slug ?? unique('c');
  return app.get(PrismaService).community.create({
    data: {
      slug,
      name: `Community ${slug}`,
      plan: overrides.plan ?? 'FREE',
      customDomain: overrides.customDomain,
      featureOverrides: overrides.featureOverrides ?? {},
    },
  });
}

export async function addMember(app: Providers, communityId: string, userId: string, role: Role = 'MEMBER') {
  return app.get(PrismaService).membership.create({ data: { communityId, userId, role } });
}

export async function login(app: NestFastifyApplication, email: string, communityId?: string) {
  const res = await call(app, 'POST', '/api/auth/login', {
    body: { email, password: TEST_PASSWORD, ...(communityId ? { communityId } : {}) },
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { accessToken: string; refreshToken: string; expiresIn: number };
}

/**
 * A community on `plan` with one member of `role`, logged in: the usual starting point of a test.
 */
export async function memberWithToken(
  app: NestFastifyApplication,
  options: { plan?: Plan; role?: Role; communityId?: string } = {},
) {
  const community = options.communityId
    ? await app.get(PrismaService).community.findUniqueOrThrow({ where: { id: options.communityId } })
    : await createCommunity(app, { plan: options.plan });
  const user = await createUser(app);
  const membership = await addMember(app, community.id, user.id, options.role ?? 'OWNER');
  const tokens = await login(app, user.email, community.id);
  return { community, user, membership, token: tokens.accessToken, tokens };
}

/** An API key of the community, created by `userId` (who must be a member). */
export async function createApiKey(app: Providers, communityId: string, userId: string, scopes?: string[]) {
  return app.get(ApiKeysService).create(communityId, userId, unique('key'), scopes);
}

/** A community on `plan` with one member of `role` holding both credentials: a login token and an API key. */
export async function memberWithCredentials(
  app: NestFastifyApplication,
  options: { plan?: Plan; role?: Role; communityId?: string } = {},
) {
  const member = await memberWithToken(app, options);
  const { key } = await createApiKey(app, member.community.id, member.user.id);
  return { ...member, apiKey: key };
}

export type CredentialKind = 'jwt' | 'apiKey';
export const CREDENTIAL_KINDS: CredentialKind[] = ['jwt', 'apiKey'];

/** The call options that authenticate as `member` with one kind of credential. */
export function credentialsOf(
  member: { token: string; apiKey: string },
  kind: CredentialKind,
): Pick<CallOptions, 'token' | 'apiKey'> {
  return kind === 'jwt' ? { token: member.token } : { apiKey: member.apiKey };
}

export interface Caller {
  userId: string;
  communityId: string;
  /** the call options that authenticate as this member with the chosen kind */
  auth: Pick<CallOptions, 'token' | 'apiKey'>;
}

/** A member of `role` (in a new community unless communityId is given), calling with `kind`. */
export async function memberCaller(
  app: NestFastifyApplication,
  kind: CredentialKind,
  options: { plan?: Plan; role?: Role; communityId?: string } = {},
): Promise<Caller> {
  const member = await memberWithCredentials(app, options);
  return { userId: member.user.id, communityId: member.community.id, auth: credentialsOf(member, kind) };
}

/** The outbox rows of one community and event type, oldest first. */
export function outboxOf(app: Providers, communityId: string, eventType: string) {
  return app.get(PrismaService).outboxEvent.findMany({
    where: { communityId, eventType },
    orderBy: { id: 'asc' },
  });
}

/**
 * A test that changes a community or its memberships straight in the database (no route does: a
 * plan change, a member leaving) announces it as the services announce theirs after a commit, so
 * every API instance's in-process caches drop what they hold (TenancyService).
 */
export async function announceCommunityChange(app: NestFastifyApplication, communityId: string) {
  const tenancy = app.get(TenancyService);
  await tenancy.communityChanged(communityId);
  await tenancy.membershipChanged(communityId);
}

/**
 * An OWNER's API key that instance `b` has accepted twice (so it now answers it from its cache,
 * which only the invalidation bus can correct), then revoked through instance `a`. Returns `b`'s
 * tweets call with that key, for the test to wait until `b` refuses it.
 */
export async function keyCachedOnBRevokedOnA(a: NestFastifyApplication, b: NestFastifyApplication) {
  const owner = await memberWithCredentials(a, { plan: 'PRO', role: 'OWNER' });
  const tweetsOnB = () => call(b, 'GET', '/api/sdk/tweets', { apiKey: owner.apiKey });
  expect((await tweetsOnB()).status).toBe(200);
  expect((await tweetsOnB()).status).toBe(200);
  const keys = await call(a, 'GET', '/api/admin/sdk/api-keys', { token: owner.token });
  const key = (keys.body.data as { id: string }[])[0];
  const revoked = await call(a, 'DELETE', `/api/admin/sdk/api-keys/${key.id}`, { token: owner.token });
  expect(revoked.status).toBe(200);
  return tweetsOnB;
}
