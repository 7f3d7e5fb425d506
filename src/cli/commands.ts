import type { INestApplicationContext } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { isEmail, validateSync } from 'class-validator';
import { AppError } from '../common/errors/app-error';
import { toErrorResponse } from '../common/errors/error-response';
import { Plan, Role } from '../generated/prisma/enums';
import { ApiKeysService } from '../modules/account/api-keys.service';
import { CommunitiesService } from '../modules/account/communities.service';
import { CreateCommunityDto } from '../modules/account/dto/create-community.dto';
import { UsersService } from '../modules/auth/users.service';
import { CommunityService } from '../modules/community/community.service';
import { MembershipsService } from '../modules/members/memberships.service';
import { TenancyService } from '../modules/tenancy/tenancy.service';
import { MessageExpungeService } from '../modules/webhooks/core/expunge/message-expunge.service';
import { PortalLinksService } from '../modules/webhooks/portal/portal-links.service';
import { checkStoredHeaders } from './check-headers';
import { CliError } from './cli-context';
import { type CommandSpec, optional, type Options, plural, required } from './command-options';
import { REENCRYPT_COMMAND } from './reencrypt-command';

export type { CommandIo, CommandSpec } from './command-options';

export const MIN_PASSWORD_LENGTH = 8;

function email(options: Options): string {
  const value = required(options, 'email');
  if (!isEmail(value)) throw new CliError(`--email: '${value}' is not an e-mail address`);
  return value.toLowerCase();
}

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  const upper = value.toUpperCase() as T;
  if (!allowed.includes(upper)) throw new CliError(`--${name} must be one of ${allowed.join(', ')}`);
  return upper;
}

async function communityOf(app: INestApplicationContext, ref: string) {
  const community = await app.get(TenancyService).findCommunity(ref);
  if (!community) throw new CliError(`No community with id or slug '${ref}'`);
  return community;
}

/** Service errors (409 slug taken, unique e-mail) become one-line CLI errors. */
async function asCliErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof CliError) throw err;
    const { status, body } = toErrorResponse(err);
    if (err instanceof AppError || status < 500) throw new CliError(body.error);
    throw err;
  }
}

