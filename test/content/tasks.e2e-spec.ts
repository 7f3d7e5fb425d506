import { randomUUID } from 'node:crypto';
import { PrismaService } from '../../src/prisma/prisma.service';
import { useTestApp } from '../utils/app';
import { call } from '../utils/http';
import { CREDENTIAL_KINDS, memberCaller } from '../utils/factories';

const t = useTestApp();

describe.each(CREDENTIAL_KINDS)('tasks with %s credentials', (kind) => {
  it('creates (201, CONTENT_MODERATE), gets and lists tasks with exact totals', async () => {
    const moderator = await memberCaller(t.app, kind, { role: 'MODERATOR' });
    const created = await call(t.app, 'POST', '/api/sdk/tasks', {
      ...moderator.auth,
      body: { title: 'Ship it', description: 'by Friday', dueAt: '2031-05-01T12:00:00.000Z' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.any(String),
      communityId: moderator.communityId,
      title: 'Ship it',
      description: 'by Friday',
      status: 'OPEN',
      dueAt: '2031-05-01T12:00:00.000Z',
      createdById: moderator.userId,
      likeCount: 0,
      commentCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const minimal = await call(t.app, 'POST', '/api/sdk/tasks', {
      ...moderator.auth,
      body: { title: 'Later' },
    });
    expect(minimal.body.data).toMatchObject({ description: '', dueAt: null });

    const got = await call(t.app, 'GET', `/api/sdk/tasks/${created.body.data.id}`, { ...moderator.auth });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(created.body.data);

    const list = await call(t.app, 'GET', '/api/sdk/tasks', { ...moderator.auth, query: { limit: 1 } });
    expect(list.body.data).toMatchObject({ page: 1, limit: 1, total: 2, hasMore: true });
    expect(list.body.data.items[0].id).toBe(minimal.body.data.id);

    await t.app.get(PrismaService).task.delete({ where: { id: minimal.body.data.id } });
    const after = await call(t.app, 'GET', '/api/sdk/tasks', { ...moderator.auth });
    expect(after.body.data).toMatchObject({ total: 1, hasMore: false });
  });

  it('refuses a MEMBER creating a task (403) but lets them read', async () => {
    const member = await memberCaller(t.app, kind, { role: 'MEMBER' });
    const res = await call(t.app, 'POST', '/api/sdk/tasks', { ...member.auth, body: { title: 'x' } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    const list = await call(t.app, 'GET', '/api/sdk/tasks', { ...member.auth });
    expect(list.status).toBe(200);
    expect(list.body.data.total).toBe(0);
  });

  it.each([
    [{ title: '' }, 'title'],
    [{ title: 't'.repeat(201) }, 'title'],
    [{ title: 'ok', dueAt: 'tomorrow' }, 'dueAt'],
    [{ title: 'ok', status: 'DONE' }, 'status'],
    [{ title: 3 }, 'title'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const owner = await memberCaller(t.app, kind);
    const res = await call(t.app, 'POST', '/api/sdk/tasks', { ...owner.auth, body });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('answers 400 for a non-uuid id, 404 for an unknown one and for another community’s task', async () => {
    const a = await memberCaller(t.app, kind);
    const b = await memberCaller(t.app, kind);
    const task = await call(t.app, 'POST', '/api/sdk/tasks', { ...a.auth, body: { title: 'A only' } });
    expect((await call(t.app, 'GET', '/api/sdk/tasks/xyz', { ...a.auth })).status).toBe(400);
    expect((await call(t.app, 'GET', `/api/sdk/tasks/${randomUUID()}`, { ...a.auth })).status).toBe(404);
    const cross = await call(t.app, 'GET', `/api/sdk/tasks/${task.body.data.id}`, { ...b.auth });
    expect(cross.status).toBe(404);
    expect(cross.body.code).toBe('NOT_FOUND');
    const bList = await call(t.app, 'GET', '/api/sdk/tasks', { ...b.auth });
    expect(bList.body.data).toMatchObject({ items: [], total: 0 });
  });

  it.each([
    ['page', '0'],
    ['limit', '101'],
    ['limit', 'abc'],
  ])('refuses %s=%s', async (field, value) => {
    const owner = await memberCaller(t.app, kind);
    const res = await call(t.app, 'GET', '/api/sdk/tasks', { ...owner.auth, query: { [field]: value } });
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe(field);
  });
});

describe('tasks and plans', () => {
  it('refuses content routes when a community override removes the content feature', async () => {
    const owner = await memberCaller(t.app, 'jwt');
    await t.app
      .get(PrismaService)
      .community.update({ where: { id: owner.communityId }, data: { featureOverrides: { content: false } } });
    const res = await call(t.app, 'GET', '/api/sdk/tasks', { ...owner.auth });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'FEATURE_NOT_AVAILABLE', featureKey: 'content' });
  });
});
