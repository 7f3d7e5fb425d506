import { DEFAULT_API_KEY_SCOPES, isRoleAbove, permissionsOf } from './permissions';
import { changeableAuthors, mayChangeAuthored, mayPost } from './posting';
import { hasFeature, planFeatures } from './plans';

describe('role permissions', () => {
  it('follows the contract table', () => {
    expect(permissionsOf('MEMBER')).toEqual(new Set(['CONTENT_CREATE']));
    expect(permissionsOf('MODERATOR').has('CONTENT_MODERATE')).toBe(true);
    expect(permissionsOf('MODERATOR').has('WEBHOOKS_MANAGE')).toBe(false);
    expect(permissionsOf('ADMIN').has('API_KEYS_MANAGE')).toBe(true);
    expect(permissionsOf('OWNER').size).toBe(8);
  });
  it("derives each role's set from the lowest role holding each permission", () => {
    expect([...permissionsOf('MODERATOR')]).toEqual(['CONTENT_CREATE', 'CONTENT_MODERATE', 'EMBED_CREATE']);
    expect([...permissionsOf('ADMIN')]).toEqual([...permissionsOf('OWNER')]);
  });
  it('gives API keys an ADMIN set without key management', () => {
    expect(DEFAULT_API_KEY_SCOPES).not.toContain('API_KEYS_MANAGE');
    expect(DEFAULT_API_KEY_SCOPES).toContain('WEBHOOKS_MANAGE');
  });
  it('orders roles', () => {
    expect(isRoleAbove('OWNER', 'ADMIN')).toBe(true);
    expect(isRoleAbove('MEMBER', 'MODERATOR')).toBe(false);
    expect(isRoleAbove('ADMIN', 'ADMIN')).toBe(false);
  });
});

describe('plan features', () => {
  it('follows the contract table', () => {
    expect(hasFeature('FREE', {}, 'webhooks')).toBe(false);
    expect(hasFeature('PRO', {}, 'webhooks')).toBe(true);
    expect(hasFeature('PRO', {}, 'members_bulk')).toBe(false);
    expect(hasFeature('ENTERPRISE', {}, 'custom_domain')).toBe(true);
  });
  it("derives each plan's features from the smallest plan including each feature", () => {
    expect(planFeatures('FREE')).toEqual(['content', 'members']);
    expect(planFeatures('PRO')).toEqual([
      'content',
      'members',
      'webhooks',
      'customization',
      'advertisements',
      'embed',
    ]);
    expect(planFeatures('ENTERPRISE')).toHaveLength(8);
  });
  it('lets per-community overrides win', () => {
    expect(hasFeature('FREE', { webhooks: true }, 'webhooks')).toBe(true);
    expect(hasFeature('ENTERPRISE', { embed: false }, 'embed')).toBe(false);
  });
});

describe('posting rule', () => {
  const author = { userId: 'author' };
  const someoneElse = { userId: 'someone-else' };

  it('lets anyone who may create content post unless the community turned member posts off', () => {
    expect(mayPost(permissionsOf('MEMBER'), true)).toBe(true);
    expect(mayPost(permissionsOf('MEMBER'), false)).toBe(false);
    expect(mayPost(permissionsOf('MODERATOR'), false)).toBe(true);
    expect(mayPost(permissionsOf('OWNER'), false)).toBe(true);
  });

  it('lets the author (while they may still create content) or a moderator change an item', () => {
    expect(mayChangeAuthored(permissionsOf('MEMBER'), author, 'author')).toBe(true);
    expect(mayChangeAuthored(permissionsOf('MEMBER'), someoneElse, 'author')).toBe(false);
    expect(mayChangeAuthored(new Set(), author, 'author')).toBe(false);
    expect(mayChangeAuthored(permissionsOf('MODERATOR'), someoneElse, 'author')).toBe(true);
  });

  it('says the same as a condition over authors, for a statement that changes and checks at once', () => {
    expect(changeableAuthors(permissionsOf('MEMBER'), author)).toEqual({
      anyAuthor: false,
      ownAuthorId: 'author',
    });
    expect(changeableAuthors(permissionsOf('MODERATOR'), author)).toEqual({
      anyAuthor: true,
      ownAuthorId: 'author',
    });
    expect(changeableAuthors(new Set(), author)).toEqual({ anyAuthor: false, ownAuthorId: null });
  });
});
