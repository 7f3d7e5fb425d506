export { CommunityPlatformClient } from './client.js';
export { CommunityPlatformError, type ClientErrorCode, type ErrorDetail } from './errors.js';
export {
  newIdempotencyKey,
  normalizeBaseUrl,
  type AuthMode,
  type ClientOptions,
  type IdempotencyOptions,
  type RetryInfo,
} from './http.js';
export { eventFilter, type DataFilter, type FieldCondition, type FieldOperators } from './filters.js';
export { Paginated, type Page } from './paginate.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type AnyWebhookEvent,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookVerificationFailure,
} from './webhooks.js';
export type * from './types.js';
