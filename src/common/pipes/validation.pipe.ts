import { ValidationError, ValidationPipe } from '@nestjs/common';
import { Errors, ValidationDetail } from '../errors/app-error';

function flatten(errors: ValidationError[], parent = ''): ValidationDetail[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

/** A field the route does not declare (refused by the pipe and by KnownFieldsInterceptor alike). */
export const unknownField = (field: string): ValidationDetail => ({
  field,
  message: `${field} is not a known field`,
});

/** 400 VALIDATION_ERROR listing every problem, each with the field it concerns. */
export const validationError = (details: ValidationDetail[]) =>
  Errors.validation(details, details.map((d) => d.message).join('; ') || 'Validation failed');

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
    exceptionFactory: (errors) =>
      validationError(
        flatten(errors).map((d) =>
          d.message.startsWith('property ') && d.message.endsWith(' should not exist')
            ? unknownField(d.field)
            : d,
        ),
      ),
  });
}
