import { AuthGuard } from './auth.guard';
import { FeatureGuard } from './feature.guard';
import { PermissionGuard } from './permission.guard';
import { TenantGuard } from './tenant.guard';

/** Global guards, in the order they run: who is calling, in which community, plan, then permission. */
export const AccessGuards = [AuthGuard, TenantGuard, FeatureGuard, PermissionGuard];
