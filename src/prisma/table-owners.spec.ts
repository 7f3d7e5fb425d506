import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * One owner per table (docs/architecture.md#one-owner-per-table): each table of prisma/schema.prisma
 * is read and written through its Prisma delegate or named in SQL by one store file only, and
 * services call that store. A file beside the owner may name the table only inside a statement of
 * its own table when splitting the statement would cost its atomicity or a round trip on a hot
 * path; each such file is listed under `sharedWith` with the reason. Tests and benches are exempt.
 * A table this list does not name is owned by the one file that touches it, which must be a
 * `*.store.ts`: a new module's table needs no line here (docs/adding-a-module.md) unless it is shared.
 */
interface Ownership {
  owner: string;
  sharedWith?: Record<string, string>;
}

const TABLE_OWNERS: Record<string, Ownership> = {
  users: {
    owner: 'src/modules/auth/users.store.ts',
    sharedWith: {
      'src/modules/members/memberships.store.ts':
        "a member is read with its account's e-mail in one JOIN (reads only: accounts are written by UsersStore)",
      'src/modules/auth/api-keys.store.ts':
        "the X-Api-Key check reads the key with its creator's e-mail in one indexed JOIN (reads only)",
    },
  },
  refresh_tokens: { owner: 'src/modules/auth/refresh-tokens.store.ts' },
  portal_sessions: { owner: 'src/modules/auth/portal-sessions.store.ts' },
  api_keys: {
    owner: 'src/modules/auth/api-keys.store.ts',
    sharedWith: {
      'src/modules/auth/users.store.ts':
        'the identity route reads the user with the calling API key in one prepared statement (reads only)',
    },
  },
  communities: {
    owner: 'src/modules/community/communities.store.ts',
    sharedWith: {
      'src/modules/webhooks/worker/delivery-log-retention.store.ts':
        "the log's retention reads each endpoint's community plan in one JOIN (reads only)",
      'src/modules/webhooks/core/webhook-endpoints.store.ts':
        "locks the community row (FOR NO KEY UPDATE) in the endpoint create's transaction, which serialises that community's creates",
      'src/modules/webhooks/portal/portal-links.store.ts':
        "a portal link is redeemed and its community's slug read in one statement",
      'src/modules/auth/users.store.ts':
        "the identity route reads the user with each membership's community slug and name in one prepared statement",
    },
  },
  community_counters: {
    // written only by the statement-level triggers of the counted tables (prisma/migrations)
    owner: 'src/common/pagination/newest-first-page.ts',
  },
  memberships: {
    owner: 'src/modules/members/memberships.store.ts',
    sharedWith: {
      'src/modules/webhooks/portal/portal-links.store.ts':
        'the members a portal link may be opened for are read with the link in one statement',
      'src/modules/auth/users.store.ts':
        'the identity route reads the user with their memberships in one prepared statement (reads only)',
    },
  },
  tweets: { owner: 'src/modules/content/tweets.store.ts' },
  idempotency_keys: { owner: 'src/modules/idempotency/idempotency-keys.store.ts' },
  idempotency_callers: { owner: 'src/modules/idempotency/idempotency-keys.store.ts' },
  tasks: { owner: 'src/modules/content/tasks.store.ts' },
  comments: { owner: 'src/modules/content/comments.store.ts' },
  likes: { owner: 'src/modules/content/likes.store.ts' },
  customizations: { owner: 'src/modules/customization/customizations.store.ts' },
  advertisements: { owner: 'src/modules/customization/advertisements.store.ts' },
  embed_sessions: { owner: 'src/modules/embed/embed-sessions.store.ts' },
  webhook_portal_links: { owner: 'src/modules/webhooks/portal/portal-links.store.ts' },
  outbox_events: {
    owner: 'src/modules/events/outbox-events.store.ts',
    sharedWith: {
      'src/modules/webhooks/worker/outbox.store.ts':
        "the worker's side: the relay marks events relayed in the statement that writes their first attempts, and the pruner deletes only events no live attempt needs, in one statement each",
      'src/modules/webhooks/requested-attempts.store.ts':
        "the test route writes its already-relayed event and that event's attempt in one statement; resend reads the event with its attempts",
      'src/modules/webhooks/delivery-log.store.ts':
        "the delivery log's page reads each attempt's event type in one JOIN",
      'src/modules/webhooks/worker/delivery-sweep.store.ts':
        'due attempts are read with their event body in one JOIN',
      'src/modules/webhooks/worker/delivery-attempts.store.ts':
        "a claim that writes its missing attempt copies the event's subject onto it in the same statement",
      'src/modules/webhooks/core/expunge/message-content.store.ts':
        "an expunge deletes the message's event in the transaction that marks its attempts expunged",
      'src/modules/webhooks/core/replays/replay-selection.ts':
        "a replay's selection reads each event with its latest attempt in one JOIN (reads only)",
    },
  },
  webhook_endpoints: {
    owner: 'src/modules/webhooks/core/webhook-endpoints.store.ts',
    sharedWith: {
      'src/modules/webhooks/worker/delivery-log-retention.store.ts':
        "the log's retention walks the endpoints with their community's plan in one JOIN (reads only)",
      'src/modules/webhooks/worker/outbox.store.ts':
        "the relay fans each event out to its community's subscribed endpoints in the statement that writes the attempts",
      'src/modules/webhooks/worker/replay-batches.store.ts':
        "a replay's batch skips a paused or disabled endpoint's messages in the statement that writes the attempts (reads only)",
      'src/modules/webhooks/worker/delivery-attempts.store.ts':
        'an attempt is claimed in the statement that reads its endpoint and secrets',
      'src/modules/webhooks/worker/fifo-head.store.ts':
        "a FIFO head's claim reads the endpoint's delivery settings beside the function's answer (reads only)",
      'src/modules/webhooks/delivery-log.store.ts':
        "the log's page tells an unknown endpoint from an empty log in one statement",
      'src/modules/webhooks/worker/delivery-sweep.store.ts':
        "the sweep re-queues only the head of a FIFO endpoint's queue, in the statement that pages the due attempts",
      'src/modules/webhooks/core/attempt-stats.store.ts':
        'the figures tell an unknown endpoint from one without attempts in the statement that reads its buckets',
      'src/modules/webhooks/core/http-transport/endpoint-transport.store.ts':
        "the client certificates' and OAuth clients' own statements (the sender's read, re-encryption, the expiry check), beside the HTTP transport that uses them; the owner writes them with the other settings",
    },
  },
  webhook_secrets: {
    owner: 'src/modules/webhooks/core/secrets/webhook-secrets.store.ts',
    sharedWith: {
      'src/modules/webhooks/worker/attempt-claim.ts':
        "the secrets' version, a subquery of every claim's statement (the claims', the FIFO head's, the relay's; reads only)",
    },
  },
  webhook_deliveries: {
    // several stores, one per process and path (src/modules/webhooks/worker/README.md#state-postgresql-owns-it-redis-caches-it):
    // each statement on the table has one home
    owner: 'src/modules/webhooks/worker/delivery-attempts.store.ts',
    sharedWith: {
      'src/modules/webhooks/worker/outbox.store.ts': "the relay's first attempts, the outbox pruner's check",
      'src/modules/webhooks/worker/fifo-head.store.ts':
        "a FIFO endpoint's head: claimed through webhook_claim_fifo_head, its trace context read beside it",
      'src/modules/webhooks/worker/delivery-sweep.store.ts': 'the sweep, the overdue gauge',
      'src/modules/webhooks/delivery-log.store.ts': "the API's paged log",
      'src/modules/webhooks/community-messages.store.ts': "the community's messages across its endpoints",
      'src/modules/webhooks/message-filters.ts':
        "the message views' filter on an attempt's answer, a subquery of the statements of the two stores above",
      'src/modules/webhooks/requested-attempts.store.ts': "resend, recover, the test route's probe",
      'src/modules/webhooks/worker/delivery-log-retention.store.ts': "the log's retention",
      'src/modules/webhooks/core/expunge/message-content.store.ts':
        'an expunge marks the attempts and clears their answers',
      'src/modules/webhooks/core/replays/replay-selection.ts':
        "a replay's selection: each event's latest attempt (reads only)",
      'src/modules/webhooks/worker/replay-batches.store.ts':
        "a replay's batch writes its attempts in the transaction that advances the replay's cursor",
    },
  },
  webhook_replays: {
    owner: 'src/modules/webhooks/replays/webhook-replays.store.ts',
    sharedWith: {
      'src/modules/webhooks/worker/replay-batches.store.ts':
        "the workers' batches: the replay's claim, its attempts and its cursor in one transaction",
    },
  },
  webhook_missed_events: {
    owner: 'src/modules/webhooks/requested-attempts.store.ts',
    sharedWith: {
      'src/modules/webhooks/worker/outbox.store.ts':
        'the relay records an event as missed by paused or disabled subscribers in the statement that writes its first attempts; the outbox pruner keeps the bodies missed events need and forgets the old ones',
      'src/modules/webhooks/core/expunge/message-content.store.ts':
        "an expunge forgets the message's missed events in the transaction that deletes its event",
    },
  },
  webhook_attempt_stats: {
    // written by the SQL function webhook_count_attempts (prisma/migrations), which the statements that
    // record an attempt's outcome call inside themselves; the store reads and prunes
    owner: 'src/modules/webhooks/core/attempt-stats.store.ts',
    sharedWith: {
      'src/modules/webhooks/core/webhook-endpoints.store.ts':
        "an endpoint's delete removes its figures in the same statement (no foreign key, so no cascade)",
    },
  },
  webhook_delivery_counters: {
    // written only by the triggers on webhook_deliveries (prisma/migrations)
    owner: 'src/modules/webhooks/delivery-log.store.ts',
  },
};

const root = join(__dirname, '../..');

/** model name → Prisma delegate, @@map → table, from the schema itself. */
function schemaTables(): { delegate: string; table: string }[] {
  const schema = readFileSync(join(root, 'prisma/schema.prisma'), 'utf8');
  return [...schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)].map(([, model, body]) => ({
    delegate: model[0].toLowerCase() + model.slice(1),
    table: /@@map\("(\w+)"\)/.exec(body)?.[1] ?? model,
  }));
}

