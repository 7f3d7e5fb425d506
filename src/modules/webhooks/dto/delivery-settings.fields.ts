import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateBy } from 'class-validator';
import { OptionalNullable } from '../../../common/decorators/optional.decorators';
import {
  MAX_ENDPOINT_TIMEOUT_MS,
  MAX_RETRY_DELAYS,
  MIN_ENDPOINT_TIMEOUT_MS,
  MIN_RETRY_DELAYS,
  retryScheduleProblem,
} from '../core/delivery-settings';

/*
 * The endpoint fields `retrySchedule` and `timeoutMs` of the create and PATCH bodies
 * (docs/api.md#webhooks, "Delivery settings"): their OpenAPI description and their one rule each, so
 * that a bad value is one problem naming the field (and a delay's index).
 */

export const RETRY_SCHEDULE_RULES =
  `the waits before attempts 2, 3, …: ${MIN_RETRY_DELAYS}–${MAX_RETRY_DELAYS} delays such as "30s", "5m", "2h", each 1s–24h ` +
  "(so up to 21 attempts in all), each given ±20% jitter as the platform's are; null: the platform's WEBHOOK_RETRY_SCHEDULE. " +
  'A change applies to the attempts sent after it; retries already waiting keep their time';

/** The `retrySchedule` field: a list of delays (core/delivery-settings.ts), or null. */
export function RetryScheduleField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'array',
      items: { type: 'string' },
      minItems: MIN_RETRY_DELAYS,
      maxItems: MAX_RETRY_DELAYS,
      nullable: true,
      example: ['30s', '5m', '2h'],
      description,
    }),
    OptionalNullable(),
    ValidateBy({
      name: 'isRetrySchedule',
      validator: {
        validate: (value: unknown) => retryScheduleProblem(value) === null,
        defaultMessage: (args) => retryScheduleProblem(args?.value) ?? 'retrySchedule is not valid',
      },
    }),
  );
}

export const TIMEOUT_RULES =
  `each send's timeout in milliseconds, ${MIN_ENDPOINT_TIMEOUT_MS}–${MAX_ENDPOINT_TIMEOUT_MS}; null: the platform's WEBHOOK_TIMEOUT. ` +
  'A change applies to the attempts sent after it';

/** The `timeoutMs` field: an integer in range, or null. */
export function TimeoutField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      nullable: true,
      minimum: MIN_ENDPOINT_TIMEOUT_MS,
      maximum: MAX_ENDPOINT_TIMEOUT_MS,
      example: 5000,
      description,
    }),
    OptionalNullable(),
    // one rule, so a string or a boolean is one problem rather than three
    ValidateBy({
      name: 'isEndpointTimeout',
      validator: {
        validate: (value: unknown) =>
          Number.isInteger(value) &&
          (value as number) >= MIN_ENDPOINT_TIMEOUT_MS &&
          (value as number) <= MAX_ENDPOINT_TIMEOUT_MS,
        defaultMessage: (args) =>
          `timeoutMs must be an integer from ${MIN_ENDPOINT_TIMEOUT_MS} to ${MAX_ENDPOINT_TIMEOUT_MS} (milliseconds), ` +
          `or null for the platform's, got ${JSON.stringify(args?.value)}`,
      },
    }),
  );
}
