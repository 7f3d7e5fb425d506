import { useTestApp } from '../utils/app';
import { call } from '../utils/http';
import { memberWithToken } from '../utils/factories';

const PUBLIC_URL = 'https://93.184.215.14/hooks';
const CAP = 3;
const base = (communityId: string) => `/api/communities/${communityId}/webhooks`;

// WEBHOOK_MAX_ENDPOINTS_PER_COMMUNITY bounds how far one event fans out
// (docs/product-decisions.md#5-webhooks).
describe('webhook endpoints per community are capped', () => {
  const t = useTestApp({ WEBHOOK_MAX_ENDPOINTS_PER_COMMUNITY: String(CAP) });

  const create = (communityId: string, token: string) =>
    call(t.app, 'POST', base(communityId), { token, body: { url: PUBLIC_URL, events: ['tweet.created'] } });

  it('defaults to 50', async () => {
    const { loadConfig } = await import('../../src/config/app-config');
    const env = { ...process.env };
    delete env.WEBHOOK_MAX_ENDPOINTS_PER_COMMUNITY;
    expect(loadConfig(env).config.WEBHOOK_MAX_ENDPOINTS_PER_COMMUNITY).toBe(50);
  });

  it('creates up to the cap, then answers 409 CONFLICT with a clear message', async () => {
    const { community, token } = await memberWithToken(t.app, { plan: 'PRO', role: 'OWNER' });
    for (let i = 0; i < CAP; i++) expect((await create(community.id, token)).status).toBe(201);

    const over = await create(community.id, token);
    expect(over.status).toBe(409);
    expect(over.body).toEqual({
      success: false,
      code: 'CONFLICT',
      error: expect.stringMatching(new RegExp(`maximum of ${CAP} webhook endpoints`)),
    });
    expect(await t.prisma.webhookEndpoint.count({ where: { communityId: community.id } })).toBe(CAP);

    // Deleting one makes room again.
    const list = await call(t.app, 'GET', base(community.id), { token });
    const del = await call(t.app, 'DELETE', `${base(community.id)}/${list.body.data.items[0].id}`, { token });
    expect(del.status).toBe(200);
    expect((await create(community.id, token)).status).toBe(201);
  });

  it('of two concurrent creates at cap-1, exactly one succeeds', async () => {
    const { community, token } = await memberWithToken(t.app, { plan: 'PRO', role: 'OWNER' });
    for (let i = 0; i < CAP - 1; i++) expect((await create(community.id, token)).status).toBe(201);

    const results = await Promise.all([create(community.id, token), create(community.id, token)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await t.prisma.webhookEndpoint.count({ where: { communityId: community.id } })).toBe(CAP);
  });

  it("counts each community's endpoints alone", async () => {
    const a = await memberWithToken(t.app, { plan: 'PRO', role: 'OWNER' });
    const b = await memberWithToken(t.app, { plan: 'PRO', role: 'OWNER' });
    for (let i = 0; i < CAP; i++) expect((await create(a.community.id, a.token)).status).toBe(201);
    expect((await create(a.community.id, a.token)).status).toBe(409);
    expect((await create(b.community.id, b.token)).status).toBe(201);
  });
});
