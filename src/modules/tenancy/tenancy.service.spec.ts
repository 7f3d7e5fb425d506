import { addMember, createCommunity, createUser, unique } from '../../../test/utils/factories';
import { useServiceModule } from '../../../test/utils/service-module';
import { type Permission, PERMISSIONS, permissionsOf } from '../../common/access/permissions';
import type { Role } from '../../generated/prisma/enums';
import type { AppRequest } from '../../common/http/request-context';
import { PasswordService } from '../auth/password.service';
import { TenancyModule } from './tenancy.module';
import { TenancyService } from './tenancy.service';
import { refusalOf, userActor } from '../../../test/utils/unit';

/** A request as TenantGuard hands it over: only the parts tenant resolution reads. */
function request(
  parts: {
    host?: string;
    params?: object;
    query?: object;
    body?: unknown;
    headers?: Record<string, string | string[]>;
  } = {},
): AppRequest {
  return {
    hostname: parts.host ?? 'localhost',
    params: parts.params ?? {},
    query: parts.query ?? {},
    body: parts.body,
    headers: parts.headers ?? {},
  } as unknown as AppRequest;
}

/**
 * Tenant resolution (docs/product-decisions.md#3-tenancy-roles-permissions-plans): which community a request
 * names, in the one priority order TenancyService writes down, and what the caller may do there. The stores
 * are the real ones on the run's database; no invalidation bus, so every lookup reads it.
 */
