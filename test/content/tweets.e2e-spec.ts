import { randomUUID } from 'node:crypto';
import { PrismaService } from '../../src/prisma/prisma.service';
import { useTestApp } from '../utils/app';
import { call } from '../utils/http';
import { CREDENTIAL_KINDS, memberCaller, outboxOf } from '../utils/factories';

const t = useTestApp();

async function postTweet(auth: object, content: string) {
  const res = await call(t.app, 'POST', '/api/sdk/tweets', { ...auth, body: { content } });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; authorId: string; createdAt: string; content: string };
}

describe.each(CREDENTIAL_KINDS)('tweets with %s credentials', (kind) => {
  it('creates a tweet (201, the shape of docs/api.md#community-and-content) authored by the caller, with its event in the outbox', async () => {
    const owner = await memberCaller(t.app, kind);
    const res = await call(t.app, 'POST', '/api/sdk/tweets', { ...owner.auth, body: { content: 'hello' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        communityId: owner.communityId,
        authorId: owner.userId,
        content: 'hello',
        likeCount: 0,
        commentCount: 0,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const events = await outboxOf(t.app, owner.communityId, 'tweet.created');
    expect(events).toHaveLength(1);
    expect(events[0].payload).toMatchObject({
      type: 'tweet.created',
      communityId: owner.communityId,
      data: { tweet: { id: res.body.data.id, content: 'hello', authorId: owner.userId } },
    });
  });

  it('lists newest first with ties broken by id, paginated, with exact totals after inserts and deletes', async () => {
    const owner = await memberCaller(t.app, kind);
    const prisma = t.app.get(PrismaService);
    const sameInstant = new Date('2020-01-01T00:00:00Z');
    // set-based insert: the statement-level trigger counts all five at once
    await prisma.tweet.createMany({
      data: [1, 2, 3, 4, 5].map((n) => ({
        communityId: owner.communityId,
        authorId: owner.userId,
        content: `t${n}`,
        createdAt: n <= 3 ? sameInstant : new Date(sameInstant.getTime() - n * 1000),
      })),
    });
    const all = await call(t.app, 'GET', '/api/sdk/tweets', { ...owner.auth });
    expect(all.status).toBe(200);
    expect(all.body.data).toMatchObject({ page: 1, limit: 20, total: 5, hasMore: false });
    const items = all.body.data.items as { id: string; createdAt: string; content: string }[];
    const tied = items.slice(0, 3).map((i) => i.id);
    expect(tied).toEqual([...tied].sort().reverse());
    expect(items.slice(3).map((i) => i.content)).toEqual(['t4', 't5']);

    const page1 = await call(t.app, 'GET', '/api/sdk/tweets', {
      ...owner.auth,
      query: { page: 1, limit: 2 },
    });
    const page3 = await call(t.app, 'GET', '/api/sdk/tweets', {
      ...owner.auth,
      query: { page: 3, limit: 2 },
    });
    expect(page1.body.data).toMatchObject({ page: 1, limit: 2, total: 5, hasMore: true });
    expect(page1.body.data.items.map((i: { id: string }) => i.id)).toEqual(
      items.slice(0, 2).map((i) => i.id),
    );
    expect(page3.body.data).toMatchObject({ page: 3, limit: 2, total: 5, hasMore: false });
    expect(page3.body.data.items).toHaveLength(1);

    const created = await postTweet(owner.auth, 'newest');
    const del = await call(t.app, 'DELETE', `/api/sdk/tweets/${items[0].id}`, { ...owner.auth });
    expect(del.status).toBe(200);
    const after = await call(t.app, 'GET', '/api/sdk/tweets', { ...owner.auth });
    expect(after.body.data.total).toBe(5);
    expect(after.body.data.items[0].id).toBe(created.id);
    expect(after.body.data.items.map((i: { id: string }) => i.id)).not.toContain(items[0].id);
  });

  it.each([
    ['page', '0'],
    ['page', '-1'],
    ['page', 'abc'],
    ['page', '1.5'],
    ['limit', '0'],
    ['limit', '101'],
    ['limit', '-1'],
    ['limit', 'abc'],
  ])('refuses %s=%s with 400 naming the field', async (field, value) => {
    const owner = await memberCaller(t.app, kind);
    const res = await call(t.app, 'GET', '/api/sdk/tweets', { ...owner.auth, query: { [field]: value } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('lists each tweet exactly as it was created, whatever characters its text holds', async () => {
    // the page is JSON written by PostgreSQL (docs/architecture.md#the-page-as-postgresql-writes-it):
    // its escaping must give back every character the API took
    const owner = await memberCaller(t.app, kind);
    const texts = [
      'quotes " and \' and a backslash \\ and a slash /',
      'a newline\nand a tab\tand a carriage return\r and \u0001\u001f',
      'emoji 🎉, accents éàü, CJK 漢字, RTL עברית',
      'line and paragraph separators \u2028 \u2029, </script>, {"json":[1,2]}',
    ];
    const created = [];
    for (const content of texts) created.push(await postTweet(owner.auth, content));
    const page = await call(t.app, 'GET', '/api/sdk/tweets', { ...owner.auth, query: { limit: '10' } });
    expect(page.status).toBe(200);
    // newest first, ties (the same millisecond) broken by id
    const newestFirst = [...created].sort(
      (a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id),
    );
    expect(page.body.data).toEqual({ items: newestFirst, page: 1, limit: 10, total: 4, hasMore: false });
    expect(new Set(page.body.data.items.map((item: { content: string }) => item.content))).toEqual(
      new Set(texts),
    );
  });

  it('accepts the limit bounds 1 and 100', async () => {
    const owner = await memberCaller(t.app, kind);
    for (const limit of [1, 100]) {
      const res = await call(t.app, 'GET', '/api/sdk/tweets', { ...owner.auth, query: { limit } });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ items: [], page: 1, limit, total: 0, hasMore: false });
    }
  });

  it.each([
    ['empty content', { content: '' }, 'content'],
    ['over-long content', { content: 'x'.repeat(2001) }, 'content'],
    ['wrong type', { content: 42 }, 'content'],
    ['missing content', {}, 'content'],
    ['unknown field', { content: 'ok', mood: 'happy' }, 'mood'],
  ])('refuses %s with 400 naming the field and writes no event', async (_, body, field) => {
    const owner = await memberCaller(t.app, kind);
    const res = await call(t.app, 'POST', '/api/sdk/tweets', { ...owner.auth, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await outboxOf(t.app, owner.communityId, 'tweet.created')).toHaveLength(0);
  });

  it('accepts exactly 2000 characters', async () => {
    const owner = await memberCaller(t.app, kind);
    const created = await postTweet(owner.auth, 'y'.repeat(2000));
    expect(created.id).toBeDefined();
  });

  it('lets the author edit and delete their tweet, with events', async () => {
    const member = await memberCaller(t.app, kind, { role: 'MEMBER' });
    const tweet = await postTweet(member.auth, 'first');
    const patched = await call(t.app, 'PATCH', `/api/sdk/tweets/${tweet.id}`, {
      ...member.auth,
      body: { content: 'edited' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id: tweet.id, content: 'edited', authorId: member.userId });
    const deleted = await call(t.app, 'DELETE', `/api/sdk/tweets/${tweet.id}`, { ...member.auth });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, data: { id: tweet.id, deleted: true } });
    const updates = await outboxOf(t.app, member.communityId, 'tweet.updated');
    const deletes = await outboxOf(t.app, member.communityId, 'tweet.deleted');
    expect(updates.map((e) => e.payload)).toMatchObject([
      { data: { tweet: { id: tweet.id, content: 'edited' } } },
    ]);
    expect(deletes.map((e) => e.payload)).toMatchObject([
      { type: 'tweet.deleted', communityId: member.communityId, data: { tweet: { id: tweet.id } } },
    ]);
    const again = await call(t.app, 'DELETE', `/api/sdk/tweets/${tweet.id}`, { ...member.auth });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('NOT_FOUND');
  });

  it("refuses a MEMBER editing or deleting another's tweet (403, no event); a MODERATOR may", async () => {
    const author = await memberCaller(t.app, kind, { role: 'MEMBER' });
    const other = await memberCaller(t.app, kind, { role: 'MEMBER', communityId: author.communityId });
    const moderator = await memberCaller(t.app, kind, { role: 'MODERATOR', communityId: author.communityId });
    const tweet = await postTweet(author.auth, 'mine');

    const patch = await call(t.app, 'PATCH', `/api/sdk/tweets/${tweet.id}`, {
      ...other.auth,
      body: { content: 'hijacked' },
    });
    expect(patch.status).toBe(403);
    expect(patch.body.code).toBe('FORBIDDEN');
    const del = await call(t.app, 'DELETE', `/api/sdk/tweets/${tweet.id}`, { ...other.auth });
    expect(del.status).toBe(403);
    expect(await outboxOf(t.app, author.communityId, 'tweet.updated')).toHaveLength(0);
    expect(await outboxOf(t.app, author.communityId, 'tweet.deleted')).toHaveLength(0);

    const modPatch = await call(t.app, 'PATCH', `/api/sdk/tweets/${tweet.id}`, {
      ...moderator.auth,
      body: { content: 'moderated' },
    });
    expect(modPatch.status).toBe(200);
    expect(modPatch.body.data).toMatchObject({ content: 'moderated', authorId: author.userId });
    const modDel = await call(t.app, 'DELETE', `/api/sdk/tweets/${tweet.id}`, { ...moderator.auth });
    expect(modDel.status).toBe(200);
  });

  it('refuses an invalid PATCH body and a non-uuid id with 400, writing no event', async () => {
    const owner = await memberCaller(t.app, kind);
    const tweet = await postTweet(owner.auth, 'stay');
    const long = await call(t.app, 'PATCH', `/api/sdk/tweets/${tweet.id}`, {
      ...owner.auth,
      body: { content: 'z'.repeat(2001) },
    });
    expect(long.status).toBe(400);
    expect(long.body.details[0].field).toBe('content');
    const badId = await call(t.app, 'PATCH', '/api/sdk/tweets/not-a-uuid', {
      ...owner.auth,
      body: { content: 'x' },
    });
    expect(badId.status).toBe(400);
    expect(badId.body.details.map((d: { field: string }) => d.field)).toContain('id');
    const badDelete = await call(t.app, 'DELETE', '/api/sdk/tweets/123', { ...owner.auth });
    expect(badDelete.status).toBe(400);
    expect(await outboxOf(t.app, owner.communityId, 'tweet.updated')).toHaveLength(0);
  });

  it('answers 404 for an unknown tweet id', async () => {
    const owner = await memberCaller(t.app, kind);
    const res = await call(t.app, 'PATCH', `/api/sdk/tweets/${randomUUID()}`, {
      ...owner.auth,
      body: { content: 'x' },
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });

  it("isolates communities: B cannot touch A's tweet (404) and never lists it", async () => {
    const a = await memberCaller(t.app, kind);
    const b = await memberCaller(t.app, kind);
    const tweet = await postTweet(a.auth, 'only in A');
    await postTweet(b.auth, 'only in B');
    const patch = await call(t.app, 'PATCH', `/api/sdk/tweets/${tweet.id}`, {
      ...b.auth,
      body: { content: 'x' },
    });
    expect(patch.status).toBe(404);
    const del = await call(t.app, 'DELETE', `/api/sdk/tweets/${tweet.id}`, { ...b.auth });
    expect(del.status).toBe(404);
    const list = await call(t.app, 'GET', '/api/sdk/tweets', { ...b.auth });
    expect(list.body.data.total).toBe(1);
    expect(list.body.data.items.map((i: { content: string }) => i.content)).toEqual(['only in B']);
    const stillThere = await call(t.app, 'GET', '/api/sdk/tweets', { ...a.auth });
    expect(stillThere.body.data.items[0]).toMatchObject({ id: tweet.id, content: 'only in A' });
  });
});

describe('tweets and community settings', () => {
  it('lets only moderators and above post when allowMemberPosts is off', async () => {
    const owner = await memberCaller(t.app, 'jwt');
    const member = await memberCaller(t.app, 'apiKey', { role: 'MEMBER', communityId: owner.communityId });
    await t.app
      .get(PrismaService)
      .community.update({ where: { id: owner.communityId }, data: { allowMemberPosts: false } });
    const refused = await call(t.app, 'POST', '/api/sdk/tweets', { ...member.auth, body: { content: 'hi' } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    await postTweet(owner.auth, 'owners still post');
  });

  it('refuses a call without credentials (401)', async () => {
    const res = await call(t.app, 'GET', '/api/sdk/tweets');
    expect(res.status).toBe(401);
  });
});

describe('a tweet and its event are one write', () => {
  // A constraint that refuses the outbox row of one marked tweet only (other specs share the database)
  const MARK = `refused-event-${randomUUID()}`;
  const CONSTRAINT = `test_refuse_${MARK.slice(-12).replace(/-/g, '')}`;

  beforeAll(async () => {
    await t.prisma.$executeRawUnsafe(
      `ALTER TABLE outbox_events ADD CONSTRAINT ${CONSTRAINT}
         CHECK (payload->'data'->'tweet'->>'content' IS DISTINCT FROM '${MARK}') NOT VALID`,
    );
  });
  afterAll(() => t.prisma.$executeRawUnsafe(`ALTER TABLE outbox_events DROP CONSTRAINT ${CONSTRAINT}`));

  it('writes no tweet when its event cannot be written (create and update)', async () => {
    const owner = await memberCaller(t.app, 'apiKey');
    const countBefore = await t.prisma.tweet.count({ where: { communityId: owner.communityId } });
    const created = await call(t.app, 'POST', '/api/sdk/tweets', { ...owner.auth, body: { content: MARK } });
    expect(created.status).toBe(500);
    expect(await t.prisma.tweet.count({ where: { communityId: owner.communityId } })).toBe(countBefore);
    expect(await t.prisma.tweet.count({ where: { content: MARK } })).toBe(0);

    const tweet = await postTweet(owner.auth, 'kept as it was');
    const updated = await call(t.app, 'PATCH', `/api/sdk/tweets/${tweet.id}`, {
      ...owner.auth,
      body: { content: MARK },
    });
    expect(updated.status).toBe(500);
    const row = await t.prisma.tweet.findUniqueOrThrow({ where: { id: tweet.id } });
    expect(row.content).toBe('kept as it was');
    expect(await outboxOf(t.app, owner.communityId, 'tweet.updated')).toHaveLength(0);
  });
});
