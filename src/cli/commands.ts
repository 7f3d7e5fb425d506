import type { INestApplicationContext } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { isEmail, validateSync } from 'class-validator';
import type { ReencryptedBatch, SecretsUnderKey } from '../common/crypto/secret-cipher';
import { AppError } from '../common/errors/app-error';
import { toErrorResponse } from '../common/errors/error-response';
import { Plan, Role } from '../generated/prisma/enums';
import { ApiKeysService } from '../modules/account/api-keys.service';
import { CommunitiesService } from '../modules/account/communities.service';
import { CreateCommunityDto } from '../modules/account/dto/create-community.dto';
import { UsersService } from '../modules/auth/users.service';
import { CommunityService } from '../modules/community/community.service';
import { MembershipsService } from '../modules/members/memberships.service';
import { type AnswersUnderKeys, SealedAnswers } from '../modules/idempotency/sealed-answers';
import { WebhookSecretsService } from '../modules/webhooks/core/secrets/webhook-secrets.service';
import { TenancyService } from '../modules/tenancy/tenancy.service';
import { MessageExpungeService } from '../modules/webhooks/core/expunge/message-expunge.service';
import { checkStoredHeaders } from './check-headers';
import { CliError } from './cli-context';

export const MIN_PASSWORD_LENGTH = 8;

type Options = Record<string, string | boolean | undefined>;

/** What a command may ask of the terminal besides its options (main.ts provides it). */
export interface CommandIo {
  /** a secret typed at a hidden prompt (interactive), or the whole of stdin with --password-stdin */
  readSecret: (prompt: string, fromStdin: boolean) => Promise<string>;
  /** prints a line at once, for a long command's progress */
  progress: (line: string) => void;
  /** aborted when the user asks a stoppable command to stop (Ctrl-C) */
  stop: AbortSignal;
}

export interface CommandSpec {
  usage: string;
  /** shown by `<command> --help`; the option names are listed from `options` */
  description?: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  /** the first Ctrl-C aborts `io.stop` instead of ending the process: the command stops cleanly */
  stoppable?: boolean;
  run: (app: INestApplicationContext, options: Options, io: CommandIo) => Promise<string[]>;
}

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new CliError(`--${name} is required`);
  return value.trim();
}

function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A whole number of at least 1 given as --name, or the default when absent. */
function positiveInt(options: Options, name: string, fallback: number): number;
function positiveInt(options: Options, name: string, fallback?: undefined): number | undefined;
function positiveInt(options: Options, name: string, fallback?: number): number | undefined {
  const value = optional(options, name);
  if (value === undefined) return fallback;
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new CliError(`--${name} must be a whole number of at least 1`);
  return Number(value);
}

type ReencryptedFailure = ReencryptedBatch['failed'][number];

const plural = (count: number, noun: string) =>
  `${count} ${noun}${count === 1 ? '' : noun.endsWith('h') ? 'es' : 's'}`;

const STANDING: Record<SecretsUnderKey['standing'], string> = {
  current: 'newest, encrypts',
  older: 'older, decrypts',
  unknown: 'NOT in the ring: cannot be decrypted',
};

function keyCountLines(counts: SecretsUnderKey[], noun: string): string[] {
  return counts.map(
    ({ keyId, count, standing }) => `  ${keyId} (${STANDING[standing]}): ${plural(count, noun)}`,
  );
}

