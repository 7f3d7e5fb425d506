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
import { ERROR_CODES, type ErrorCode } from '../errors/app-error';

export const BEARER_AUTH = 'bearer';
export const API_KEY_AUTH = 'api-key';

// This file is not a *.dto.ts, so the swagger compiler plugin does not document these classes:
// each property says it itself.
export class ValidationDetailDto {
  @ApiProperty({ description: 'the field, dotted for nested ones (e.g. `blocks.0.title`)' })
  field: string;
  @ApiProperty()
  message: string;
}

/** The error body (docs/product-decisions.md#1-responses-and-errors). */
export class ErrorBodyDto {
  @ApiProperty({ enum: [false] })
  success: false;
  @ApiProperty({ description: 'human-readable message' })
  error: string;
  @ApiProperty({ enum: ERROR_CODES })
  code: ErrorCode;
  @ApiPropertyOptional({ description: 'FEATURE_NOT_AVAILABLE: the feature the plan lacks' })
  featureKey?: string;
  @ApiPropertyOptional({
    type: [ValidationDetailDto],
    description: 'VALIDATION_ERROR: one entry per bad field, at most 20',
  })
  details?: ValidationDetailDto[];
  @ApiPropertyOptional({
    description: 'VALIDATION_ERROR: how many more problems there were than `details` lists',
  })
  detailsOmitted?: number;
  @ApiPropertyOptional({ description: 'RATE_LIMITED: seconds to wait (also the Retry-After header)' })
  retryAfter?: number;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'VALIDATION_ERROR (bad input, naming the field) or TENANT_CONTEXT_REQUIRED',
  401: 'UNAUTHORIZED: credentials missing, malformed, expired, or of a kind this route does not take',
  403: 'FORBIDDEN (not a member, or lacking the permission) or FEATURE_NOT_AVAILABLE (with featureKey)',
  404: 'NOT_FOUND: no such resource in this community',
  409: 'CONFLICT: a unique value is taken',
  422: 'IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used for another method, path or body',
  413: 'PAYLOAD_TOO_LARGE: body over 1 MiB (16 KiB for login, refresh-token and the portal exchange)',
  415: 'UNSUPPORTED_MEDIA_TYPE: a body that is not application/json',
  429: 'RATE_LIMITED: with retryAfter and a Retry-After header',
  500: 'INTERNAL_ERROR: the service failed (a database error, a bug); a write that answers it wrote nothing',
  503: 'SERVICE_UNAVAILABLE: a dependency (database, Redis) does not answer',
};

/** The documented error answer for `status` (also used where the document is completed, src/bootstrap). */
export const errorResponse = (status: number) => ({
  description: ERROR_DESCRIPTIONS[status] ?? '',
  content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorBodyDto) } } },
});

export type AuthKind = 'public' | 'jwt' | 'jwt-or-api-key';

interface EndpointOptions {
  summary: string;
  description?: string;
  auth: AuthKind;
  /** payload class inside `data` (every success has a documented body) */
  response: Type<unknown>;
  /** `data` is a page of `response` (docs/product-decisions.md#4-lists) */
  paged?: boolean;
  /** `data` is an array of `response` */
  isArray?: boolean;
  status?: HttpStatus;
  /** other success statuses the route answers with the same body */
  alsoSucceeds?: { status: HttpStatus; description: string }[];
  /**
   * the route answers 201 when it creates, and 200 with the same body, described by this, when the
   * thing already existed (replyCreatedOrExisting)
   */
  createdOrExisting?: string;
  errors?: number[];
  /** an error status whose body says more than ErrorBodyDto (e.g. the failed attempt as `data`) */
  errorBodies?: Partial<Record<number, Type<unknown>>>;
  /**
   * the route takes no query DTO but, being tenant-scoped, accepts `?communityId=`
   * (docs/product-decisions.md#3-tenancy-roles-permissions-plans)
   */
  communityIdQuery?: boolean;
}

/**
 * Documents a route completely (auth scheme, envelope-wrapped response, error bodies) and sets its
 * success status, so the OpenAPI document and the behaviour come from one place.
 */
export function ApiEndpoint(options: EndpointOptions) {
  const status = options.createdOrExisting ? HttpStatus.CREATED : (options.status ?? HttpStatus.OK);
  const alsoSucceeds = [...(options.alsoSucceeds ?? [])];
  if (options.createdOrExisting) {
    alsoSucceeds.unshift({ status: HttpStatus.OK, description: options.createdOrExisting });
  }
  const decorators = [
    ApiOperation({ summary: options.summary, description: options.description }),
    HttpCode(status),
  ];
  if (options.auth === 'jwt') decorators.push(ApiBearerAuth(BEARER_AUTH));
  if (options.auth === 'jwt-or-api-key')
    decorators.push(ApiBearerAuth(BEARER_AUTH), ApiSecurity(API_KEY_AUTH));
  const data = options.paged
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
      : { $ref: getSchemaPath(options.response) };
  decorators.push(ApiExtraModels(options.response, ErrorBodyDto));
  if (options.communityIdQuery)
    decorators.push(
      ApiQuery({
        name: 'communityId',
        required: false,
        description: 'community id or slug',
        schema: { maxLength: 100, type: 'string' },
      }),
    );
  const envelope = {
    type: 'object',
    required: ['success', 'data'],
    properties: { success: { type: 'boolean', enum: [true] }, data },
  };
  decorators.push(ApiResponse({ status, schema: envelope }));
  for (const other of alsoSucceeds) {
    decorators.push(ApiResponse({ status: other.status, description: other.description, schema: envelope }));
  }
  const errors = new Set(options.errors ?? []);
  errors.add(400);
  if (options.auth !== 'public') errors.add(401);
  for (const code of [...errors].sort()) {
    const type = options.errorBodies?.[code] ?? ErrorBodyDto;
    decorators.push(ApiResponse({ status: code, type, description: ERROR_DESCRIPTIONS[code] }));
  }
  return applyDecorators(...decorators);
}
