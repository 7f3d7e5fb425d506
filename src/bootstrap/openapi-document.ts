import type { INestApplicationContext } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import type {
  OperationObject,
  ParameterObject,
  ResponseObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { errorResponse } from '../common/http/api-docs';
import {
  IDEMPOTENCY_KEY_HEADER,
  IdempotencyService,
  REPLAYED_HEADER,
} from '../modules/idempotency/idempotency.service';
import { classesWithValidationRules, type InputClass } from '../common/http/validation-limits';

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/**
 * The address a document built without a running service names (the committed clients' openapi.json):
 * the default configuration's. A running API names its own (PUBLIC_BASE_URL, else localhost and PORT).
 */
export const DEFAULT_SERVER_URL = 'http://localhost:3000';
/** Methods whose requests Fastify parses a body for: each can meet the body limit and the JSON-only rule. */
const BODY_METHODS = new Set<string>(['put', 'post', 'delete', 'patch']);

/**
 * What the route decorators cannot say one route at a time, applied to the whole document (the one
 * /api/docs-json serves, the clients are generated from and the e2e suite validates every answer
 * against). It changes the documentation only, never a route's behaviour:
 * - every operation declares its security, `[]` for the public ones and the webhook deliveries
 *   (redocly's security-defined), and each delivery has an operationId;
 * - a request body can be refused before any route code runs: 413 over the body limit, 415 when it
 *   is not JSON (Fastify's parsers, src/bootstrap/http-app.ts), so each body-taking method says so;
 * - the swagger compiler plugin adds a default success per POST (201, the bare return type or no
 *   schema) because ApiEndpoint's HttpCode is hidden from it: every answer of a route is in the
 *   envelope, so a success documented outside it, beside the enveloped one, is not one the route gives;
 * - a query parameter with a default may be left out, so it is not required;
 * - the server is `serverUrl`, where Swagger UI's "Try it out" sends its requests.
 */
export function completeOpenApiDocument(
  document: OpenAPIObject,
  serverUrl = DEFAULT_SERVER_URL,
): OpenAPIObject {
  // package.json's license; the address says what npm's UNLICENSED means (proprietary, no grant).
  document.info.license = {
    name: 'UNLICENSED',
    url: 'https://docs.npmjs.com/cli/v10/configuring-npm/package-json#license',
  };
  document.servers = [
    {
      url: '{baseUrl}',
      description: 'The service: paths start with /api',
      variables: { baseUrl: { default: serverUrl, description: 'scheme, host and port' } },
    },
  ];
  for (const [path, pathItem] of Object.entries(document.paths)) {
    for (const method of OPERATION_METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      completeOperation(operation, method);
      if (IdempotencyService.keyedRoute(method.toUpperCase(), fastifyPath(path)))
        documentIdempotencyKey(operation);
    }
  }
  // The event catalog's deliveries (src/modules/events/event-schemas.ts): the receiver checks the
  // Standard Webhooks signature, no security scheme of this API applies.
  const webhooks = (document as { 'x-webhooks'?: Record<string, { post?: OperationObject }> })['x-webhooks'];
  for (const [type, pathItem] of Object.entries(webhooks ?? {})) {
    if (!pathItem.post) continue;
    pathItem.post.operationId ??= `webhook_${type.replace(/\./g, '_')}`;
    pathItem.post.security ??= [];
  }
  return document;
}

function completeOperation(operation: OperationObject, method: string): void {
  operation.security ??= [];
  const responses = operation.responses as Record<string, ResponseObject>;
  const successes = Object.keys(responses).filter((status) => status.startsWith('2'));
  // ApiEndpoint documents each success in the envelope: {success: true, data}.
  const isEnvelope = (status: string) => {
    const schema = responses[status].content?.['application/json']?.schema as
      { properties?: Record<string, unknown> } | undefined;
    return schema?.properties?.success !== undefined;
  };
  if (successes.some(isEnvelope)) {
    for (const status of successes) {
      if (!isEnvelope(status) && !responses[status].description) delete responses[status];
    }
  }
  if (BODY_METHODS.has(method)) {
    responses['413'] ??= errorResponse(413);
    responses['415'] ??= errorResponse(415);
  }
  // any operation can fail inside the service (its database lost, a bug); the body says only that
  responses['500'] ??= errorResponse(500);
  operation.responses = Object.fromEntries(
    Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)),
  ) as OperationObject['responses'];
  for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
    const schema = parameter.schema as { default?: unknown } | undefined;
    if (parameter.in === 'query' && schema?.default !== undefined) parameter.required = false;
  }
}