function answerCountLines(counts: AnswersUnderKeys): string[] {
  const lines = keyCountLines(counts.byKey, 'answer');
  if (counts.inClear > 0)
    lines.push(`  in clear (kept before answers were sealed): ${plural(counts.inClear, 'answer')}`);
  return lines;
}

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

  'secrets:reencrypt': {
    usage: 'secrets:reencrypt [--batch-size N] [--max-batches M] [--dry-run]',
    description:
      "Re-encrypts every stored webhook signing secret, then every endpoint's custom headers, then every answer kept " +
      'under an Idempotency-Key (sealing those kept in clear before answers were sealed), under the newest key of ' +
      'WEBHOOK_SECRET_ENCRYPTION_KEY (the first of the ring), N values per short transaction (default 100), printing ' +
      'progress after each batch. The API and the worker keep running meanwhile. Stop it with Ctrl-C (the batch in ' +
      'hand finishes) or --max-batches M, and run it again to continue. It ends with how many secrets and answers ' +
      'remain under older keys: at 0, the older keys can be removed from the ring. --dry-run only counts them under ' +
      'each key. Steps: docs/operations.md, "Rotate the encryption key".',
    options: {
      'batch-size': { type: 'string' },
      'max-batches': { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
    stoppable: true,
    async run(app, options, io) {
      const batchSize = positiveInt(options, 'batch-size', 100);
      if (batchSize > 10_000) throw new CliError('--batch-size must be at most 10000');
      const maxBatches = positiveInt(options, 'max-batches');
      const secrets = app.get(WebhookSecretsService);
      const answers = app.get(SealedAnswers);
      const census = async () => [
        'Stored webhook secrets by encryption key:',
        ...keyCountLines(await secrets.countByKey(), 'secret'),
        'Answers kept under Idempotency-Keys by encryption key:',
        ...answerCountLines(await answers.countByKey()),
      ];
      for (const line of await census()) io.progress(line);
      if (options['dry-run'] === true) {
        const remain = await secrets.countNotUnderCurrentKey();
        const remainAnswers = await answers.countNotUnderCurrentKey();
        return [
          `Dry run: nothing changed; ${plural(remain, 'secret')} not under the newest key, and ` +
            `${plural(remainAnswers, 'Idempotency-Key answer')} in clear or under older keys`,
        ];
      }

      // the secrets first (skipping those that would not decrypt), then the answers, in id order
      const failed: (ReencryptedFailure & { what: string })[] = [];
      let secretsLeft = true;
      let answersAfter: string | null = '';
      const nextBatch = async (): Promise<ReencryptedBatch | null> => {
        if (secretsLeft) {
          const skip = failed.filter((f) => f.what === 'secret').map((f) => f.id);
          const batch = await secrets.reencryptBatch(batchSize, skip);
          failed.push(...batch.failed.map((f) => ({ ...f, what: 'secret' })));
          if (batch.moved > 0 || batch.failed.length > 0) return batch;
          secretsLeft = false;
        }
        if (answersAfter === null) return null;
        const batch = await answers.reencryptBatch(batchSize, answersAfter);
        answersAfter = batch.last;
        failed.push(...batch.failed.map((f) => ({ ...f, what: 'Idempotency-Key answer' })));
        return batch.last === null ? null : batch;
      };

      let batches = 0;
      let moved = 0;
      let stoppedBy: string | undefined;
      for (;;) {
        if (io.stop.aborted) stoppedBy = 'interrupted';
        else if (maxBatches !== undefined && batches >= maxBatches) stoppedBy = `--max-batches ${maxBatches}`;
        if (stoppedBy) break;
        const batch = await nextBatch();
        if (!batch) break;
        batches += 1;
        moved += batch.moved;
        io.progress(
          `Batch ${batches}: re-encrypted ${batch.moved}` +
            (batch.failed.length > 0 ? `, ${batch.failed.length} would not decrypt` : '') +
            ` (${moved} so far)`,
        );
      }

      const remain = await secrets.countNotUnderCurrentKey();
      const remainAnswers = await answers.countNotUnderCurrentKey();
      const counts = await secrets.countByKey();
      const answerCounts = await answers.countByKey();
      const lines = [
        stoppedBy
          ? `Stopped (${stoppedBy}) after ${plural(batches, 'batch')}: re-encrypted ${moved}.`
          : `Finished: re-encrypted ${moved} in ${plural(batches, 'batch')}.`,
        ...keyCountLines(counts, 'secret'),
        ...answerCountLines(answerCounts),
        ...failed.map((f) => `  ${f.what} ${f.id} was left as it is: ${f.reason}`),
        `${remain === 1 ? '1 secret remains' : `${remain} secrets remain`} under older keys, and ` +
          `${plural(remainAnswers, 'Idempotency-Key answer')} in clear or under older keys: ` +
          (remain + remainAnswers === 0
            ? 'the older keys can be removed from WEBHOOK_SECRET_ENCRYPTION_KEY.'
            : stoppedBy
              ? 'run the command again to continue.'
              : 'run the command again (rows a rotation held just then are taken by the next run).'),
      ];
      if ([...counts, ...answerCounts.byKey].some((c) => c.standing === 'unknown'))
        lines.push(
          'Secrets under a key that is not in the ring stay there: add that key back to re-encrypt them ' +
            '(answers also leave when they expire).',
        );
      return lines;
    },
  },
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
