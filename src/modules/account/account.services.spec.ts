import { createHash } from 'node:crypto';
import { addMember, createCommunity, createUser, outboxOf, unique } from '../../../test/utils/factories';
import { useServiceModule } from '../../../test/utils/service-module';
import { DEFAULT_API_KEY_SCOPES } from '../../common/access/permissions';
import { PasswordService } from '../auth/password.service';
import { AccountModule } from './account.module';
import { ApiKeysService } from './api-keys.service';
import { CommunitiesService } from './communities.service';
import { IdentityService } from './identity.service';
import { refusalOf, userActor } from '../../../test/utils/unit';

/**
 * The account's rules (docs/api.md#identity-tenancy-access), held by its services: who may create which community, a new
 * community's owner, API keys shown once and revoked per community, and whose identity a caller sees. The
 * stores are the real ones on the run's database.
 */
describe('account services', () => {
  // PasswordService: the user factory hashes the test password with it
  const module = useServiceModule([AccountModule], [PasswordService]);

  describe('CommunitiesService', () => {
    const communities = () => module.get(CommunitiesService);

    it('lets anybody create a FREE community and only a platform admin a paid one', async () => {
      expect(() => communities().assertPlanAllowed(undefined, false)).not.toThrow();
      expect(() => communities().assertPlanAllowed('FREE', false)).not.toThrow();
      for (const plan of ['PRO', 'ENTERPRISE'] as const) {
        const err = await refusalOf(() => communities().assertPlanAllowed(plan, false));
        expect(err).toMatchObject({
          status: 403,
          message: 'Only platform admins can create communities on a paid plan',
        });
        expect(() => communities().assertPlanAllowed(plan, true)).not.toThrow();
      }
    });

    it('creates the community on FREE with a lower-cased slug, its creator its OWNER under their own name', async () => {
      const owner = await createUser(module, { name: 'Ada Owner' });
      const slug = unique('Mixed-Case');
      const community = await communities().create({ name: 'Ada’s', slug, ownerEmail: owner.email });
      expect(community).toMatchObject({ slug: slug.toLowerCase(), plan: 'FREE', name: 'Ada’s' });
      const membership = await module.prisma.membership.findFirstOrThrow({
        where: { communityId: community.id },
      });
      expect(membership).toMatchObject({ userId: owner.id, role: 'OWNER', displayName: 'Ada Owner' });
      expect((await outboxOf(module, community.id, 'member.joined')).length).toBe(1);
    });

    it('refuses a taken slug in any case with 409 and leaves nothing behind', async () => {
      const owner = await createUser(module);
      const slug = unique('taken');
      await communities().create({ name: 'First', slug, ownerEmail: owner.email });
      const err = await refusalOf(() =>
        communities().create({ name: 'Second', slug: slug.toUpperCase(), ownerEmail: owner.email }),
      );
      expect(err).toMatchObject({ status: 409, code: 'CONFLICT', message: `The slug '${slug}' is taken` });
      expect(await module.prisma.community.count({ where: { slug } })).toBe(1);
    });

    it('finds communities by slug in the order asked, leaving out slugs with none', async () => {
      const [a, b] = [await createCommunity(module), await createCommunity(module)];
      const found = await communities().findBySlugs([b.slug, 'no-such-slug', a.slug]);
      expect(found.map((c) => c.id)).toEqual([b.id, a.id]);
    });
  });

  describe('ApiKeysService', () => {
    const keys = () => module.get(ApiKeysService);

    async function ownerOfNewCommunity() {
      const community = await createCommunity(module, { plan: 'PRO' });
      const user = await createUser(module);
      await addMember(module, community.id, user.id, 'OWNER');
      return { communityId: community.id, userId: user.id };
    }

    it('shows the whole key once, on create, and stores only a hash of its secret', async () => {
      const { communityId, userId } = await ownerOfNewCommunity();
      const created = await keys().create(communityId, userId, 'ci');
      expect(created.key).toMatch(/^cpk_/);
      expect(created.key.startsWith(created.keyPrefix)).toBe(true);
      const [listed] = await keys().list(communityId);
      expect(listed).not.toHaveProperty('key');
      expect(listed).toMatchObject({ id: created.id, keyPrefix: created.keyPrefix, name: 'ci' });
      const row = await module.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
      const secret = created.key.slice(created.keyPrefix.length + 1);
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(row.secretHash).toBe(createHash('sha256').update(secret).digest('hex'));
    });

    it('gives a key the default scopes (no key management) unless created with its own', async () => {
      const { communityId, userId } = await ownerOfNewCommunity();
      expect((await keys().create(communityId, userId, 'default')).scopes).toEqual([
        ...DEFAULT_API_KEY_SCOPES,
      ]);
      expect((await keys().create(communityId, userId, 'narrow', ['CONTENT_CREATE'])).scopes).toEqual([
        'CONTENT_CREATE',
      ]);
    });

    it("lists and revokes a community's own keys only: another community's key is 404", async () => {
      const a = await ownerOfNewCommunity();
      const b = await ownerOfNewCommunity();
      const bKey = await keys().create(b.communityId, b.userId, 'b');
      expect(await keys().list(a.communityId)).toEqual([]);
      const err = await refusalOf(() => keys().revoke(a.communityId, bKey.id));
      expect(err).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'API key not found' });
      expect((await module.prisma.apiKey.findUniqueOrThrow({ where: { id: bKey.id } })).revokedAt).toBeNull();

      const revoked = await keys().revoke(b.communityId, bKey.id);
      expect(revoked.revokedAt).not.toBeNull();
      expect(revoked).not.toHaveProperty('key');
    });
  });

  describe('IdentityService', () => {
    const identity = () => module.get(IdentityService);

    it('shows a login its memberships oldest first, and an API key only its own community and itself', async () => {
      const [first, second] = [await createCommunity(module), await createCommunity(module)];
      const user = await createUser(module);
      await addMember(module, first.id, user.id, 'OWNER');
      await addMember(module, second.id, user.id, 'MEMBER');
      const login = userActor(user.id, { email: user.email, defaultCommunityId: first.id });
      const asUser = await identity().identity(login);
      expect(asUser).toMatchObject({
        type: 'user',
        communityId: first.id,
        user: { id: user.id, email: user.email },
      });
      expect(asUser.memberships.map((m) => [m.communityId, m.role])).toEqual([
        [first.id, 'OWNER'],
        [second.id, 'MEMBER'],
      ]);
      expect(asUser).not.toHaveProperty('apiKey');

      const key = await module.get(ApiKeysService).create(second.id, user.id, 'second-key');
      const asKey = await identity().identity({
        ...login,
        kind: 'apiKey',
        defaultCommunityId: second.id,
        apiKey: { id: key.id, communityId: second.id, scopes: key.scopes as never },
      });
      expect(asKey.memberships.map((m) => m.communityId)).toEqual([second.id]);
      expect(asKey.apiKey).toMatchObject({ id: key.id, keyPrefix: key.keyPrefix });
    });

    it('answers 401 for a user who no longer exists', async () => {
      const err = await refusalOf(() =>
        identity().identity(userActor('00000000-0000-4000-8000-000000000000')),
      );
      expect(err).toMatchObject({ status: 401 });
    });
  });
});