/** `/api/sdk/tweets/{id}` as Fastify names the route: `/api/sdk/tweets/:id`. */
function fastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/**
 * A write that takes an Idempotency-Key (docs/idempotency.md): the header, the Idempotent-Replayed
 * header of every answer it can replay (its successes: only a 2xx is kept), and the two answers only a
 * key gives.
 */
function documentIdempotencyKey(operation: OperationObject): void {
  operation.parameters = [
    ...(operation.parameters ?? []),
    {
      name: IDEMPOTENCY_KEY_HEADER,
      in: 'header',
      required: false,
      description:
        "Makes the write safe to retry: 1 to 255 printable ASCII characters ('!' to '~'), unique per logical " +
        'write of this caller in this community. Once the write has succeeded (2xx), a repeat with the same ' +
        'method, path and body within IDEMPOTENCY_KEY_TTL gets its answer again with `Idempotent-Replayed: true`, ' +
        'and writes nothing; a refused write is not kept, and its repeat runs again.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
    },
  ];
  const responses = operation.responses as Record<string, ResponseObject>;
  for (const [status, response] of Object.entries(responses)) {
    if (!status.startsWith('2')) continue;
    response.headers = {
      ...response.headers,
      [REPLAYED_HEADER]: {
        description:
          'true when this answer is the stored answer of an earlier request with the same Idempotency-Key',
        schema: { type: 'string', enum: ['true'] },
      },
    };
  }
  const conflict = responses['409'] ?? errorResponse(409);
  responses['409'] = {
    ...conflict,
    description: `${conflict.description}; or IDEMPOTENCY_KEY_IN_USE: a request with this Idempotency-Key is still running (Retry-After: 1)`,
    headers: {
      ...conflict.headers,
      'Retry-After': {
        description: 'IDEMPOTENCY_KEY_IN_USE: seconds to wait before retrying (1)',
        schema: { type: 'integer' },
      },
    },
  };
  responses['422'] ??= errorResponse(422);
  responses['400'] ??= errorResponse(400);
  operation.responses = Object.fromEntries(
    Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)),
  ) as OperationObject['responses'];
}

/**
 * The classes the routes take as input, for addValidationLimits to find each schema's class: every
 * controller method's parameter types (body, query and path DTOs, a DTO that only inherits its rules
 * included), the bodies documented with @ApiBody, and every class class-validator holds rules of
 * (the nested DTOs).
 */
export function inputClassesOf(app: INestApplicationContext): InputClass[] {
  const classes = new Set<InputClass>(classesWithValidationRules());
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const prototype = (wrapper.metatype as { prototype?: Record<string, unknown> } | null)?.prototype;
      if (!prototype) continue;
      for (const method of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[method];
        if (typeof handler !== 'function') continue;
        const documented = (Reflect.getMetadata('swagger/apiParameters', handler) ?? []) as {
          type?: unknown;
        }[];
        const types: unknown[] = [
          ...((Reflect.getMetadata('design:paramtypes', prototype, method) ?? []) as unknown[]),
          ...documented.map((parameter) => parameter.type),
        ];
        for (const type of types)
          if (typeof type === 'function' && type.name) classes.add(type as InputClass);
      }
    }
  }
  return [...classes];
}
