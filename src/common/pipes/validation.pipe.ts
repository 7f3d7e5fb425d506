import { ArgumentMetadata, ValidationError, ValidationPipe, ValidationPipeOptions } from '@nestjs/common';
import { Errors, ValidationDetail } from '../errors/app-error';

function flatten(errors: ValidationError[], parent = ''): ValidationDetail[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.values(e.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(e.children ?? [], field)];
  });
}

/** A field the route does not declare (refused by the pipe and by KnownFieldsGuard alike). */
export const unknownField = (field: string): ValidationDetail => ({
  field,
  message: `${field} is not a known field`,
});

/**
 * Validates and transforms every body, query and path DTO. Unknown fields are refused (400), never
 * dropped silently; each problem is reported with the field it concerns.
 */
export function createValidationPipe(): ValidationPipe {
  return new RepeatedInputPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) =>
      Errors.validation(
        flatten(errors).map((d) =>
          d.message.startsWith('property ') && d.message.endsWith(' should not exist')
            ? unknownField(d.field)
            : d,
        ),
      ),
  });
}

/** Distinct query strings and path parameters remembered per DTO class (the oldest is forgotten first). */
const INPUT_MEMORY = 1_000;

/**
 * The validation pipe, remembering the outcome for query strings and path parameters it has already
 * accepted: a list's `?page=1&limit=20` and a polled delivery log's endpoint path repeat from
 * request to request, and class-transformer and class-validator cost a visible share of the API's CPU
 * on the hottest read when run each time. Only string-valued query and path objects are remembered
 * (what a query string and a path parse to), keyed by the DTO class and the exact values; each
 * request gets its own copy of the validated DTO. Refusals are not remembered.
 */
class RepeatedInputPipe extends ValidationPipe {
  /** per DTO class (two classes may share a name), the accepted query strings and paths */
  private readonly accepted = new WeakMap<object, Map<string, object>>();

  constructor(options: ValidationPipeOptions) {
    super(options);
  }

  /** Nest's validation and transformation, after the check class-validator cannot make. */
  private async checkAndTransform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' || metadata.type === 'query') {
      const inherited = inheritedNameFields(value);
      if (inherited.length > 0) throw Errors.validation(inherited);
    }
    return (await super.transform(value, metadata)) as unknown;
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const key = metadata.type === 'query' || metadata.type === 'param' ? rememberable(value) : undefined;
    const dto = metadata.metatype;
    if (key === undefined || !dto) return this.checkAndTransform(value, metadata);
    let accepted = this.accepted.get(dto);
    if (!accepted) this.accepted.set(dto, (accepted = new Map()));
    const known = accepted.get(key);
    if (known) return copy(known);
    const result = await this.checkAndTransform(value, metadata);
    if (result && typeof result === 'object') {
      if (accepted.size >= INPUT_MEMORY) accepted.delete(accepted.keys().next().value as string);
      accepted.set(key, Object.freeze(copy(result)));
    }
    return result;
  }
}

/**
 * class-validator looks each field up in a plain object of the DTO's declared fields, so a field
 * named after a member of Object.prototype (`constructor`, `hasOwnProperty`, `toString`, ...) is
 * taken for a declared one and passes the unknown-field rule. No DTO declares such a name: each is
 * refused here as the unknown field it is, before class-validator sees it.
 */
function inheritedNameFields(
  value: unknown,
  parent = '',
  found: ValidationDetail[] = [],
): ValidationDetail[] {
  if (!value || typeof value !== 'object') return found;
  const isArray = Array.isArray(value);
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const field = parent ? `${parent}.${key}` : key;
    if (!isArray && key in Object.prototype) found.push(unknownField(field));
    inheritedNameFields(child, field, found);
  }
  return found;
}

/** A shallow copy with the same class (a query DTO is flat). */
function copy(dto: object): object {
  return Object.assign(Object.create(Object.getPrototypeOf(dto) as object) as object, dto);
}

/** The memory key of a query object whose values are all strings, or undefined. */
function rememberable(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.every(([, v]) => typeof v === 'string')) return undefined;
  return JSON.stringify(entries);
}
