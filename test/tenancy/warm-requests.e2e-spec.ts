import type { AppRequest } from '../../src/common/http/request-context';
import { CredentialsService } from '../../src/modules/auth/credentials.service';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service';
import { InvalidationBus } from '../../src/redis/invalidation-bus';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithCredentials } from '../utils/factories';
import { call } from '../utils/http';
import { waitFor } from '../utils/worker';

/**
 * A request whose caller, community and role are in memory runs the access guards without a promise
 * (docs/architecture.md#a-warm-request-awaits-nothing); the first of them reads PostgreSQL and
 * answers a promise. Real database, real invalidation bus.
 */
describe('warm requests are answered from memory without a promise', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await waitFor('the invalidation subscription', () => t.app.get(InvalidationBus).live);
  });
  afterAll(() => t.close());

  function requestWith(headers: Record<string, string>): AppRequest {
    return {
      headers,
      hostname: '127.0.0.1',
      params: {},
      query: {},
      body: undefined,
    } as unknown as AppRequest;
  }

  it('authenticates a known API key and a login token from memory once each has been read', async () => {
    const member = await memberWithCredentials(t.app);
    const credentials = t.app.get(CredentialsService);
    const variants: Record<string, string>[] = [
      { 'x-api-key': member.apiKey },
      { authorization: `Bearer ${member.token}` },
    ];
    for (const headers of variants) {
      // the token's user and session may be warm from the login already; the key never is
      const first = credentials.authenticate(requestWith(headers));
      if ('x-api-key' in headers) expect(first).toBeInstanceOf(Promise);
      await expect(Promise.resolve(first)).resolves.toMatchObject({ status: 'ok' });
      const warm = credentials.authenticate(requestWith(headers));
      expect(warm).not.toBeInstanceOf(Promise);
      expect(warm).toMatchObject({ status: 'ok', actor: { userId: member.user.id } });
    }
  });

  it("resolves the key's community and the caller's role from memory, with the same answer", async () => {
    const member = await memberWithCredentials(t.app);
    const request = requestWith({ 'x-api-key': member.apiKey });
    const result = await t.app.get(CredentialsService).authenticate(request);
    if (result.status !== 'ok') throw new Error(`the key was refused: ${result.status}`);
    const tenancy = t.app.get(TenancyService);
    const cold = await tenancy.resolve(request, result.actor);
    const warm = tenancy.resolve(request, result.actor);
    expect(warm).not.toBeInstanceOf(Promise);
    expect(warm).toEqual(cold);
    expect(warm).toMatchObject({ communityId: member.community.id, role: 'OWNER', source: 'credential' });
  });

  it('still refuses, from memory, a key used in another community', async () => {
    const [home, other] = [await memberWithCredentials(t.app), await memberWithCredentials(t.app)];
    for (let i = 0; i < 2; i++) {
      const res = await call(t.app, 'GET', '/api/sdk/tweets', {
        apiKey: home.apiKey,
        headers: { 'x-community-id': other.community.id },
      });
      expect(res.status).toBe(403);
    }
  });
});