const DELEGATE_METHODS =
  'findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|findMany|create|createMany|createManyAndReturn|' +
  'update|updateMany|updateManyAndReturn|upsert|delete|deleteMany|count|aggregate|groupBy';

/**
 * Prisma's delegate (`tx.tweet.create(`), the table after an SQL keyword (`FROM tweets`, `JOIN`,
 * `INTO`, `UPDATE`, …), or the table's name handed to a helper that builds SQL from it.
 */
function touches({ delegate, table }: { delegate: string; table: string }): RegExp {
  return new RegExp(
    `\\.${delegate}\\s*\\.\\s*(${DELEGATE_METHODS})\\b` +
      `|\\b(FROM|JOIN|INTO|UPDATE|TABLE|USING)\\s+"?${table}"?\\b` +
      `|(newestFirstList|Prisma\\.raw)\\(\\s*'${table}'`,
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('each table has one owner', () => {
  const tables = schemaTables();
  const files = sourceFiles(join(root, 'src')).map((file) => ({
    path: relative(root, file).split('\\').join('/'),
    text: readFileSync(file, 'utf8'),
  }));
  const touching = (table: { delegate: string; table: string }) =>
    files.filter((file) => touches(table).test(file.text)).map((file) => file.path);

  it('names tables of the schema only', () => {
    const names = tables.map((t) => t.table);
    expect(Object.keys(TABLE_OWNERS).filter((table) => !names.includes(table))).toEqual([]);
  });

  const listed = tables.filter((t) => t.table in TABLE_OWNERS);
  const unlisted = tables.filter((t) => !(t.table in TABLE_OWNERS));

  it.each(listed.map((t) => [t.table, t] as const))(
    '%s is touched by its owner and the files it is shared with only',
    (name, table) => {
      const { owner, sharedWith = {} } = TABLE_OWNERS[name];
      expect(existsSync(join(root, owner))).toBe(true);
      expect(touching(table).sort()).toEqual([owner, ...Object.keys(sharedWith)].sort());
    },
  );

  // it.each refuses an empty table: the unlisted tables are checked in one test
  it('gives each table it does not list one owner, a store: the only file that touches it', () => {
    const owners = unlisted.map((table) => ({ table: table.table, touchedBy: touching(table) }));
    expect(
      owners.filter(({ touchedBy }) => touchedBy.length !== 1 || !touchedBy[0].endsWith('.store.ts')),
    ).toEqual([]);
  });

  it('gives each table a store file as its owner, or says why not', () => {
    const notStores = Object.values(TABLE_OWNERS)
      .map((o) => o.owner)
      .filter((owner) => !owner.endsWith('.store.ts'));
    // the pager of counted tables reads the counters the triggers keep; nothing else reads them
    expect(notStores).toEqual(['src/common/pagination/newest-first-page.ts']);
  });

  it('recognises SQL, Prisma delegates and table names given to SQL helpers', () => {
    const tweets = { delegate: 'tweet', table: 'tweets' };
    expect(touches(tweets).test('await tx.tweet.create({')).toBe(true);
    expect(touches(tweets).test('this.prisma.tweet\n      .findMany(')).toBe(true);
    expect(touches(tweets).test('SELECT 1 FROM tweets t')).toBe(true);
    expect(touches(tweets).test('INSERT INTO tweets (id)')).toBe(true);
    expect(touches(tweets).test("newestFirstList('tweets', columns)")).toBe(true);
    // an API value, a metric or a word in a comment is not the table
    expect(touches(tweets).test("parentType: 'tweets'")).toBe(false);
    expect(touches(tweets).test('// the tweets of a community')).toBe(false);
    const deliveries = { delegate: 'webhookDelivery', table: 'webhook_deliveries' };
    expect(touches(deliveries).test("'FROM webhook_deliveries_overdue'")).toBe(false);
    expect(touches(deliveries).test('this.prisma.webhookDelivery.updateMany(')).toBe(true);
    expect(touches(deliveries).test('this.prisma.webhookDeliveryCounter.count(')).toBe(false);
  });
});