export const COMMANDS: Record<string, CommandSpec> = {
  'user:create': {
    usage: 'user:create --email E --password P [--name N] [--platform-admin]',
    description:
      'Creates a user who can log in with that e-mail and password (at least 8 characters). ' +
      '--platform-admin makes a platform admin. An existing e-mail is refused: use user:set-password.',
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      'platform-admin': { type: 'boolean' },
    },
    async run(app, options) {
      const address = email(options);
      const password = required(options, 'password');
      if (password.length < MIN_PASSWORD_LENGTH) {
        throw new CliError(`--password must be at least ${MIN_PASSWORD_LENGTH} characters`);
      }
      const users = app.get(UsersService);
      const user = await asCliErrors(async () => {
        if (await users.findByEmail(address))
          throw new CliError(`A user with the e-mail ${address} already exists`);
        return users.create({
          email: address,
          password,
          name: optional(options, 'name'),
          isPlatformAdmin: options['platform-admin'] === true,
        });
      });
      return [`Created user ${user.email} (id ${user.id})${user.isPlatformAdmin ? ', platform admin' : ''}`];
    },
  },

  'community:create': {
    usage: 'community:create --name N --slug S --owner E [--plan FREE|PRO|ENTERPRISE]',
    description:
      'Creates a community (plan FREE unless --plan) whose OWNER is the existing user E. ' +
      'The slug is 3-63 of a-z, 0-9 and -, not shaped like a uuid, and must be free.',
    options: {
      name: { type: 'string' },
      slug: { type: 'string' },
      owner: { type: 'string' },
      plan: { type: 'string' },
    },
    async run(app, options) {
      const name = required(options, 'name');
      const slug = required(options, 'slug').toLowerCase();
      // the rules of POST /api/admin/sdk/communities, from its DTO
      const problems = validateSync(plainToInstance(CreateCommunityDto, { name, slug })).flatMap((error) =>
        Object.values(error.constraints ?? {}).map((message) => `--${message}`),
      );
      if (problems.length > 0) throw new CliError(problems.join('; '));
      const ownerEmail = required(options, 'owner').toLowerCase();
      const plan = oneOf('plan', optional(options, 'plan'), Object.values(Plan));
      if (!(await app.get(UsersService).findByEmail(ownerEmail)))
        throw new CliError(`No user with the e-mail ${ownerEmail}: create it first with user:create`);
      const community = await asCliErrors(() =>
        app.get(CommunitiesService).create({ name, slug, plan, ownerEmail }),
      );
      return [
        `Created community ${community.slug} (id ${community.id}, plan ${community.plan}); ${ownerEmail} is its OWNER`,
      ];
    },
  },

  'apikey:create': {
    usage: 'apikey:create --community S [--name N]   (S: slug or id; the key is printed once)',
    description:
      'Creates an API key of the community, acting as its first OWNER. The key is printed once: ' +
      'send it as the X-Api-Key header.',
    options: { community: { type: 'string' }, name: { type: 'string' } },
    async run(app, options) {
      const community = await communityOf(app, required(options, 'community'));
      const name = optional(options, 'name') ?? 'cli';
      if (name.length > 100) throw new CliError('--name must be at most 100 characters');
      // A key acts as the member who created it: from the CLI, that is the community's first OWNER.
      const owner = await app.get(MembershipsService).firstOwner(community.id);
      if (!owner) throw new CliError(`Community ${community.slug} has no OWNER to act as`);
      const key = await app.get(ApiKeysService).create(community.id, owner.id, name);
      return [
        `Created API key '${key.name}' (id ${key.id}) for ${community.slug}, acting as ${owner.email}.`,
        'Store it now: it is shown only once. Send it as the X-Api-Key header.',
        key.key,
      ];
    },
  },

  'member:add': {
    usage: 'member:add --community S --email E [--role OWNER|ADMIN|MODERATOR|MEMBER] [--name N]',
    description:
      'Adds E to the community (S: slug or id) with the role (MEMBER by default), or changes the role of ' +
      'a member; N is the display name in that community (the user account is never renamed). ' +
      'A new e-mail gets a user without a password: give one with user:set-password.',
    options: {
      community: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
    },
    async run(app, options) {
      const community = await communityOf(app, required(options, 'community'));
      const address = email(options);
      const role = oneOf('role', optional(options, 'role'), Object.values(Role));
      // The member's display name in this community; the user account itself is never renamed.
      const name = optional(options, 'name');
      if (name !== undefined && name.length > 100)
        throw new CliError('--name must be at most 100 characters');
      const { member, created } = await asCliErrors(() =>
        app.get(MembershipsService).addMember(community.id, { email: address, role, name }),
      );
      return [
        `${created ? 'Added' : 'Updated'} ${member.email} in ${community.slug} as ${member.role} (membership ${member.id})`,
      ];
    },
  },

  'community:verify-domain': {
    usage: 'community:verify-domain --community S',
    description:
      "Activates the community's pending custom domain (S: slug or id) without the DNS TXT check, for an " +
      'operator who verified control another way. A domain active in another community, or one of the ' +
      "service's own hostnames, is still refused.",
    options: { community: { type: 'string' } },
    async run(app, options) {
      const community = await communityOf(app, required(options, 'community'));
      const settings = await asCliErrors(() => app.get(CommunityService).markDomainVerified(community.id));
      return [
        `Verified custom domain ${settings.customDomain} for ${community.slug}: requests with that Host now resolve to it`,
      ];
    },
  },

  'user:set-password': {
    usage: 'user:set-password --email E [--password-stdin]',
    description:
      'Sets the password of an existing user (e.g. one added by member:add), at least 8 characters. ' +
      'Typed at a hidden prompt in a terminal; --password-stdin reads it from standard input instead ' +
      '(echo "$PW" | npm run cli -- user:set-password --email E --password-stdin). ' +
      'Every session of the user ends (logins and webhook-portal sessions); API instances refuse their ' +
      'tokens within a minute (the CLI has no Redis to announce it at once).',
    options: { email: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
    async run(app, options, io) {
      const address = email(options);
      const users = app.get(UsersService);
      const user = await users.findByEmail(address);
      if (!user) throw new CliError(`No user with the e-mail ${address}: create it with user:create`);
      const password = await io.readSecret(
        `New password for ${address}: `,
        options['password-stdin'] === true,
      );
      if (password.length < MIN_PASSWORD_LENGTH) {
        throw new CliError(`The password must be at least ${MIN_PASSWORD_LENGTH} characters`);
      }
      // every session of the user ends with the old password, portal sessions too
      await users.setPassword(user.id, password);
      return [`Password of ${address} set; it can log in now`];
    },
  },

  'portal:link': {
    usage: 'portal:link --community S [--email E]   (S: slug or id)',
    description:
      "Prints a single-use link into the community's webhook portal, as POST " +
      '/api/communities/{communityId}/webhooks/portal-links gives one (docs/api.md#webhook-portal): it opens ' +
      "the portal as E, or without --email as the community's first OWNER, who must hold WEBHOOKS_MANAGE (ADMIN " +
      'or OWNER) in a community whose plan has webhooks. The link starts with PUBLIC_BASE_URL and lasts ' +
      'PORTAL_LINK_TTL (10 minutes by default).',
    options: { community: { type: 'string' }, email: { type: 'string' } },
    async run(app, options) {
      const community = await communityOf(app, required(options, 'community'));
      const member =
        options.email === undefined
          ? await app.get(MembershipsService).firstOwner(community.id)
          : await app.get(UsersService).findByEmail(email(options));
      if (!member)
        throw new CliError(
          options.email === undefined
            ? `Community ${community.slug} has no OWNER to act as: name a member with --email`
            : `No user with the e-mail ${email(options)}`,
        );
      const links = app.get(PortalLinksService);
      // the rule of the portal's own community picker, so the link opens a portal that works
      if (!(await links.manageableCommunities(member.id)).some(({ id }) => id === community.id))
        throw new CliError(
          `${member.email} cannot manage the webhooks of ${community.slug}: that needs a member with ` +
            'WEBHOOKS_MANAGE (ADMIN or OWNER) in a community whose plan has webhooks',
        );
      const link = await links.create(community.id, member.id);
      return [
        `Webhook portal of ${community.slug} as ${member.email}; single use, until ${link.expiresAt.toISOString()}:`,
        link.url,
      ];
    },
  },

  'secrets:reencrypt': REENCRYPT_COMMAND,
  'webhooks:check-headers': {
    usage: 'webhooks:check-headers [--community C]',
    description:
      "Reads every webhook endpoint's stored custom headers (only the community C's with --community: slug or id) " +
      'and prints each header that breaks the rules a create or PATCH checks today, as its endpoint id, its ' +
      "community and the header's name, never its value. Exits 1 when it finds any: such an endpoint's deliveries " +
      'fail until its headers are replaced. Changes nothing. docs/operations.md#check-stored-custom-headers',
    options: { community: { type: 'string' } },
    async run(app, options, io) {
      const ref = optional(options, 'community');
      const community = ref === undefined ? null : await communityOf(app, ref);
      const scope = community ? ` of ${community.slug}` : '';
      const { checked, atFault } = await checkStoredHeaders(app, community, io.progress);
      if (atFault > 0)
        throw new CliError(
          `${atFault} of ${plural(checked, 'endpoint')} with custom headers${scope} cannot send them as stored ` +
            '(listed above): replace their headers with PATCH /api/communities/{communityId}/webhooks/{webhookId}',
        );
      return [
        `Checked ${plural(checked, 'endpoint')} with custom headers${scope}: every header can be sent.`,
      ];
    },
  },
  'webhooks:expunge': {
    usage: 'webhooks:expunge --community C --before DATE',
    description:
      'Erases the content of every message of the community raised before DATE (ISO 8601, e.g. 2026-01-01 or ' +
      "2026-01-01T12:00:00Z): its event body and every attempt's response body, as the API route " +
      'DELETE /api/communities/{communityId}/webhooks/messages/{messageId}/content does for one. ' +
      'Batches of 500, each its own transaction, oldest first; Ctrl-C stops after the batch in hand, and running ' +
      'it again continues. docs/api.md#expunge-a-messages-content',
    options: { community: { type: 'string' }, before: { type: 'string' } },
    stoppable: true,
    async run(app, options, io) {
      const community = await communityOf(app, required(options, 'community'));
      const text = required(options, 'before');
      const before = new Date(text);
      if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(before.getTime()))
        throw new CliError('--before must be an ISO 8601 date or date-time, e.g. 2026-01-01');
      const done = await app.get(MessageExpungeService).expungeRaisedBefore(community.id, before, {
        stop: io.stop,
        progress: (messages, cancelled) =>
          io.progress(
            `${plural(messages, 'message')} expunged so far (${cancelled} waiting attempts cancelled)`,
          ),
      });
      const summary =
        `${plural(done.messages, 'message')} of ${community.slug} raised before ${before.toISOString()} expunged; ` +
        `${plural(done.attemptsCancelled, 'waiting attempt')} cancelled.`;
      return done.stopped ? [`Stopped: ${summary} Run the command again to continue.`] : [summary];
    },
  },
};
