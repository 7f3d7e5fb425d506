import { ValidationError, ValidationPipe } from '@nestjs/common';
import { Errors, ValidationDetail } from '../errors/app-error';

function flatten(errors: ValidationError[], parent = ''): ValidationDetail[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

/**
 * Validates and transforms every body, query and path DTO. Unknown fields are refused (400), never
 * dropped silently; each problem is reported with the field it concerns.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const details = flatten(errors).map((d) =>
        d.message.startsWith('property ') && d.message.endsWith(' should not exist')
          ? { field: d.field, message: `${d.field} is not a known field` }
          : d,
      );
      return Errors.validation(details, details.map((d) => d.message).join('; ') || 'Validation failed');
    },
  });
}
