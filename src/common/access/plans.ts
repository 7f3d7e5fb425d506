import { Plan } from '../../generated/prisma/enums';

export const FEATURE_KEYS = [
  'content',
  'members',
  'webhooks',
  'customization',
  'advertisements',
  'embed',
  'members_bulk',
  'custom_domain',
] as const;
export type FeatureKey = (typeof FEATURE_KEYS)[number];

/** The one plan → feature table (docs/product-decisions.md#3-tenancy-roles-permissions-plans). */
const PLAN_FEATURES: Record<Plan, readonly FeatureKey[]> = {
  FREE: ['content', 'members'],
  PRO: ['content', 'members', 'webhooks', 'customization', 'advertisements', 'embed'],
  ENTERPRISE: FEATURE_KEYS,
};

/** A community's per-feature overrides win over its plan. */
export function hasFeature(plan: Plan, overrides: unknown, feature: FeatureKey): boolean {
  const override =
    overrides && typeof overrides === 'object' ? (overrides as Record<string, unknown>)[feature] : undefined;
  if (typeof override === 'boolean') return override;
  return PLAN_FEATURES[plan].includes(feature);
}
