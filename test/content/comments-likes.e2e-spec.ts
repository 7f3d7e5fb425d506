import { randomUUID } from 'node:crypto';
import { PrismaService } from '../../src/prisma/prisma.service';
import { useTestApp } from '../utils/app';
import { call } from '../utils/http';
import {
  addMember,
  Caller,
  createApiKey,
  createUser,
  CREDENTIAL_KINDS,
  login,
  memberCaller,
  outboxOf,
} from '../utils/factories';

const t = useTestApp();

async function newTweet(caller: Caller) {
  const res = await call(t.app, 'POST', '/api/sdk/tweets', { ...caller.auth, body: { content: 'parent' } });
  return res.body.data.id as string;
}

async function newTask(caller: Caller) {
  const task = await t.app.get(PrismaService).task.create({
    data: { communityId: caller.communityId, createdById: caller.userId, title: 'parent task' },
  });
  return task.id;
}

const PARENTS = [
  ['tweets', newTweet],
  ['tasks', newTask],
] as const;

describe.each(CREDENTIAL_KINDS)('comments and likes with %s credentials', (kind) => {
  describe.each(PARENTS)('on %s', (parent, makeParent) => {
    it('comments (201, shape, event) and lists oldest first with total = commentCount', async () => {
      const owner = await memberCaller(t.app, kind);
      const id = await makeParent(owner);
      const first = await call(t.app, 'POST', `/api/sdk/${parent}/${id}/comments`, {
        ...owner.auth,
        body: { content: 'first' },
      });
      expect(first.status).toBe(201);
      expect(first.body.data).toEqual({
        id: expect.any(String),
        communityId: owner.communityId,
        parentType: parent,
        parentId: id,
        authorId: owner.userId,
        content: 'first',
        createdAt: expect.any(String),
      });
      for (const content of ['second', 'third']) {
        await call(t.app, 'POST', `/api/sdk/${parent}/${id}/comments`, { ...owner.auth, body: { content } });
      }
      const list = await call(t.app, 'GET', `/api/sdk/${parent}/${id}/comments`, {
        ...owner.auth,
        query: { limit: 2 },
      });
      expect(list.status).toBe(200);
      expect(list.body.data).toMatchObject({ page: 1, limit: 2, total: 3, hasMore: true });
      expect(list.body.data.items.map((c: { content: string }) => c.content)).toEqual(['first', 'second']);
      const page2 = await call(t.app, 'GET', `/api/sdk/${parent}/${id}/comments`, {
        ...owner.auth,
        query: { page: 2, limit: 2 },
      });
      expect(page2.body.data).toMatchObject({ total: 3, hasMore: false });
      expect(page2.body.data.items.map((c: { content: string }) => c.content)).toEqual(['third']);

      const events = await outboxOf(t.app, owner.communityId, 'comment.created');
      expect(events).toHaveLength(3);
      expect(events[0].payload).toMatchObject({
        type: 'comment.created',
        communityId: owner.communityId,
        data: { comment: { id: first.body.data.id, parentType: parent, parentId: id, content: 'first' } },
      });
    });

    it('likes idempotently: 201 then 200 with the same like; one event; unlike removes it', async () => {
      const owner = await memberCaller(t.app, kind);
      const id = await makeParent(owner);
      const first = await call(t.app, 'POST', `/api/sdk/${parent}/${id}/like`, { ...owner.auth });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        success: true,
        data: {
          id: expect.any(String),
          parentType: parent,
          parentId: id,
          userId: owner.userId,
          liked: true,
          likeCount: 1,
          createdAt: expect.any(String),
        },
      });
      const second = await call(t.app, 'POST', `/api/sdk/${parent}/${id}/like`, { ...owner.auth });
      expect(second.status).toBe(200);
      expect(second.body.data).toEqual(first.body.data);
      const events = await outboxOf(t.app, owner.communityId, 'like.created');
      expect(events).toHaveLength(1);
      expect(events[0].payload).toMatchObject({
        type: 'like.created',
        communityId: owner.communityId,
        data: { like: { parentType: parent, parentId: id, userId: owner.userId, likeCount: 1 } },
      });

      const unlike = await call(t.app, 'DELETE', `/api/sdk/${parent}/${id}/like`, { ...owner.auth });
      expect(unlike.status).toBe(200);
      expect(unlike.body.data).toEqual({ parentType: parent, parentId: id, liked: false, likeCount: 0 });
      const unlikeAgain = await call(t.app, 'DELETE', `/api/sdk/${parent}/${id}/like`, { ...owner.auth });
      expect(unlikeAgain.body.data.likeCount).toBe(0);
      const relike = await call(t.app, 'POST', `/api/sdk/${parent}/${id}/like`, { ...owner.auth });
      expect(relike.status).toBe(201);
      expect(relike.body.data.likeCount).toBe(1);
    });

    it("isolates communities: B's credentials on A's item are 404, and nothing is written", async () => {
      const a = await memberCaller(t.app, kind);
      const b = await memberCaller(t.app, kind);
      const id = await makeParent(a);
      const routes = [
        ['GET', 'comments', undefined],
        ['POST', 'comments', { content: 'intruder' }],
        ['POST', 'like', undefined],
        ['DELETE', 'like', undefined],
      ] as const;
      for (const [method, tail, body] of routes) {
        const res = await call(t.app, method, `/api/sdk/${parent}/${id}/${tail}`, { ...b.auth, body });
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
      const prisma = t.app.get(PrismaService);
      expect(await prisma.comment.count({ where: { parentId: id } })).toBe(0);
      expect(await prisma.like.count({ where: { parentId: id } })).toBe(0);
      expect(await outboxOf(t.app, b.communityId, 'comment.created')).toHaveLength(0);
    });
  });

  it('refuses an unknown parent type, a non-uuid id, and bad comments with 400 naming the field', async () => {
    const owner = await memberCaller(t.app, kind);
    const id = await newTweet(owner);
    const unknownParent = await call(t.app, 'GET', `/api/sdk/members/${id}/comments`, { ...owner.auth });
    expect(unknownParent.status).toBe(400);
    expect(unknownParent.body.code).toBe('VALIDATION_ERROR');
    expect(unknownParent.body.details.map((d: { field: string }) => d.field)).toContain('parent');
    const unknownLike = await call(t.app, 'POST', `/api/sdk/posts/${id}/like`, { ...owner.auth });
    expect(unknownLike.status).toBe(400);
    const badId = await call(t.app, 'POST', '/api/sdk/tweets/nope/like', { ...owner.auth });
    expect(badId.status).toBe(400);
    expect(badId.body.details.map((d: { field: string }) => d.field)).toContain('id');
    for (const [body, field] of [
      [{ content: '' }, 'content'],
      [{ content: 'c'.repeat(2001) }, 'content'],
      [{ content: 7 }, 'content'],
      [{ content: 'ok', extra: 1 }, 'extra'],
    ] as const) {
      const res = await call(t.app, 'POST', `/api/sdk/tweets/${id}/comments`, { ...owner.auth, body });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const bounds = await call(t.app, 'GET', `/api/sdk/tweets/${id}/comments`, {
      ...owner.auth,
      query: { limit: 101 },
    });
    expect(bounds.status).toBe(400);
    expect(await outboxOf(t.app, owner.communityId, 'comment.created')).toHaveLength(0);
  });

  it('answers 404 for a parent that does not exist', async () => {
    const owner = await memberCaller(t.app, kind);
    const res = await call(t.app, 'POST', `/api/sdk/tasks/${randomUUID()}/like`, { ...owner.auth });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Task not found');
  });
});

