import { IsOptional, IsNumberString } from 'class-validator';
import { createValidationPipe } from './validation.pipe';

function dtoClass() {
  // two classes of one name: what the pipe remembers for one must not answer for the other
  class PageQuery {
    @IsOptional()
    @IsNumberString()
    page?: string;
  }
  return PageQuery;
}

describe.each(['query', 'param'] as const)('validation pipe on repeated %s objects', (type) => {
  const First = dtoClass();
  const Second = dtoClass();
  class Strict {
    @IsNumberString()
    page!: string;
  }

  it('answers a repeated accepted query with its own copy of the validated DTO', async () => {
    const pipe = createValidationPipe();
    const meta = { type, metatype: First };
    const a = (await pipe.transform({ page: '2' }, meta)) as InstanceType<typeof First>;
    const b = (await pipe.transform({ page: '2' }, meta)) as InstanceType<typeof First>;
    expect(a).toBeInstanceOf(First);
    expect(b).toBeInstanceOf(First);
    expect(b).toEqual(a);
    expect(b).not.toBe(a);
    b.page = '3'; // a caller may change its copy without touching the next request's
    expect(((await pipe.transform({ page: '2' }, meta)) as { page: string }).page).toBe('2');
  });

  it('keeps refusing an unknown field and a bad value every time, naming the field', async () => {
    const pipe = createValidationPipe();
    for (let i = 0; i < 2; i++) {
      await expect(pipe.transform({ page: '1', x: '1' }, { type, metatype: First })).rejects.toMatchObject({
        extra: { details: [{ field: 'x', message: 'x is not a known field' }] },
      });
      await expect(pipe.transform({ page: 'one' }, { type, metatype: Strict })).rejects.toMatchObject({
        extra: { details: [expect.objectContaining({ field: 'page' })] },
      });
    }
  });

  it('keeps what it remembers per DTO class, not per class name', async () => {
    const pipe = createValidationPipe();
    await pipe.transform({ page: '1' }, { type, metatype: First });
    await expect(pipe.transform({ page: '1' }, { type, metatype: Second })).resolves.toBeInstanceOf(Second);
  });
});
