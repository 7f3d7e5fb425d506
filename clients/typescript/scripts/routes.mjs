// The route layer of the TypeScript client, generated from the service's OpenAPI document
// (openapi.json) and the naming table ../routes.json: one typed method per operation, grouped as the
// client groups them. The request and response types come from src/schema.ts (openapi-typescript);
// what no document says (paging iterators, keeping tokens, retries) stays hand-written in src/.
// Run through `npm run clients:generate` at the repository root (clients/generate.mjs).

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Whether an operation takes an `Idempotency-Key`: the service's document lists the header on each
 * operation that does (every write but the anonymous auth routes and the portal-session exchange), so
 * the service's own rule decides, and a route that gains or loses it changes the client at the next
 * generation. Header names are case-insensitive.
 */
export function takesIdempotencyKey(operation) {
  return (operation.parameters ?? []).some(
    (p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
  );
}

/** A document's `$ref` target. */
function resolve(document, schema) {
  if (!schema?.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  return document.components.schemas[name];
}

/** `data` of the documented success envelope (200, else 201, else 202). */
function successData(document, operation) {
  const answer = operation.responses['200'] ?? operation.responses['201'] ?? operation.responses['202'];
  const schema = answer?.content?.['application/json']?.schema;
  return resolve(document, schema?.properties?.data);
}

/**
 * Every client method of the document: its operation, its place (`group` and `name`, the name
 * possibly nested: ['deliveries', 'resend']) and what its signature needs. `language` picks the
 * naming table's overrides ('typescript' or 'python').
 */
export function clientOperations(document, table, language = 'typescript') {
  const languageNames = language === 'typescript' ? {} : (table[language]?.names ?? {});
  const operations = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const { operationId } = operation;
      const tag = operation.tags?.[0];
      let place = languageNames[operationId] ?? table.names[operationId];
      if (place === undefined) {
        const group = tag in table.groups ? table.groups[tag] : tag;
        if (group === null) {
          if (tag === 'health') continue;
          throw new Error(`${operationId} (tag "${tag}") needs a name in clients/routes.json`);
        }
        const handler = operationId.slice(operationId.indexOf('_') + 1);
        place = `${group}.${table.verbs[handler] ?? handler}`;
      }
      const [group, ...name] = place.split('.');
      const parameters = operation.parameters ?? [];
      const bodySchema = resolve(document, operation.requestBody?.content?.['application/json']?.schema);
      const data = successData(document, operation);
      const security = operation.security ?? [];
      operations.push({
        operationId,
        method,
        path,
        group,
        name,
        summary: operation.summary,
        description: operation.description,
        auth:
          security.length === 0
            ? 'none'
            : security.every((requirement) => 'bearer' in requirement)
              ? 'bearer'
              : 'any',
        idempotencyKey: takesIdempotencyKey(operation),
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        body: operation.requestBody
          ? {
              schema: bodySchema,
              // A body whose fields are all optional may be left out: `{}` is sent. (openapi-typescript
              // types a field with a default as present, so such a body is not optional.)
              optional:
                !(bodySchema?.required?.length > 0) &&
                !Object.values(bodySchema?.properties ?? {}).some((field) => 'default' in field),
            }
          : undefined,
        // An /api/sdk list: walked by `page` while `hasMore`.
        paged:
          parameters.some((p) => p.in === 'query' && p.name === 'page') &&
          Boolean(data?.properties?.items && data?.properties?.hasMore),
      });
    }
  }
  const seen = new Map();
  for (const op of operations) {
    const key = [op.group, ...op.name].join('.');
    if (seen.has(key)) throw new Error(`${op.operationId} and ${seen.get(key)} are both ${key}`);
    seen.set(key, op.operationId);
  }
  return operations;
}

const quote = (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function parameterType(parameter) {
  const values = parameter.schema?.enum;
  return values ? values.map((value) => quote(String(value))).join(' | ') : 'string';
}

function pathExpression(op) {
  if (op.pathParams.length === 0) return quote(op.path);
  return '`' + op.path.replace(/\{([^}]+)\}/g, (_, name) => '${e(' + name + ')}') + '`';
}

/** `text`'s paragraphs broken at spaces into lines of at most `width` characters. */
function wrap(text, width) {
  return text.split('\n').flatMap((paragraph) => {
    const lines = [];
    let line = '';
    for (const word of paragraph.split(' ')) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else {
        line = line ? `${line} ${word}` : word;
      }
    }
    return [...lines, line];
  });
}

