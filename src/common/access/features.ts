import type { Plan } from '../../generated/prisma/enums';

/**
 * The one plan → feature table (docs/product-decisions.md#3-tenancy-roles-permissions-plans): each
 * feature key, one line each, with the smallest plan that includes it. A new feature module adds its
 * line here; the key's type, the list and each plan's features are derived from it (plans.ts).
 */
export const SMALLEST_PLAN_WITH = {
  content: 'FREE',
  members: 'FREE',
  webhooks: 'PRO',
  // endpoints that publish to RabbitMQ or NATS JetStream instead of POSTing (docs/api.md#broker-destinations)
  webhook_brokers: 'ENTERPRISE',
  customization: 'PRO',
  advertisements: 'PRO',
  embed: 'PRO',
  members_bulk: 'ENTERPRISE',
  custom_domain: 'ENTERPRISE',
} as const satisfies Record<string, Plan>;
