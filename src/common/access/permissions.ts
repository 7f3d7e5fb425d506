import { Role } from '../../generated/prisma/enums';

export const PERMISSIONS = [
  'COMMUNITY_MANAGE',
  'CONTENT_CREATE',
  'CONTENT_MODERATE',
  'MEMBERS_MANAGE',
  'CUSTOMIZATION_MANAGE',
  'WEBHOOKS_MANAGE',
  'API_KEYS_MANAGE',
  'EMBED_CREATE',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Roles, highest first. */
export const ROLES: readonly Role[] = ['OWNER', 'ADMIN', 'MODERATOR', 'MEMBER'];

/** The one role → permission table (docs/product-decisions.md#3-tenancy-roles-permissions-plans). */
const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  OWNER: PERMISSIONS,
  ADMIN: PERMISSIONS,
  MODERATOR: ['CONTENT_CREATE', 'CONTENT_MODERATE', 'EMBED_CREATE'],
  MEMBER: ['CONTENT_CREATE'],
};

export function permissionsOf(role: Role): ReadonlySet<Permission> {
  return new Set(ROLE_PERMISSIONS[role]);
}

/** What an API key may do unless created with narrower scopes: an ADMIN's permissions less key management. */
export const DEFAULT_API_KEY_SCOPES: readonly Permission[] = ROLE_PERMISSIONS.ADMIN.filter(
  (p) => p !== 'API_KEYS_MANAGE',
);

/** 0 for OWNER, growing downwards: a lower rank is a higher role. */
export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

export function isRoleAbove(a: Role, b: Role): boolean {
  return roleRank(a) < roleRank(b);
}
