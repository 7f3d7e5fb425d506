import { Role } from '../../generated/prisma/enums';

/** Roles, highest first. */
export const ROLES: readonly Role[] = ['OWNER', 'ADMIN', 'MODERATOR', 'MEMBER'];

/**
 * The one role → permission table (docs/product-decisions.md#3-tenancy-roles-permissions-plans): each
 * permission, one line each, with the lowest role that holds it (every higher role holds it too). A
 * new permission adds its line here; the type, the list and each role's set are derived from it.
 */
const LOWEST_ROLE_WITH = {
  COMMUNITY_MANAGE: 'ADMIN',
  CONTENT_CREATE: 'MEMBER',
  CONTENT_MODERATE: 'MODERATOR',
  MEMBERS_MANAGE: 'ADMIN',
  CUSTOMIZATION_MANAGE: 'ADMIN',
  WEBHOOKS_MANAGE: 'ADMIN',
  API_KEYS_MANAGE: 'ADMIN',
  EMBED_CREATE: 'MODERATOR',
} as const satisfies Record<string, Role>;

export type Permission = keyof typeof LOWEST_ROLE_WITH;
export const PERMISSIONS = Object.keys(LOWEST_ROLE_WITH) as Permission[];

const heldBy = (role: Role) =>
  PERMISSIONS.filter((permission) => ROLES.indexOf(role) <= ROLES.indexOf(LOWEST_ROLE_WITH[permission]));
const ROLE_PERMISSIONS = new Map(ROLES.map((role) => [role, new Set(heldBy(role))]));

/** The role's permissions: one set per role, shared by every request (read-only, so never copied). */
export function permissionsOf(role: Role): ReadonlySet<Permission> {
  return ROLE_PERMISSIONS.get(role)!;
}

/**
 * The permissions of an API key's request: its creator's role's, within the key's scopes. Computed once
 * per scope list and role: the list is the cached key row's own, so a warm key's requests reuse the
 * set (a list no longer referenced takes its sets with it).
 */
const keyPermissionSets = new WeakMap<readonly Permission[], Map<Role, ReadonlySet<Permission>>>();
export function apiKeyPermissions(role: Role, scopes: readonly Permission[]): ReadonlySet<Permission> {
  let byRole = keyPermissionSets.get(scopes);
  if (!byRole) keyPermissionSets.set(scopes, (byRole = new Map()));
  let permissions = byRole.get(role);
  if (!permissions) {
    const within = new Set(scopes);
    byRole.set(role, (permissions = new Set([...permissionsOf(role)].filter((p) => within.has(p)))));
  }
  return permissions;
}

/** What an API key may do unless created with narrower scopes: an ADMIN's permissions less key management. */
export const DEFAULT_API_KEY_SCOPES: readonly Permission[] = heldBy('ADMIN').filter(
  (p) => p !== 'API_KEYS_MANAGE',
);

/** 0 for OWNER, growing downwards: a lower rank is a higher role. */
export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function isRoleAbove(a: Role, b: Role): boolean {
  return roleRank(a) < roleRank(b);
}
