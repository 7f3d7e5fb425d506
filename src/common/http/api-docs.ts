import { applyDecorators, HttpCode, HttpStatus, Type } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiOperation,
  ApiQuery,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  ApiSecurity,
  getSchemaPath,
} from '@nestjs/swagger';
import type { ErrorCode } from '../errors/app-error';

export const BEARER_AUTH = 'bearer';
export const API_KEY_AUTH = 'api-key';

export class ValidationDetailDto {
  field: string;
  message: string;
}

/** The contract's error body (contract §1). */
export class ErrorBodyDto {
  @ApiProperty({ enum: [false] })
  success: false;
  /** human-readable message */
  error: string;
  @ApiProperty({
    enum: [
      'UNAUTHORIZED',
      'FORBIDDEN',
      'FEATURE_NOT_AVAILABLE',
      'TENANT_CONTEXT_REQUIRED',
      'VALIDATION_ERROR',
      'NOT_FOUND',
      'CONFLICT',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'RATE_LIMITED',
      'SERVICE_UNAVAILABLE',
      'WEBHOOK_TEST_FAILED',
      'INTERNAL_ERROR',
    ] satisfies ErrorCode[],
  })
  code: ErrorCode;
  /** FEATURE_NOT_AVAILABLE: the feature the plan lacks */
  @ApiPropertyOptional()
  featureKey?: string;
  /** VALIDATION_ERROR: one entry per bad field */
  @ApiPropertyOptional({ type: [ValidationDetailDto] })
  details?: ValidationDetailDto[];
  /** RATE_LIMITED: seconds to wait (also the Retry-After header) */
  @ApiPropertyOptional()
  retryAfter?: number;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_ERROR (bad input, naming the field) or TENANT_CONTEXT_REQUIRED',
  401: 'UNAUTHORIZED: credentials missing, malformed, expired, or of a kind this route does not take',
  403: 'FORBIDDEN (not a member, or lacking the permission) or FEATURE_NOT_AVAILABLE (with featureKey)',
  404: 'NOT_FOUND: no such resource in this community',
  409: 'CONFLICT: a unique value is taken',
  413: 'PAYLOAD_TOO_LARGE: body over 1 MiB',
  429: 'RATE_LIMITED: with retryAfter and a Retry-After header',
  500: 'INTERNAL_ERROR',
  503: 'SERVICE_UNAVAILABLE: a dependency (database, Redis) does not answer',
};

export type AuthKind = 'public' | 'jwt' | 'jwt-or-api-key';

interface EndpointOptions {
  summary: string;
  description?: string;
  auth: AuthKind;
  /** payload class inside `data`; omit for no payload documentation */
  response?: Type<unknown>;
  /** `data` is a page of `response` (contract §4) */
  paged?: boolean;
  /** `data` is an array of `response` */
  isArray?: boolean;
  status?: HttpStatus;
  errors?: number[];
  /** the route takes no query DTO but, being tenant-scoped, accepts `?communityId=` (contract §1) */
  communityIdQuery?: boolean;
}

/**
 * Documents a route completely (auth scheme, envelope-wrapped response, error bodies) and sets its
 * success status, so the OpenAPI document and the behaviour come from one place.
 */
export function ApiEndpoint(options: EndpointOptions) {
  const status = options.status ?? HttpStatus.OK;
  const decorators = [
    ApiOperation({ summary: options.summary, description: options.description }),
    HttpCode(status),
  ];
  if (options.auth === 'jwt') decorators.push(ApiBearerAuth(BEARER_AUTH));
  if (options.auth === 'jwt-or-api-key')
    decorators.push(ApiBearerAuth(BEARER_AUTH), ApiSecurity(API_KEY_AUTH));
  const data = options.response
    ? options.paged
      ? {
          type: 'object',
          required: ['items', 'page', 'limit', 'total', 'hasMore'],
          properties: {
            items: { type: 'array', items: { $ref: getSchemaPath(options.response) } },
            page: { type: 'integer' },
            limit: { type: 'integer' },
            total: { type: 'integer' },
            hasMore: { type: 'boolean' },
          },
        }
      : options.isArray
        ? { type: 'array', items: { $ref: getSchemaPath(options.response) } }
        : { $ref: getSchemaPath(options.response) }
    : { type: 'object', nullable: true };
  if (options.response) decorators.push(ApiExtraModels(options.response));
  if (options.communityIdQuery)
    decorators.push(
      ApiQuery({
        name: 'communityId',
        required: false,
        description: 'community id or slug',
        schema: { maxLength: 100, type: 'string' },
      }),
    );
  decorators.push(
    ApiResponse({
      status,
      schema: {
        type: 'object',
        required: ['success', 'data'],
        properties: { success: { type: 'boolean', enum: [true] }, data },
      },
    }),
  );
  const errors = new Set(options.errors ?? []);
  errors.add(400);
  if (options.auth !== 'public') errors.add(401);
  for (const code of [...errors].sort()) {
    decorators.push(ApiResponse({ status: code, type: ErrorBodyDto, description: ERROR_DESCRIPTIONS[code] }));
  }
  return applyDecorators(...decorators);
}
