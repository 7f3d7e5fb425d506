import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { OpenAPIObject } from '@nestjs/swagger';

/** Methods whose answers are checked: HEAD (Fastify's automatic twin of GET) and OPTIONS are not operations. */
const OPERATION_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Requests that are not documented operations and are skipped on purpose: the documentation pages
 * themselves, routes that only test files register (test/tenancy/probe.module.ts), and the webhook
 * portal's static page and assets under /portal and the /favicon.ico redirect to its icon (a web page
 * outside the /api document). Unmatched
 * paths (Fastify's 404 handler) are skipped too; any other route the document lacks is a violation.
 */
const SKIPPED_ROUTES = [/^\/api\/docs(?:[-/]|$)/, /^\/api\/probe\//, /^\/portal(?:\/|$)/, /^\/favicon\.ico$/];

export interface ObservedResponse {
  method: string;
  /** Fastify's route pattern (`/api/sdk/tweets/:id`), undefined when no route matched */
  route: string | undefined;
  status: number;
  contentType: string | undefined;
  /** the serialized body as sent */
  payload: unknown;
}

export interface Violation {
  /** `POST /api/auth/login` */
  operation: string;
  status: number;
  problem: string;
  /** ajv's findings: instance path and message */
  errors?: string[];
}

export type Verdict =
  { kind: 'skipped' } | { kind: 'valid'; operation: string } | ({ kind: 'violation' } & Violation);

const REF_PREFIX = '#/components/schemas/';
const DOCUMENT_ID = 'openapi';

/**
 * OpenAPI 3.0 schemas as JSON Schema for ajv, and stricter than the document says: `nullable`
 * becomes a `null` type, references point into the registered components, and an object that
 * lists its properties admits no other (the document must describe each body exactly, so an
 * undocumented field is a finding, not a pass).
 */
function toJsonSchema(node: unknown, inComposition = false): unknown {
  if (Array.isArray(node)) return node.map((item) => toJsonSchema(item, inComposition));
  if (node === null || typeof node !== 'object') return node;
  const source = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'nullable' || key === 'example' || key === 'examples' || key === 'xml') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) {
      out.$ref = `${DOCUMENT_ID}#/$defs/${value.slice(REF_PREFIX.length)}`;
    } else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, toJsonSchema(s)]));
    } else {
      out[key] = toJsonSchema(value, key === 'allOf');
    }
  }
  if (source.properties && source.additionalProperties === undefined && !inComposition) {
    out.additionalProperties = false;
  }
  // As the generated clients read it, a nullable reference (`allOf: [{$ref}]` beside it) included.
  return source.nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}

const toOpenApiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/**
 * Checks each answer of the API against the OpenAPI document: the status must be one the operation
 * documents and a JSON body must match that status's schema. Schemas compile on first use.
 */
export class OpenApiResponseValidator {
  private readonly ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
  private readonly compiled = new Map<string, ValidateFunction | null>();

  constructor(private readonly document: OpenAPIObject) {
    addFormats(this.ajv);
    this.ajv.addVocabulary(['discriminator', 'externalDocs']);
    this.ajv.addSchema({ $id: DOCUMENT_ID, $defs: toJsonSchema(document.components?.schemas ?? {}) });
  }

  check(response: ObservedResponse): Verdict {
    const method = response.method.toUpperCase();
    if (!OPERATION_METHODS.has(method) || response.route === undefined) return { kind: 'skipped' };
    if (SKIPPED_ROUTES.some((pattern) => pattern.test(response.route!))) return { kind: 'skipped' };
    const path = toOpenApiPath(response.route);
    const operation = `${method} ${path}`;
    const documented = this.document.paths[path]?.[method.toLowerCase() as 'get'];
    if (!documented)
      return { kind: 'violation', operation, status: response.status, problem: 'undocumented operation' };
    const answer = documented.responses?.[String(response.status)] as
      { content?: Record<string, { schema?: unknown }> } | undefined;
    if (!answer)
      return { kind: 'violation', operation, status: response.status, problem: 'undocumented status' };
    if (!response.contentType?.startsWith('application/json')) return { kind: 'valid', operation };
    const validate = this.validatorFor(
      operation,
      response.status,
      answer.content?.['application/json']?.schema,
    );
    if (!validate) {
      return {
        kind: 'violation',
        operation,
        status: response.status,
        problem: 'JSON body where none is documented',
      };
    }
    let body: unknown;
    try {
      body = JSON.parse(
        Buffer.isBuffer(response.payload) ? response.payload.toString('utf8') : String(response.payload),
      );
    } catch {
      return { kind: 'violation', operation, status: response.status, problem: 'body is not JSON' };
    }
    if (validate(body)) return { kind: 'valid', operation };
    return {
      kind: 'violation',
      operation,
      status: response.status,
      problem: 'body does not match the documented schema',
      errors: (validate.errors ?? []).map(
        (e) =>
          `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
      ),
    };
  }

  private validatorFor(operation: string, status: number, schema: unknown): ValidateFunction | null {
    const key = `${operation} ${status}`;
    if (!this.compiled.has(key)) {
      this.compiled.set(key, schema ? this.ajv.compile(toJsonSchema(schema) as object) : null);
    }
    return this.compiled.get(key)!;
  }
}