describe('comments under concurrency', () => {
  it('40 comments on one tweet at once: every one answers 201, commentCount and the events match the rows', async () => {
    const owner = await memberCaller(t.app, 'apiKey');
    const id = await newTweet(owner);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(t.app, 'POST', `/api/sdk/tweets/${id}/comments`, { ...owner.auth, body: { content: `c${i}` } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(201));
    const prisma = t.app.get(PrismaService);
    const tweet = await prisma.tweet.findUniqueOrThrow({ where: { id } });
    expect(tweet.commentCount).toBe(40);
    expect(await prisma.comment.count({ where: { parentId: id } })).toBe(40);
    expect(await outboxOf(t.app, owner.communityId, 'comment.created')).toHaveLength(40);
  });

  it("comments racing their tweet's delete: each answers 201 or 404, and none outlives the tweet", async () => {
    const owner = await memberCaller(t.app, 'apiKey');
    const id = await newTweet(owner);
    const comment = (i: number) =>
      call(t.app, 'POST', `/api/sdk/tweets/${id}/comments`, { ...owner.auth, body: { content: `c${i}` } });
    const results = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => comment(i)),
      call(t.app, 'DELETE', `/api/sdk/tweets/${id}`, { ...owner.auth }),
      ...Array.from({ length: 10 }, (_, i) => comment(10 + i)),
    ]);
    const deleted = results.splice(10, 1)[0];
    expect(deleted.status).toBe(200);
    expect(results.filter((r) => r.status !== 201 && r.status !== 404).map((r) => r.body)).toEqual([]);
    const prisma = t.app.get(PrismaService);
    expect(await prisma.comment.count({ where: { parentId: id } })).toBe(0);
    const created = results.filter((r) => r.status === 201).length;
    expect(await outboxOf(t.app, owner.communityId, 'comment.created')).toHaveLength(created);
  });
});

