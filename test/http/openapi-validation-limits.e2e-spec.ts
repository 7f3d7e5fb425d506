/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is untyped JSON */
import { getMetadataStorage } from 'class-validator';
import { LIMITS } from '../../src/common/http/validation-limits';
import { createTestApp, TestApp } from '../utils/app';
import { InputClass, nestedClassOf, routeArgumentClasses } from '../utils/input-classes';
import { builtDocument } from '../utils/openapi-conformance';
import { FILTER_SCHEMAS } from '../../src/modules/webhooks/dto/webhook-filter.schema';

/**
 * Every limit a validation decorator enforces on a request DTO is in the OpenAPI document the
 * service publishes, with the value the validator uses: the clients are generated from it, so a
 * limit missing there is one the callers learn only from a 400. The swagger compiler plugin drops a
 * decorator's argument it cannot read in the source (`@ArrayMaxSize(MAX_BULK_MEMBERS)`); this reads
 * the document of dist/, where the plugin ran, against class-validator's own record of each rule.
 */

const UPPER_BOUNDS = new Set(['maxLength', 'maxItems', 'maximum']);

/** The route argument classes and, through @Type(), every DTO nested in them. */
function inputClasses(t: TestApp): Map<string, InputClass> {
  const classes = routeArgumentClasses(t.app);
  const pending = [...classes.values()];
  for (let type = pending.pop(); type; type = pending.pop()) {
    const properties = getMetadataStorage()
      .getTargetValidationMetadatas(type, '', false, false)
      .map((m) => m.propertyName);
    for (const property of new Set(properties)) {
      const nested = nestedClassOf(type, property);
      if (nested && !classes.has(nested.name)) {
        classes.set(nested.name, nested);
        pending.push(nested);
      }
    }
  }
  return classes;
}

/** `${property}` or `${property}[]` (each item) → keyword → the value the validator enforces. */
function enforcedLimits(type: InputClass): Map<string, Map<string, number>> {
  const limits = new Map<string, Map<string, number>>();
  for (const metadata of getMetadataStorage().getTargetValidationMetadatas(type, '', false, false)) {
    const keywords = metadata.name ? LIMITS[metadata.name]?.(metadata.constraints ?? []) : undefined;
    const at = metadata.each ? `${metadata.propertyName}[]` : metadata.propertyName;
    for (const [keyword, value] of Object.entries(keywords ?? {})) {
      if (typeof value !== 'number') continue;
      const property = limits.get(at) ?? new Map<string, number>();
      limits.set(at, property);
      const known = property.get(keyword) ?? value;
      property.set(keyword, UPPER_BOUNDS.has(keyword) ? Math.min(known, value) : Math.max(known, value));
    }
  }
  return limits;
}

/** The names of the request-body schemas, and of every schema they reach. */
function requestSchemaNames(document: any): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown) => {
    if (node === null || typeof node !== 'object') return;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      const name = ref.split('/').pop()!;
      if (names.has(name)) return;
      names.add(name);
      visit(document.components.schemas[name]);
      return;
    }
    for (const value of Object.values(node)) visit(value);
  };
  for (const item of Object.values<any>(document.paths)) {
    for (const operation of Object.values<any>(item)) visit(operation.requestBody);
  }
  return names;
}

describe('validation limits in the OpenAPI document', () => {
  let t: TestApp;
  let document: any;
  let classes: Map<string, InputClass>;

  beforeAll(async () => {
    t = await createTestApp();
    document = builtDocument();
    classes = inputClasses(t);
  });
  afterAll(() => t.close());

  it('finds the class of every request body schema, nested ones included', () => {
    const names = [...requestSchemaNames(document)];
    expect(names).toEqual(expect.arrayContaining(['BulkMembersDto', 'MemberInputDto', 'CreateWebhookDto']));
    // the content filter's recursive schemas have no class: a filter is checked by compiling it, and its
    // limits are the compiler's (src/modules/webhooks/core/filter/event-filter.spec.ts)
    expect(names).toEqual(expect.arrayContaining([...FILTER_SCHEMAS]));
    expect(names.filter((name) => !classes.has(name) && !FILTER_SCHEMAS.includes(name))).toEqual([]);
  });

  it('gives every DTO schema each min/max limit its validators enforce, with the same value', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const [name, type] of classes) {
      const schema = document.components.schemas[name];
      if (!schema) continue; // a query or path DTO: its fields are parameters, not a schema
      for (const [at, keywords] of enforcedLimits(type)) {
        const each = at.endsWith('[]');
        const property = schema.properties?.[each ? at.slice(0, -2) : at];
        const target = each && property?.type === 'array' ? property.items : property;
        for (const [keyword, value] of keywords) {
          checked++;
          if (target?.[keyword] !== value) {
            problems.push(`${name}.${at} ${keyword}: validator ${value}, document ${target?.[keyword]}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(60);
  });

  it('states the limits whose constant the compiler plugin cannot read', () => {
    const { schemas } = document.components;
    expect(schemas.BulkMembersDto.properties.members.maxItems).toBe(1000);
    expect(schemas.CreateWebhookDto.properties.events.maxItems).toBeGreaterThan(1);
    expect(schemas.UpdateWebhookDto.properties.events.maxItems).toBeGreaterThan(1);
  });
});
