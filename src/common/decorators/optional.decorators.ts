import { applyDecorators } from '@nestjs/common';
import { IsDefined, ValidateIf } from 'class-validator';

/**
 * The field may be left out; when it is sent, `null` included, it must pass the field's rules.
 *
 * Use this instead of class-validator's @IsOptional(), which skips validation for `null` as well as
 * for a missing field: a `null` then reached the service and PostgreSQL as a value of a NOT NULL
 * column (500). The OpenAPI document is unchanged: the swagger plugin marks a property optional
 * from its `?`, not from this decorator.
 */
export function OptionalNotNull(): PropertyDecorator {
  return applyDecorators(
    ValidateIf((_object: object, value: unknown) => value !== undefined),
    // runs only when the field was sent (the ValidateIf above), so it refuses exactly `null`
    IsDefined({ message: '$property must not be null' }),
  );
}

/**
 * The field may be left out or sent as `null`, which clears it (customDomain, branding:
 * docs/api.md#http-contract); any other value must pass the field's rules. Document it with
 * `@ApiPropertyOptional({ nullable: true, ... })`.
 */
export function OptionalNullable(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);
}
