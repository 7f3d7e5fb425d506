import { buildMessage, ValidateBy, ValidationOptions } from 'class-validator';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A uuid of any version: ids in paths, headers and token claims are checked before they reach SQL. */
export function isUuid(value: unknown): boolean {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * Refuses a value with the shape of a uuid (any version, any case). For names that share a lookup
 * with ids: a community's slug and its id are both accepted wherever a community is named, and the id
 * wins, so a uuid-shaped slug would be unreachable by slug, or would name another community.
 */
export function IsNotUuidShaped(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isNotUuidShaped',
      validator: {
        validate: (value: unknown) => !isUuid(value),
        defaultMessage: buildMessage(
          (prefix) => `${prefix}$property must not have the shape of a uuid`,
          options,
        ),
      },
    },
    options,
  );
}
