import { DEFAULT_API_KEY_SCOPES, isRoleAbove, permissionsOf } from './permissions';
import { hasFeature } from './plans';

describe('role permissions', () => {
  it('follows the contract table', () => {
    expect(permissionsOf('MEMBER')).toEqual(new Set(['CONTENT_CREATE']));
    expect(permissionsOf('MODERATOR').has('CONTENT_MODERATE')).toBe(true);
    expect(permissionsOf('MODERATOR').has('WEBHOOKS_MANAGE')).toBe(false);
    expect(permissionsOf('ADMIN').has('API_KEYS_MANAGE')).toBe(true);
    expect(permissionsOf('OWNER').size).toBe(8);
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
  it('lets per-community overrides win', () => {
    expect(hasFeature('FREE', { webhooks: true }, 'webhooks')).toBe(true);
    expect(hasFeature('ENTERPRISE', { embed: false }, 'embed')).toBe(false);
  });
});
