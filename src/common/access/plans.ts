import { Plan } from '../../generated/prisma/enums';

/** Plans, smallest first: each includes every feature of the ones before it. */
export const PLANS: readonly Plan[] = ['FREE', 'PRO', 'ENTERPRISE'];

/**
 * The one plan → feature table (docs/product-decisions.md#3-tenancy-roles-permissions-plans): each
 * feature key, one line each, with the smallest plan that includes it. A new feature module adds its
 * line here; the key's type, the list and each plan's features are derived from it.
 */
const SMALLEST_PLAN_WITH = {
  content: 'FREE',
  members: 'FREE',
  webhooks: 'PRO',
  customization: 'PRO',
  advertisements: 'PRO',
  embed: 'PRO',
  members_bulk: 'ENTERPRISE',
  custom_domain: 'ENTERPRISE',
} as const satisfies Record<string, Plan>;

export type FeatureKey = keyof typeof SMALLEST_PLAN_WITH;
export const FEATURE_KEYS = Object.keys(SMALLEST_PLAN_WITH) as FeatureKey[];

/** The features a plan includes, in the table's order. */
export function planFeatures(plan: Plan): readonly FeatureKey[] {
  return FEATURE_KEYS.filter((feature) => PLANS.indexOf(SMALLEST_PLAN_WITH[feature]) <= PLANS.indexOf(plan));
}

const PLAN_FEATURES = new Map(PLANS.map((plan) => [plan, new Set(planFeatures(plan))]));

/** A community's per-feature overrides win over its plan. */
export function hasFeature(plan: Plan, overrides: unknown, feature: FeatureKey): boolean {
  const override =
    overrides && typeof overrides === 'object' ? (overrides as Record<string, unknown>)[feature] : undefined;
  if (typeof override === 'boolean') return override;
  return PLAN_FEATURES.get(plan)?.has(feature) === true;
}
