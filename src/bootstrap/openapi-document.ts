import type { INestApplicationContext } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import type {
  OperationObject,
  ParameterObject,
  ResponseObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { errorResponse } from '../common/http/api-docs';
import { classesWithValidationRules, type InputClass } from '../common/http/validation-limits';

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
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
 * - a query parameter with a default may be left out, so it is not required.
 */
export function completeOpenApiDocument(document: OpenAPIObject): OpenAPIObject {
  // package.json's license; the address says what npm's UNLICENSED means (proprietary, no grant).
  document.info.license = {
    name: 'UNLICENSED',
    url: 'https://docs.npmjs.com/cli/v10/configuring-npm/package-json#license',
  };
  document.servers = [
    {
      url: '{baseUrl}',
      description: 'The service: paths start with /api',
      variables: { baseUrl: { default: 'http://localhost:3000', description: 'scheme, host and port' } },
    },
  ];
  for (const pathItem of Object.values(document.paths)) {
    for (const method of OPERATION_METHODS) {
      const operation = pathItem[method];
      if (operation) completeOperation(operation, method);
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
