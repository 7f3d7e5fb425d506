/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is untyped JSON */
import { getMetadataStorage } from 'class-validator';
import { nestedClassOf } from './input-classes';

/**
 * The write routes of an OpenAPI document and the fields of each body, as the hostile-input test
 * (test/http/hostile-input.e2e-spec.ts) finds them: from the document the app serves and the
 * validation metadata of the DTO it names, so a module's routes are covered once it is registered.
 */

export type Method = 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'GET';

export interface Field {
  /** the name the API answers with, e.g. `members.0.email` */
  path: string;
  /** the body that puts `value` at that field and nowhere else */
  body: (value: unknown) => Record<string, unknown>;
  /** a string field (or a list of strings): where NUL and lone surrogates can be sent as text */
  text: boolean;
  /** the OpenAPI document says null is a value of it (null clears it) */
  nullable: boolean;
  /** an item of a list of strings: class-validator names the list (`events`), not the item */
  listPath?: string;
}

export interface WriteRoute {
  method: Method;
  /** the path template of the document, e.g. /api/communities/{communityId}/webhooks */
  template: string;
  /** name of the body schema, when the operation takes a JSON body */
  schema: string | null;
  rateLimited: boolean;
  parameters: { name: string; schema?: { enum?: string[] } }[];
}

export function classNamed(name: string, classes: Map<string, new () => object>): new () => object {
  const cls = classes.get(name);
  if (!cls) throw new Error(`no route takes a class named ${name}`);
  return cls;
}

function propertiesOf(cls: new () => object): string[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  return [...new Set(metas.map((m) => m.propertyName))];
}

/** Rules that only a string passes: a property under one of them is text even when typed as a union (Role). */
const STRING_RULES = new Set([
  'isString',
  'isEmail',
  'isUrl',
  'matches',
  'isIn',
  'isDateString',
  'isISO8601',
]);

function hasStringRule(cls: new () => object, property: string): boolean {
  return getMetadataStorage()
    .getTargetValidationMetadatas(cls, '', true, false)
    .some((m) => m.propertyName === property && m.name !== undefined && STRING_RULES.has(m.name));
}

/** Every field of a body, nested DTOs included (a list of them is entered through its first item). */
export function fieldsOf(
  cls: new () => object,
  schemas: Record<string, any>,
  schemaName: string,
  prefix = '',
  wrap: (inner: Record<string, unknown>) => Record<string, unknown> = (inner) => inner,
): Field[] {
  const schemaProps: Record<string, any> = schemas[schemaName]?.properties ?? {};
  const names = new Set([...propertiesOf(cls), ...Object.keys(schemaProps)]);
  const fields: Field[] = [];
  for (const name of names) {
    const type = Reflect.getMetadata('design:type', cls.prototype, name);
    const nested = nestedClassOf(cls, name);
    const path = prefix ? `${prefix}.${name}` : name;
    if (nested && nested !== String) {
      const element = type === Array;
      fields.push(
        ...fieldsOf(nested, schemas, nested.name, element ? `${path}.0` : path, (inner) =>
          wrap({ [name]: element ? [inner] : inner }),
        ),
      );
    }
    const list = type === Array;
    fields.push({
      path,
      body: (value) => wrap({ [name]: value }),
      text: type === String || (list && !nested) || hasStringRule(cls, name),
      nullable: schemaProps[name]?.nullable === true,
    });
    if (list && !nested) {
      // a list of strings (webhook events, API-key scopes): its items are fields too
      fields.push({
        path: `${path}.0`,
        body: (value) => wrap({ [name]: [value] }),
        text: true,
        nullable: false,
        listPath: path,
      });
    }
  }
  return fields;
}

export function writeRoutes(doc: any): WriteRoute[] {
  const routes: WriteRoute[] = [];
  for (const [template, operations] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(operations)) {
      if (!['post', 'put', 'patch'].includes(method)) continue;
      const ref: string | undefined = op.requestBody?.content?.['application/json']?.schema?.$ref;
      routes.push({
        method: method.toUpperCase() as Method,
        template,
        schema: ref ? ref.split('/').pop()! : null,
        rateLimited: '429' in (op.responses ?? {}),
        parameters: op.parameters ?? [],
      });
    }
  }
  return routes;
}

/**
 * A body with every required field of `schema` (an operation's JSON body schema, or a $ref to one in
 * `built`, the served OpenAPI document) and a plausible value in it: an enum's first value, an instant,
 * an empty list, true, 1, or a short unique text. The route may still refuse it for its own rules.
 */
export function requiredFieldsBody(built: any, schema: any): Record<string, unknown> {
  const resolved = schema?.$ref ? built.components.schemas[schema.$ref.split('/').pop()] : schema;
  const body: Record<string, unknown> = {};
  for (const name of resolved?.required ?? []) {
    const property = resolved.properties[name];
    body[name] = property.enum
      ? property.enum[0]
      : property.format === 'date-time'
        ? new Date().toISOString()
        : property.type === 'array'
          ? []
          : property.type === 'boolean'
            ? true
            : property.type === 'integer' || property.type === 'number'
              ? 1
              : `valid-${Math.random().toString(36).slice(2, 10)}`;
  }
  return body;
}
