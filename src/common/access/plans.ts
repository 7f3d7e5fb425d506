import { Plan } from '../../generated/prisma/enums';
import { SMALLEST_PLAN_WITH } from './features';

/** Plans, smallest first: each includes every feature of the ones before it. */
export const PLANS: readonly Plan[] = ['FREE', 'PRO', 'ENTERPRISE'];

/** A feature key: a line of features.ts. */
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
