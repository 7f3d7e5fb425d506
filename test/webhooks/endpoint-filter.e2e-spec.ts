import { FILTER_LIMITS } from '../../src/modules/webhooks/core/filter/event-filter';
import { useTestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';

const hooks = (communityId: string) => `/api/communities/${communityId}/webhooks`;
const STAFF_TWEETS = { type: 'tweet.created', data: { tweet: { authorId: { $in: ['u-1', 'u-2'] } } } };
const NEW_ADMINS = { data: { member: { role: 'ADMIN' }, previousRole: { $neq: 'ADMIN' } } };

/** A filter `levels` objects deep: {data: {a: {a: … {a: 1}}}}. */
function nested(levels: number): object {
  let inner: unknown = 1;
  for (let n = 0; n < levels - 1; n++) inner = { a: inner };
  return { data: inner };
}

/**
 * The endpoint's `filter` field (docs/api.md#content-filters): null unless set, shown on every read,
 * replaced and removed by PATCH, and refused with 400 naming the first bad node. What it does to
 * deliveries: endpoint-filter-delivery.e2e-spec.ts. Every answer here is also checked against the
 * OpenAPI document, the filter's recursive schema included.
 */
describe('webhook endpoint filter field', () => {
  const api = useTestApp();

  async function owner() {
    return memberWithToken(api.app, { plan: 'PRO', role: 'OWNER' });
  }

  function create(member: { community: { id: string }; token: string }, extra: object) {
    return call(api.app, 'POST', hooks(member.community.id), {
      token: member.token,
      body: {
        url: `https://93.184.215.14/${unique('hook')}`,
        events: ['tweet.created', 'member.updated'],
        ...extra,
      },
    });
  }

  function patch(member: { community: { id: string }; token: string }, id: string, body: object) {
    return call(api.app, 'PATCH', `${hooks(member.community.id)}/${id}`, { token: member.token, body });
  }

  it('is null unless set, is shown on create, list and PATCH, and is replaced and removed by PATCH', async () => {
    const member = await owner();
    const plain = await create(member, {});
    expect(plain.status).toBe(201);
    expect(plain.body.data.filter).toBeNull();

    const created = await create(member, { filter: STAFF_TWEETS });
    expect(created.status).toBe(201);
    expect(created.body.data.filter).toEqual(STAFF_TWEETS);
    const id = created.body.data.id as string;
    const list = await call(api.app, 'GET', hooks(member.community.id), { token: member.token });
    const listed = (list.body.data.items as { id: string; filter: unknown }[]).find((e) => e.id === id);
    expect(listed?.filter).toEqual(STAFF_TWEETS);

    // another field's PATCH keeps it
    expect((await patch(member, id, { description: 'staff only' })).body.data.filter).toEqual(STAFF_TWEETS);
    const replaced = await patch(member, id, { filter: NEW_ADMINS });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.filter).toEqual(NEW_ADMINS);
    const removed = await patch(member, id, { filter: null });
    expect(removed.body.data.filter).toBeNull();

    const row = await api.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    // each change of the filter is a new version (the relay's check); the description's PATCH was not one
    expect(row).toMatchObject({ filter: null, filterVersion: 2 });
  });

  const list = (length: number) => Array.from({ length }, (_, i) => `v${i}`);
  const manyFields = (count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, i]));
  const atLimit = {
    data: { content: 'x'.repeat(FILTER_LIMITS.bytes - JSON.stringify({ data: { content: '' } }).length) },
  };

  it.each<[string, unknown, string]>([
    ['not an object', 'tweet.created', 'filter'],
    ['a list', [{ type: 'tweet.created' }], 'filter'],
    ['empty', {}, 'filter'],
    ['a top-level field the body has not', { author: 'u-1' }, 'filter.author'],
    ['a dotted path', { 'data.tweet.authorId': 'u-1' }, 'filter["data.tweet.authorId"]'],
    [
      'an unknown operator',
      { data: { tweet: { content: { $regex: '^a' } } } },
      'filter.data.tweet.content.$regex',
    ],
    [
      'a bad $in item',
      { data: { author: { role: { $in: ['A', 'B', 'C', ['D']] } } } },
      'filter.data.author.role.$in[3]',
    ],
    ['a bad bound', { timestamp: { $gte: 'last week' } }, 'filter.timestamp.$gte'],
    [
      'a bad $or item',
      { $or: [{ type: 'tweet.created' }, { type: { $exists: 1 } }] },
      'filter.$or[1].type.$exists',
    ],
    [
      `deeper than ${FILTER_LIMITS.depth} levels`,
      nested(FILTER_LIMITS.depth + 1),
      'filter.data.a.a.a.a.a.a.a',
    ],
    [
      `more than ${FILTER_LIMITS.nodes} nodes`,
      { data: manyFields(FILTER_LIMITS.nodes) },
      `filter.data.f${FILTER_LIMITS.nodes - 1}`,
    ],
    [
      `more than ${FILTER_LIMITS.listItems} values in $nin`,
      { type: { $nin: list(FILTER_LIMITS.listItems + 1) } },
      `filter.type.$nin[${FILTER_LIMITS.listItems}]`,
    ],
    [`more than ${FILTER_LIMITS.bytes} bytes`, { data: { content: `${atLimit.data.content}x` } }, 'filter'],
  ])('refuses a filter %s with 400 naming %s, on create and PATCH', async (_what, filter, path) => {
    const member = await owner();
    const created = await create(member, { filter });
    expect(created.status).toBe(400);
    expect(created.body.code).toBe('VALIDATION_ERROR');
    expect(created.body.details[0].field).toBe(path);
    expect(created.body.error).toContain(path);
    expect(await api.prisma.webhookEndpoint.count({ where: { communityId: member.community.id } })).toBe(0);

    const endpoint = await create(member, { filter: STAFF_TWEETS });
    const patched = await patch(member, endpoint.body.data.id as string, { filter });
    expect(patched.status).toBe(400);
    expect(patched.body.details[0].field).toBe(path);
    const row = await api.prisma.webhookEndpoint.findUniqueOrThrow({
      where: { id: endpoint.body.data.id as string },
    });
    expect(row).toMatchObject({ filter: STAFF_TWEETS, filterVersion: 0 });
  });

  it('accepts a filter at each limit', async () => {
    const member = await owner();
    for (const filter of [
      nested(FILTER_LIMITS.depth),
      { data: manyFields(FILTER_LIMITS.nodes - 1) },
      { type: { $in: list(FILTER_LIMITS.listItems) } },
      atLimit,
    ]) {
      const created = await create(member, { filter });
      expect(created.status).toBe(201);
      expect(created.body.data.filter).toEqual(filter);
    }
  });

  it("is another community's business: no read nor change of its endpoint's filter", async () => {
    const member = await owner();
    const outsider = await owner();
    const created = await create(member, { filter: STAFF_TWEETS });
    const url = `${hooks(member.community.id)}/${created.body.data.id as string}`;
    // named in its own community's path, the endpoint does not exist; in the owner's path, the caller is no member
    const elsewhere = `${hooks(outsider.community.id)}/${created.body.data.id as string}`;
    const theirs = await call(api.app, 'GET', hooks(outsider.community.id), { token: outsider.token });
    expect(theirs.body.data.items).toEqual([]);
    expect(
      (await call(api.app, 'PATCH', elsewhere, { token: outsider.token, body: { filter: null } })).status,
    ).toBe(404);
    expect(
      (await call(api.app, 'PATCH', url, { token: outsider.token, body: { filter: null } })).status,
    ).toBe(403);
    const row = await api.prisma.webhookEndpoint.findUniqueOrThrow({
      where: { id: created.body.data.id as string },
    });
    expect(row.filter).toEqual(STAFF_TWEETS);
  });
});