function docComment(op) {
  const text = [op.summary, op.description].filter(Boolean).join('\n\n').replace(/\*\//g, '*\\/');
  if (!text) return '';
  const lines = wrap(text, 96);
  if (lines.length === 1) return `/** ${lines[0]} */\n`;
  return `/**\n${lines.map((line) => ` * ${line}`.trimEnd()).join('\n')}\n */\n`;
}

function methods(op) {
  const p = quote(op.path);
  const m = quote(op.method);
  const verb = quote(op.method.toUpperCase());
  const args = op.pathParams.map((param) => `${param.name}: ${parameterType(param)}`);
  const options = [];
  if (op.body) {
    args.push(`body: RequestBody<${p}, ${m}>${op.body.optional ? ' = {}' : ''}`);
    options.push('body');
  }
  const auth = op.auth === 'any' ? [] : [`auth: ${quote(op.auth)}`];
  const request = (query) =>
    `http.request<ResponseData<${p}, ${m}>>(${verb}, ${pathExpression(op)}, { ${[...options, ...query, ...auth].join(', ')} })`;
  const name = op.name[op.name.length - 1];
  if (op.paged) {
    const pageName = name === 'list' ? 'page' : `${name}Page`;
    const pathArgs = args.join(', ');
    return [
      `${docComment({ ...op, description: [op.description, 'Every item, one page (`limit`) at a time: `for await (const item of ...)`.'].filter(Boolean).join('\n\n') })}${name}: (${pathArgs}${pathArgs ? ', ' : ''}query: Filters<${p}> = {}) =>
        pagedList<${p}>(http, ${pathExpression(op)}, query${op.auth === 'any' ? '' : `, ${quote(op.auth)}`}),`,
      `${docComment({ ...op, description: 'One page (`page`, `limit`).' })}${pageName}: (${pathArgs}${pathArgs ? ', ' : ''}query: QueryParams<${p}, ${m}> = {}) =>
        ${request(['query'])},`,
    ];
  }
  if (op.queryParams.length > 0) args.push(`query: QueryParams<${p}, ${m}> = {}`);
  if (op.idempotencyKey) {
    // Last, so the route's own arguments keep their places: `tweets.create(body, { idempotencyKey })`.
    if (op.pathParams.some((param) => param.name === 'options'))
      throw new Error(`${op.operationId}: a path parameter named "options" hides the call options`);
    args.push('options: IdempotencyOptions = {}');
    return [
      `${docComment(op)}${name}: (${args.join(', ')}) => ${request([...(op.queryParams.length > 0 ? ['query'] : []), 'idempotency: options'])},`,
    ];
  }
  return [
    `${docComment(op)}${name}: (${args.join(', ')}) => ${request(op.queryParams.length > 0 ? ['query'] : [])},`,
  ];
}

/** src/routes.generated.ts for the document, formatted as the repository formats its code. */
export async function renderRoutes(document, table, format) {
  // group -> nested names -> method source lines
  const tree = new Map();
  const operations = clientOperations(document, table);
  for (const op of operations) {
    let node = tree.get(op.group) ?? new Map();
    tree.set(op.group, node);
    for (const part of op.name.slice(0, -1)) {
      const child = node.get(part) ?? new Map();
      node.set(part, child);
      node = child;
    }
    node.set(op.name[op.name.length - 1], methods(op));
  }
  const renderNode = (node) =>
    [...node.entries()]
      .map(([key, value]) =>
        value instanceof Map ? `${key}: {\n${renderNode(value)}\n},` : value.join('\n'),
      )
      .join('\n');
  const source = `// Generated by clients/typescript/scripts/routes.mjs from openapi.json and clients/routes.json:
// do not edit. \`npm run clients:generate\` at the repository root rewrites it.
import type { HttpClient${operations.some((op) => op.idempotencyKey) ? ', IdempotencyOptions' : ''} } from './http.js';
import { pagedList } from './paginate.js';
import type { Filters, QueryParams, RequestBody, ResponseData } from './types.js';

const e = encodeURIComponent;

/** Every operation of the service's document, one method each, grouped as the client groups them. */
export function routeGroups(http: HttpClient) {
  return {
${[...tree.entries()].map(([group, node]) => `${group}: {\n${renderNode(node)}\n},`).join('\n')}
  };
}

export type RouteGroups = ReturnType<typeof routeGroups>;
`;
  return format(source);
}
