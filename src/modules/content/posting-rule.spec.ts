import { createCommunity } from '../../../test/utils/factories';
import { useServiceModule } from '../../../test/utils/service-module';
import { apiKeyPermissions, permissionsOf, type Permission } from '../../common/access/permissions';
import { type MemberPostsSetting, PostingRule } from '../../common/access/posting';
import type { TenantContext } from '../../common/http/request-context';
import { CommunitiesStore, CommunitiesStoreModule } from '../community/communities.store';
import { refusalOf, userActor } from '../../../test/utils/unit';

/** The tenant of a caller holding `permissions` in community `communityId`. */
function tenantWith(permissions: ReadonlySet<Permission>, communityId = 'c1'): TenantContext {
  return {
    communityId,
    community: { id: communityId, slug: communityId, plan: 'PRO', featureOverrides: {} },
    role: null,
    permissions,
    source: 'path',
  };
}

/**
 * The posting rule (src/common/access/posting.ts) as the content services call it, with the setting
 * ContentModule gives it: the community's allowMemberPosts, read by CommunitiesStore.
 */
describe('PostingRule', () => {
  describe('assertMayPost, with the setting read from the communities table (as ContentModule wires it)', () => {
    const module = useServiceModule([CommunitiesStoreModule]);
    const rule = () => new PostingRule(module.get(CommunitiesStore));

    async function communityAllowingMemberPosts(allowMemberPosts: boolean) {
      const community = await createCommunity(module);
      await module.prisma.community.update({ where: { id: community.id }, data: { allowMemberPosts } });
      return community.id;
    }

    it('lets a member post where member posts are allowed', async () => {
      const communityId = await communityAllowingMemberPosts(true);
      await expect(
        rule().assertMayPost(tenantWith(permissionsOf('MEMBER'), communityId)),
      ).resolves.toBeUndefined();
    });

    it('refuses a member with 403 where the community turned member posts off', async () => {
      const communityId = await communityAllowingMemberPosts(false);
      const err = await refusalOf(() =>
        rule().assertMayPost(tenantWith(permissionsOf('MEMBER'), communityId)),
      );
      expect(err).toMatchObject({
        status: 403,
        code: 'FORBIDDEN',
        message: 'This community does not allow member posts',
      });
    });

    it('lets a moderator, an admin and the owner post there all the same', async () => {
      const communityId = await communityAllowingMemberPosts(false);
      for (const role of ['MODERATOR', 'ADMIN', 'OWNER'] as const)
        await expect(
          rule().assertMayPost(tenantWith(permissionsOf(role), communityId)),
        ).resolves.toBeUndefined();
    });

    it("reads each community's own setting", async () => {
      const open = await communityAllowingMemberPosts(true);
      const closed = await communityAllowingMemberPosts(false);
      const member = permissionsOf('MEMBER');
      await expect(rule().assertMayPost(tenantWith(member, open))).resolves.toBeUndefined();
      await expect(rule().assertMayPost(tenantWith(member, closed))).rejects.toMatchObject({ status: 403 });
    });
  });

  it("never reads the setting for a caller who may moderate (no query on a moderator's post)", async () => {
    let reads = 0;
    const setting: MemberPostsSetting = {
      allowsMemberPosts: () => {
        reads++;
        return Promise.resolve(false);
      },
    };
    const rule = new PostingRule(setting);
    await rule.assertMayPost(tenantWith(permissionsOf('MODERATOR')));
    expect(reads).toBe(0);
    await expect(rule.assertMayPost(tenantWith(permissionsOf('MEMBER')))).rejects.toMatchObject({
      status: 403,
    });
    expect(reads).toBe(1);
  });

  describe('assertMayChange', () => {
    const rule = new PostingRule({ allowsMemberPosts: () => Promise.resolve(true) });

    it("lets the author change their own item and refuses another member's with 403 naming the item", async () => {
      const member = tenantWith(permissionsOf('MEMBER'));
      expect(() => rule.assertMayChange(member, userActor('author'), 'author', 'tweet')).not.toThrow();
      const err = await refusalOf(() =>
        rule.assertMayChange(member, userActor('someone-else'), 'author', 'tweet'),
      );
      expect(err).toMatchObject({
        status: 403,
        message: "Only the tweet's author or a moderator can change it",
      });
    });

    it("lets a moderator change anyone's item", () => {
      const moderator = tenantWith(permissionsOf('MODERATOR'));
      expect(() => rule.assertMayChange(moderator, userActor('moderator'), 'author', 'task')).not.toThrow();
    });

    it('refuses the author once they may no longer create content (an API key scoped without CONTENT_CREATE)', async () => {
      const readOnlyKey = tenantWith(apiKeyPermissions('MEMBER', ['WEBHOOKS_MANAGE']));
      const err = await refusalOf(() =>
        rule.assertMayChange(readOnlyKey, userActor('author'), 'author', 'comment'),
      );
      expect(err).toMatchObject({
        status: 403,
        message: "Only the comment's author or a moderator can change it",
      });
    });
  });
});