describe('likes under concurrency', () => {
  it('50 different members liking one tweet at once leave likeCount exactly 50', async () => {
    const owner = await memberCaller(t.app, 'jwt');
    const id = await newTweet(owner);
    const likers = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const user = await createUser(t.app);
        await addMember(t.app, owner.communityId, user.id, 'MEMBER');
        if (i % 2 === 0) return { token: (await login(t.app, user.email, owner.communityId)).accessToken };
        return { apiKey: (await createApiKey(t.app, owner.communityId, user.id)).key };
      }),
    );
    const results = await Promise.all(
      likers.map((auth) => call(t.app, 'POST', `/api/sdk/tweets/${id}/like`, { ...auth })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const counts = results.map((r) => r.body.data.likeCount as number).sort((x, y) => x - y);
    expect(counts).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const tweet = await t.app.get(PrismaService).tweet.findUniqueOrThrow({ where: { id } });
    expect(tweet.likeCount).toBe(50);
    expect(await outboxOf(t.app, owner.communityId, 'like.created')).toHaveLength(50);
  }, 30_000); // 25 password logins (argon2) to set up

  it('one member liking the same tweet 10 times at once gets one like', async () => {
    const owner = await memberCaller(t.app, 'apiKey');
    const id = await newTweet(owner);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call(t.app, 'POST', `/api/sdk/tweets/${id}/like`, { ...owner.auth })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(9);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    const tweet = await t.app.get(PrismaService).tweet.findUniqueOrThrow({ where: { id } });
    expect(tweet.likeCount).toBe(1);
  });

  it('one member liking and unliking one tweet at once: every call answers, the counter matches the rows', async () => {
    // A like locks its tweet before it touches `likes`, and so must an unlike: in the other order the
    // two wait on each other (the unlike's deleted like row, the like's tweet) and one fails.
    const owner = await memberCaller(t.app, 'apiKey');
    const id = await newTweet(owner);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(t.app, i % 2 === 0 ? 'POST' : 'DELETE', `/api/sdk/tweets/${id}/like`, { ...owner.auth }),
      ),
    );
    expect(results.filter((r) => r.status >= 300).map((r) => r.body)).toEqual([]);
    const prisma = t.app.get(PrismaService);
    const [tweet, likes] = await Promise.all([
      prisma.tweet.findUniqueOrThrow({ where: { id } }),
      prisma.like.count({ where: { parentId: id } }),
    ]);
    expect(tweet.likeCount).toBe(likes);
    const created = results.filter((r) => r.status === 201).length;
    expect(await outboxOf(t.app, owner.communityId, 'like.created')).toHaveLength(created);
  });

  it('deleting a tweet removes its comments and likes and the tweets total drops', async () => {
    const owner = await memberCaller(t.app, 'jwt');
    const id = await newTweet(owner);
    await call(t.app, 'POST', `/api/sdk/tweets/${id}/like`, { ...owner.auth });
    await call(t.app, 'POST', `/api/sdk/tweets/${id}/comments`, { ...owner.auth, body: { content: 'c' } });
    await call(t.app, 'DELETE', `/api/sdk/tweets/${id}`, { ...owner.auth });
    const prisma = t.app.get(PrismaService);
    expect(await prisma.comment.count({ where: { parentId: id } })).toBe(0);
    expect(await prisma.like.count({ where: { parentId: id } })).toBe(0);
    const list = await call(t.app, 'GET', '/api/sdk/tweets', { ...owner.auth });
    expect(list.body.data.total).toBe(0);
  });
});
