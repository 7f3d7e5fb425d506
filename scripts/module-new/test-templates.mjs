// The test files `npm run module:new` writes (scripts/module-new.mjs): the module's e2e spec and the
// triggers of its events for the central delivery specs (test/delivery/event-triggers.ts).

export const e2eSpecFile = (n, plan) => {
  const smaller = { FREE: null, PRO: 'FREE', ENTERPRISE: 'PRO' }[plan];
  const gating = smaller
    ? `
  it('is a ${plan} feature: a ${smaller} community gets 403 FEATURE_NOT_AVAILABLE naming it', async () => {
    const small = await memberWithToken(t.app, { plan: '${smaller}', role: 'OWNER' });
    for (const res of [await create(small.token, 'x'), await list(small.token)]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FEATURE_NOT_AVAILABLE', featureKey: '${n.feature}' });
    }
  });
`
    : '';
  return `/* eslint-disable @typescript-eslint/no-explicit-any -- answers are untyped JSON */
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, outboxOf } from '../utils/factories';
import { call } from '../utils/http';

const URL = '/api/sdk/${n.route}';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const owner = (role: 'OWNER' | 'MODERATOR' | 'MEMBER' = 'OWNER', communityId?: string) =>
  memberWithToken(t.app, { plan: '${plan}', role, communityId });
const create = (token: string, title: unknown, communityId?: string) =>
  call(t.app, 'POST', URL, { token, body: { title, communityId } });
const list = (token: string, query: Record<string, string | number> = {}) =>
  call(t.app, 'GET', URL, { token, query });

describe('${n.nouns}', () => {
  it('creates (201), gets and lists newest first with an exact total, each create with its event', async () => {
    const { token, community, user } = await owner();
    const first = await create(token, 'first');
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
      id: expect.any(String),
      communityId: community.id,
      authorId: user.id,
      title: 'first',
      createdAt: expect.any(String),
    });
    const second = (await create(token, 'second')).body.data;
    const got = await call(t.app, 'GET', \`\${URL}/\${first.body.data.id}\`, { token });
    expect(got.body.data).toEqual(first.body.data);
    const page = await list(token, { limit: 1 });
    expect(page.body.data).toMatchObject({ page: 1, limit: 1, total: 2, hasMore: true });
    expect(page.body.data.items.map((i: any) => i.id)).toEqual([second.id]);
    const events = await outboxOf(t.app, community.id, '${n.eventPrefix}.created');
    expect(events.map((e: any) => e.payload.data.${n.singularCamel}.id)).toEqual([first.body.data.id, second.id]);
    expect(events[0].subject).toBe(first.body.data.id);
  });

  it('lets the author or a moderator delete, with its event, and refuses another member (403)', async () => {
    const author = await owner('MEMBER');
    const other = await owner('MEMBER', author.community.id);
    const moderator = await owner('MODERATOR', author.community.id);
    const mine = (await create(author.token, 'mine')).body.data;
    const path = \`\${URL}/\${mine.id}\`;
    expect((await call(t.app, 'DELETE', path, { token: other.token })).status).toBe(403);
    const deleted = await call(t.app, 'DELETE', path, { token: moderator.token });
    expect(deleted.body.data).toEqual({ id: mine.id, deleted: true });
    expect((await call(t.app, 'GET', path, { token: author.token })).status).toBe(404);
    expect((await list(author.token)).body.data.total).toBe(0);
    const events = await outboxOf(t.app, author.community.id, '${n.eventPrefix}.deleted');
    expect(events.map((e: any) => e.payload.data.${n.singularCamel})).toEqual([mine]);
    const own = (await create(author.token, 'own')).body.data;
    expect((await call(t.app, 'DELETE', \`\${URL}/\${own.id}\`, { token: author.token })).status).toBe(200);
  });

  it('lets only moderators and above create when the community turns member posts off', async () => {
    const member = await owner('MEMBER');
    await t.prisma.community.update({ where: { id: member.community.id }, data: { allowMemberPosts: false } });
    const refused = await create(member.token, 'x');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    const moderator = await owner('MODERATOR', member.community.id);
    expect((await create(moderator.token, 'x')).status).toBe(201);
  });
${gating}
  it.each([
    ['empty', ''],
    ['of 201 characters', 't'.repeat(201)],
    ['a number', 3],
    ['null', null],
  ])('refuses a title %s with 400 naming it', async (_, title) => {
    const { token } = await owner();
    const res = await create(token, title);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain('title');
  });

  it('keeps communities apart: 404 for the other one\\'s ${n.noun}, 403 for naming it, 400 for a bad id', async () => {
    const a = await owner();
    const b = await owner();
    const mine = (await create(a.token, 'only in A')).body.data;
    expect((await call(t.app, 'GET', \`\${URL}/\${mine.id}\`, { token: b.token })).status).toBe(404);
    expect((await call(t.app, 'DELETE', \`\${URL}/\${mine.id}\`, { token: b.token })).status).toBe(404);
    expect((await create(b.token, 'intruder', a.community.id)).status).toBe(403);
    expect((await list(b.token, { communityId: a.community.id })).status).toBe(403);
    expect((await list(b.token)).body.data).toMatchObject({ items: [], total: 0 });
    expect((await list(a.token)).body.data.total).toBe(1);
    expect((await call(t.app, 'GET', \`\${URL}/not-a-uuid\`, { token: a.token })).status).toBe(400);
  });
});
`;
};

export const triggersFile = (
  n,
) => `import type { EventTriggers, ExpectedSubjects } from '../delivery/event-triggers';

/** How the ${n.nouns}' events are raised through the API, for the central delivery specs. */
export const EVENT_TRIGGERS: EventTriggers = {
  '${n.eventPrefix}.created': [
    {
      variant: 'a ${n.noun}',
      raise: async ({ send }) => {
        const created = await send('POST', '/api/sdk/${n.route}', { title: 'raised' });
        return [{ ${n.singularCamel}: { id: created.id, title: 'raised' } }];
      },
    },
  ],
  '${n.eventPrefix}.deleted': [
    {
      variant: 'a delete',
      raise: async ({ send }) => {
        const created = await send('POST', '/api/sdk/${n.route}', { title: 'to delete' });
        await send('DELETE', \`/api/sdk/${n.route}/\${created.id}\`);
        return [{ ${n.singularCamel}: { id: created.id, title: 'to delete' } }];
      },
    },
  ],
};

/** The ${n.noun} each event is about, read from the delivered body by hand. */
export const EXPECTED_SUBJECTS: ExpectedSubjects = {
  '${n.eventPrefix}.created': (body) => (body.data.${n.singularCamel} as { id: string }).id,
  '${n.eventPrefix}.deleted': (body) => (body.data.${n.singularCamel} as { id: string }).id,
};
`;
