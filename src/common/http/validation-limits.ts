import type { OpenAPIObject } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/** The JSON Schema limits a validation decorator can set, each an upper or a lower bound. */
export type LimitKeyword = 'maxLength' | 'maxItems' | 'maximum' | 'minLength' | 'minItems' | 'minimum';
const UPPER_BOUNDS = new Set<string>(['maxLength', 'maxItems', 'maximum']);

/** A DTO class, as the validation pipe and Swagger see it. */
export type InputClass = abstract new (...args: never[]) => unknown;

/** class-validator's decorator (its metadata `name`) → the limits it enforces, from its arguments. */
export const LIMITS: Record<string, (constraints: unknown[]) => Partial<Record<LimitKeyword, unknown>>> = {
  maxLength: ([max]) => ({ maxLength: max }),
  minLength: ([min]) => ({ minLength: min }),
  isLength: ([min, max]) => ({ minLength: min, maxLength: max }),
  arrayMaxSize: ([max]) => ({ maxItems: max }),
  arrayMinSize: ([min]) => ({ minItems: min }),
  arrayNotEmpty: () => ({ minItems: 1 }),
  max: ([max]) => ({ maximum: max }),
  min: ([min]) => ({ minimum: min }),
};

/** Where a limit applies: the property itself, or each item of it (`{ each: true }`). */
export interface ValidationLimit {
  property: string;
  each: boolean;
  keyword: LimitKeyword;
  value: number;
}

/**
 * The limits the validation pipe enforces on a class's properties, inherited ones included, as
 * class-validator applies them (the pipe validates without groups). Several limits of one kind on
 * a property all apply: the strictest is the one that counts.
 */
export function validationLimitsOf(type: InputClass): ValidationLimit[] {
  const limits = new Map<string, ValidationLimit>();
  const metadatas: ValidationMetadata[] = getMetadataStorage().getTargetValidationMetadatas(
    type,
    '',
    false,
    false,
  );
  for (const metadata of metadatas) {
    const toLimits = metadata.name ? LIMITS[metadata.name] : undefined;
    if (!toLimits) continue;
    for (const [keyword, value] of Object.entries(toLimits(metadata.constraints ?? []))) {
      if (typeof value !== 'number') continue;
      const limit = { property: metadata.propertyName, each: metadata.each === true, keyword, value };
      const key = `${limit.property}\0${limit.each}\0${keyword}`;
      const known = limits.get(key);
      const stricter = UPPER_BOUNDS.has(keyword)
        ? Math.min(value, known?.value ?? value)
        : Math.max(value, known?.value ?? value);
      limits.set(key, { ...limit, keyword: keyword as LimitKeyword, value: stricter });
    }
  }
  return [...limits.values()];
}

/**
 * Every class the validation storage holds rules of (nested DTOs included). class-validator keeps
 * its storage private; a class that only inherits its rules is not in it and comes from the routes.
 */
export function classesWithValidationRules(): InputClass[] {
  const storage = getMetadataStorage() as unknown as { validationMetadatas?: Map<unknown, unknown> };
  return [...(storage.validationMetadatas?.keys() ?? [])].filter(
    (target): target is InputClass => typeof target === 'function',
  );
}

/**
 * Writes into the document's schemas the limits their DTO classes' validation decorators enforce.
 * The swagger compiler plugin copies a decorator's argument into the document only when it can read
 * it in the source: `@ArrayMaxSize(MAX_BULK_MEMBERS)` (an identifier) or
 * `@ArrayMaxSize(EVENTS.length)` (an expression) are silently left out. Reading the values from
 * class-validator instead makes the validator the one source of every limit, whatever the
 * decorator's argument is, and whatever an explicit @ApiProperty says. A schema is matched to its
 * class by name (the name Swagger gives it); a name two classes share is left as it is.
 */
export function addValidationLimits(document: OpenAPIObject, classes: Iterable<InputClass>): OpenAPIObject {
  const byName = new Map<string, InputClass | null>();
  for (const type of new Set(classes)) {
    const known = byName.get(type.name);
    byName.set(type.name, known === undefined || known === type ? type : null);
  }
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    const type = byName.get(name);
    const properties = (schema as SchemaObject).properties;
    if (!type || !properties) continue;
    for (const limit of validationLimitsOf(type)) {
      const property = properties[limit.property] as SchemaObject | undefined;
      const target = limit.each && property?.type === 'array' ? property.items : property;
      // a $ref cannot take sibling keywords (OpenAPI 3.0): its own schema carries its limits
      if (!target || '$ref' in target) continue;
      target[limit.keyword] = limit.value;
    }
  }
  return document;
}
