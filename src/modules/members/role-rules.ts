import { isRoleAbove } from '../../common/access/permissions';
import { Errors } from '../../common/errors/app-error';
import type { Role } from '../../generated/prisma/enums';

/**
 * The role a caller acts with when assigning roles. A platform admin who is not a member acts as
 * an OWNER; an API key acts with its creator's role (the tenant context already says so).
 */
export function roleCeiling(callerRole: Role | null): Role {
  return callerRole ?? 'OWNER';
}

/**
 * Nobody raises a member above their own role (docs/product-decisions.md#3-tenancy-roles-permissions-plans).
 */
export function assertMayAssign(ceiling: Role, newRole: Role, where = 'role'): void {
  if (isRoleAbove(newRole, ceiling)) {
    throw Errors.forbidden(`${where}: a ${ceiling} cannot give the ${newRole} role`);
  }
}

/** Nobody changes the role of a member ranked above them. */
export function assertMayChange(ceiling: Role, currentRole: Role, where = 'member'): void {
  if (isRoleAbove(currentRole, ceiling)) {
    throw Errors.forbidden(`${where}: a ${ceiling} cannot change the role of an ${currentRole}`);
  }
}

/**
 * The community must keep at least one OWNER after the change
 * (docs/product-decisions.md#3-tenancy-roles-permissions-plans).
 */
export function assertOwnersRemain(ownersAfter: number): void {
  if (ownersAfter < 1) {
    throw Errors.conflict('The last OWNER of a community cannot be demoted; make another member OWNER first');
  }
}
