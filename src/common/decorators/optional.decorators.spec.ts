import { IsString, validateSync } from 'class-validator';
import { OptionalNotNull, OptionalNullable } from './optional.decorators';

class Sample {
  @OptionalNotNull()
  @IsString()
  name?: string;

  @OptionalNullable()
  @IsString()
  domain?: string | null;
}

function fieldsInError(value: Record<string, unknown>) {
  const sample = Object.assign(new Sample(), value);
  return validateSync(sample).map((e) => ({
    field: e.property,
    messages: Object.values(e.constraints ?? {}),
  }));
}

describe('OptionalNotNull / OptionalNullable', () => {
  it('both accept a missing field', () => {
    expect(fieldsInError({})).toEqual([]);
  });

  it('OptionalNotNull refuses null with a message naming the field (IsOptional let it through)', () => {
    expect(fieldsInError({ name: null })).toEqual([
      { field: 'name', messages: expect.arrayContaining(['name must not be null']) },
    ]);
  });

  it('OptionalNullable accepts null (null clears the field)', () => {
    expect(fieldsInError({ domain: null })).toEqual([]);
  });

  it('both validate any other value', () => {
    expect(fieldsInError({ name: 'x', domain: 'y' })).toEqual([]);
    expect(fieldsInError({ name: 1, domain: 2 }).map((e) => e.field)).toEqual(['name', 'domain']);
  });
});
