import { DEFAULT_API_KEY_SCOPES, isRoleAbove, PERMISSIONS, permissionsOf, ROLES } from './permissions';
import { changeableAuthors, mayChangeAuthored, mayPost } from './posting';
import { FEATURE_KEYS, hasFeature, planFeatures, PLANS } from './plans';

// The tables (permissions.ts, features.ts) grow by a line per module: these checks name the lines they
// are about and derive the rest from the tables, so a new line changes no number here
// (docs/adding-a-module.md#the-registrations-one-line-each).

describe('role permissions', () => {
  it('follows the role table of docs/product-decisions.md#3-tenancy-roles-permissions-plans', () => {
    expect(permissionsOf('MEMBER').has('CONTENT_CREATE')).toBe(true);
    expect(permissionsOf('MEMBER').has('CONTENT_MODERATE')).toBe(false);
    expect(permissionsOf('MODERATOR').has('CONTENT_MODERATE')).toBe(true);
    expect(permissionsOf('MODERATOR').has('EMBED_CREATE')).toBe(true);
    expect(permissionsOf('MODERATOR').has('WEBHOOKS_MANAGE')).toBe(false);
    expect(permissionsOf('ADMIN').has('API_KEYS_MANAGE')).toBe(true);
    expect(permissionsOf('ADMIN').has('COMMUNITY_MANAGE')).toBe(true);
  });
  it("derives each role's set from the lowest role holding each permission", () => {
    // the owner holds every permission, and each role every permission of the roles below it
    expect(permissionsOf('OWNER')).toEqual(new Set(PERMISSIONS));
    for (const [higher, lower] of ROLES.slice(0, -1).map((role, i) => [role, ROLES[i + 1]] as const)) {
      expect([...permissionsOf(lower)].filter((p) => !permissionsOf(higher).has(p))).toEqual([]);
    }
    // in the table's order
    expect([...permissionsOf('MEMBER')]).toEqual(PERMISSIONS.filter((p) => permissionsOf('MEMBER').has(p)));
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
  it('follows the plan table of docs/product-decisions.md#3-tenancy-roles-permissions-plans', () => {
    expect(hasFeature('FREE', {}, 'content')).toBe(true);
    expect(hasFeature('FREE', {}, 'webhooks')).toBe(false);
    expect(hasFeature('PRO', {}, 'webhooks')).toBe(true);
    expect(hasFeature('PRO', {}, 'embed')).toBe(true);
    expect(hasFeature('PRO', {}, 'members_bulk')).toBe(false);
    expect(hasFeature('ENTERPRISE', {}, 'custom_domain')).toBe(true);
  });
  it("derives each plan's features from the smallest plan including each feature", () => {
    // the largest plan has every feature, and each plan every feature of the plans before it
    expect(planFeatures('ENTERPRISE')).toEqual(FEATURE_KEYS);
    for (const [smaller, larger] of PLANS.slice(0, -1).map((plan, i) => [plan, PLANS[i + 1]] as const)) {
      expect(planFeatures(smaller).filter((f) => !planFeatures(larger).includes(f))).toEqual([]);
    }
    expect(planFeatures('FREE')).toEqual(expect.arrayContaining(['content', 'members']));
    expect(planFeatures('PRO')).toEqual(
      expect.arrayContaining(['webhooks', 'customization', 'advertisements']),
    );
    expect(planFeatures('PRO')).not.toContain('members_bulk');
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