describe('TenancyService', () => {
  // PasswordService: the user factory hashes the test password with it
  const module = useServiceModule([TenancyModule], [PasswordService]);
  const tenancy = () => module.get(TenancyService);

  /** A new user who is a member of each community, with `role` (MEMBER by default). */
  async function memberOf(communities: { id: string }[], role: Role = 'MEMBER') {
    const user = await createUser(module);
    for (const community of communities) await addMember(module, community.id, user.id, role);
    return user;
  }

  /** An API key of `communityId` with `scopes`, acting as `userId` (who created it). */
  const apiKeyOf = (userId: string, communityId: string, scopes: Permission[]) =>
    userActor(userId, {
      kind: 'apiKey',
      defaultCommunityId: communityId,
      apiKey: { id: 'key', communityId, scopes },
    });

  describe('the explicit candidates (no database)', () => {
    it('come highest first: path, query string, body, X-Community-Id, X-Tenant-Id', () => {
      const all = request({
        params: { communityId: 'from-path' },
        query: { communityId: 'from-query' },
        body: { communityId: 'from-body' },
        headers: { 'x-community-id': 'from-x-community-id', 'x-tenant-id': 'from-x-tenant-id' },
      });
      expect(tenancy().explicitCandidates(all)).toEqual([
        { ref: 'from-path', source: 'path' },
        { ref: 'from-query', source: 'query' },
        { ref: 'from-body', source: 'body' },
        { ref: 'from-x-community-id', source: 'x-community-id' },
        { ref: 'from-x-tenant-id', source: 'x-tenant-id' },
      ]);
    });

    it('skip blank values and trim the others', () => {
      const candidates = tenancy().explicitCandidates(
        request({
          params: { communityId: '   ' },
          query: { communityId: '' },
          body: { communityId: ' padded ' },
          headers: { 'x-community-id': ' ', 'x-tenant-id': ' header ' },
        }),
      );
      expect(candidates).toEqual([
        { ref: 'padded', source: 'body' },
        { ref: 'header', source: 'x-tenant-id' },
      ]);
    });

    it('read no body that is not an object (a JSON array, a string)', () => {
      expect(tenancy().explicitCandidates(request({ body: 'communityId' }))).toEqual([]);
      expect(tenancy().explicitCandidates(request({ body: null }))).toEqual([]);
    });

    it.each([
      ['a repeated query value', { query: { communityId: ['b', 'a'] } }, 'communityId in the query string'],
      ['a bracketed query value', { query: { 'communityId[]': 'b' } }, 'communityId in the query string'],
      ['a number in the body', { body: { communityId: 123 } }, 'communityId in the body'],
      ['null in the body', { body: { communityId: null } }, 'communityId in the body'],
      ['an object in the body', { body: { communityId: { id: 'x' } } }, 'communityId in the body'],
    ])(
      'refuse %s with 400 naming the field, rather than fall through to a lower source',
      async (_what, parts, named) => {
        const err = await refusalOf(() =>
          tenancy().explicitCandidates(request({ ...parts, headers: { 'x-tenant-id': 'x' } })),
        );
        expect(err).toMatchObject({
          status: 400,
          code: 'VALIDATION_ERROR',
          extra: { details: [{ field: 'communityId' }] },
        });
        expect(err.message).toContain(named);
      },
    );
  });

  describe('resolve: which community wins', () => {
    it("a verified custom domain on Host wins over the path, the headers and the credential's community", async () => {
      const domain = `${unique('shop')}.example.test`;
      const byHost = await createCommunity(module, { customDomain: domain });
      const other = await createCommunity(module);
      const user = await memberOf([byHost, other]);
      const tenant = await tenancy().resolve(
        request({ host: domain, params: { communityId: other.id }, headers: { 'x-tenant-id': other.slug } }),
        userActor(user.id, { defaultCommunityId: other.id }),
      );
      expect(tenant).toMatchObject({ communityId: byHost.id, source: 'host' });
    });

    it('matches the Host with any case, a port and a trailing dot', async () => {
      const domain = `${unique('shop')}.example.test`;
      const byHost = await createCommunity(module, { customDomain: domain });
      const user = await memberOf([byHost]);
      const tenant = await tenancy().resolve(
        request({ host: `${domain.toUpperCase()}.:8443` }),
        userActor(user.id),
      );
      expect(tenant).toMatchObject({ communityId: byHost.id, source: 'host' });
    });

    it("never resolves the service's own names or an IP address by Host, even when a row holds the IP", async () => {
      const ip = `10.${[0, 0, 0].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;
      await createCommunity(module, { customDomain: ip });
      const named = await createCommunity(module);
      const user = await memberOf([named]);
      for (const host of ['localhost', '127.0.0.1', '[::1]', ip]) {
        const tenant = await tenancy().resolve(
          request({ host, headers: { 'x-tenant-id': named.slug } }),
          userActor(user.id),
        );
        expect(tenant).toMatchObject({ communityId: named.id, source: 'x-tenant-id' });
      }
    });

    it("an explicit reference wins over the credential's community", async () => {
      const named = await createCommunity(module);
      const ownDefault = await createCommunity(module);
      const user = await memberOf([named, ownDefault]);
      const tenant = await tenancy().resolve(
        request({ query: { communityId: named.id } }),
        userActor(user.id, { defaultCommunityId: ownDefault.id }),
      );
      expect(tenant).toMatchObject({ communityId: named.id, source: 'query' });
    });

    it("the credential's community when the request names none", async () => {
      const ownDefault = await createCommunity(module);
      const user = await memberOf([ownDefault]);
      const tenant = await tenancy().resolve(
        request(),
        userActor(user.id, { defaultCommunityId: ownDefault.id }),
      );
      expect(tenant).toMatchObject({ communityId: ownDefault.id, source: 'credential', role: 'MEMBER' });
    });

    it('a slug in any case names its community', async () => {
      const named = await createCommunity(module);
      const user = await memberOf([named]);
      const tenant = await tenancy().resolve(
        request({ headers: { 'x-community-id': named.slug.toUpperCase() } }),
        userActor(user.id),
      );
      expect(tenant.communityId).toBe(named.id);
    });

    it('nothing named and no credential community: 400 TENANT_CONTEXT_REQUIRED', async () => {
      const user = await createUser(module);
      const err = await refusalOf(() => tenancy().resolve(request(), userActor(user.id)));
      expect(err).toMatchObject({ status: 400, code: 'TENANT_CONTEXT_REQUIRED' });
    });

    it('a reference to no community: 400 naming it, never a fall-back to a lower source', async () => {
      const ownDefault = await createCommunity(module);
      const user = await memberOf([ownDefault]);
      const err = await refusalOf(() =>
        tenancy().resolve(
          request({ headers: { 'x-tenant-id': 'no-such-community' } }),
          userActor(user.id, { defaultCommunityId: ownDefault.id }),
        ),
      );
      expect(err).toMatchObject({
        status: 400,
        code: 'TENANT_CONTEXT_REQUIRED',
        message: "Community 'no-such-community' could not be resolved",
      });
    });
  });

  describe('resolve: what the caller may do there', () => {
    it("a member gets their role's permissions", async () => {
      const community = await createCommunity(module);
      const user = await memberOf([community], 'MODERATOR');
      const tenant = await tenancy().resolve(
        request({ params: { communityId: community.id } }),
        userActor(user.id),
      );
      expect(tenant).toMatchObject({ role: 'MODERATOR', permissions: permissionsOf('MODERATOR') });
    });

    it('a user who is not a member: 403', async () => {
      const community = await createCommunity(module);
      const user = await createUser(module);
      const err = await refusalOf(() =>
        tenancy().resolve(request({ params: { communityId: community.id } }), userActor(user.id)),
      );
      expect(err).toMatchObject({ status: 403, message: 'You are not a member of this community' });
    });

    it('a platform admin who is not a member gets every permission, with no role', async () => {
      const community = await createCommunity(module);
      const admin = await createUser(module, { isPlatformAdmin: true });
      const tenant = await tenancy().resolve(
        request({ params: { communityId: community.id } }),
        userActor(admin.id, { isPlatformAdmin: true }),
      );
      expect(tenant.role).toBeNull();
      expect([...tenant.permissions].sort()).toEqual([...PERMISSIONS].sort());
    });

    it('an API key acts within its scopes in its own community, and nowhere else', async () => {
      const own = await createCommunity(module);
      const other = await createCommunity(module);
      const user = await memberOf([own, other], 'OWNER');
      const key = apiKeyOf(user.id, own.id, ['CONTENT_CREATE', 'WEBHOOKS_MANAGE']);
      const tenant = await tenancy().resolve(request(), key);
      expect([...tenant.permissions].sort()).toEqual(['CONTENT_CREATE', 'WEBHOOKS_MANAGE']);
      const err = await refusalOf(() =>
        tenancy().resolve(request({ params: { communityId: other.id } }), key),
      );
      expect(err).toMatchObject({ status: 403, message: 'This API key belongs to another community' });
    });

    it('an API key whose creator left the community: 403', async () => {
      const community = await createCommunity(module);
      const user = await createUser(module);
      const key = apiKeyOf(user.id, community.id, ['CONTENT_CREATE']);
      const err = await refusalOf(() => tenancy().resolve(request(), key));
      expect(err).toMatchObject({
        status: 403,
        message: "The API key's creator is no longer a member of this community",
      });
    });

    it('a webhook-portal session opens its own community only, however the request names another', async () => {
      const portal = await createCommunity(module);
      const other = await createCommunity(module);
      const user = await memberOf([portal, other], 'OWNER');
      const session = userActor(user.id, { defaultCommunityId: portal.id, portalCommunityId: portal.id });
      await expect(tenancy().resolve(request(), session)).resolves.toMatchObject({ communityId: portal.id });
      const err = await refusalOf(() =>
        tenancy().resolve(request({ headers: { 'x-tenant-id': other.id } }), session),
      );
      expect(err).toMatchObject({
        status: 403,
        message: 'This webhook portal session is for another community',
      });
    });
  });

  describe('resolveCommunityId (login: no credentials yet)', () => {
    it('takes the Host first, then the explicit reference, else the fallback', async () => {
      const domain = `${unique('shop')}.example.test`;
      const byHost = await createCommunity(module, { customDomain: domain });
      const named = await createCommunity(module);
      const withBoth = request({ host: domain, body: { communityId: named.slug } });
      expect(await tenancy().resolveCommunityId(withBoth, 'fallback')).toBe(byHost.id);
      expect(
        await tenancy().resolveCommunityId(request({ body: { communityId: named.slug } }), 'fallback'),
      ).toBe(named.id);
      expect(await tenancy().resolveCommunityId(request(), 'fallback')).toBe('fallback');
      expect(await tenancy().resolveCommunityId(request(), null)).toBeNull();
    });

    it('refuses a reference to no community with 400', async () => {
      const err = await refusalOf(() =>
        tenancy().resolveCommunityId(request({ body: { communityId: 'nowhere' } }), null),
      );
      expect(err).toMatchObject({ status: 400, code: 'TENANT_CONTEXT_REQUIRED' });
    });
  });
});
