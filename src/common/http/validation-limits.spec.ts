import type { OpenAPIObject } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, Length, Max, MaxLength, Min } from 'class-validator';
import { addValidationLimits, validationLimitsOf } from './validation-limits';

const MAX_TAGS = 5;
const LIMITS = { min: 2, max: 9 };

class BaseDto {
  @MaxLength(100)
  communityId?: string;
}

class PollDto extends BaseDto {
  @Length(LIMITS.min, LIMITS.max)
  @MaxLength(8)
  question: string;

  @ArrayNotEmpty()
  @ArrayMaxSize(MAX_TAGS)
  @MaxLength(20, { each: true })
  tags: string[];

  @Min(LIMITS.min)
  @Max(LIMITS.max)
  votes: number;

  @MaxLength(30)
  choice: object;
}

const documentOf = (schemas: Record<string, unknown>) =>
  ({
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {},
    components: { schemas },
  }) as OpenAPIObject;

describe('validation limits', () => {
  it('reads every limit, inherited ones too, the strictest where two of a kind apply', () => {
    const limits = validationLimitsOf(PollDto).map(
      (l) => `${l.property}${l.each ? '[]' : ''} ${l.keyword} ${l.value}`,
    );
    expect(limits.sort()).toEqual(
      [
        'question minLength 2',
        'question maxLength 8',
        'tags minItems 1',
        'tags maxItems 5',
        'tags[] maxLength 20',
        'votes minimum 2',
        'votes maximum 9',
        'choice maxLength 30',
        'communityId maxLength 100',
      ].sort(),
    );
  });

  it('writes them into the schema named after the class: on items for `each`, never beside a $ref', () => {
    const document = documentOf({
      PollDto: {
        type: 'object',
        properties: {
          question: { type: 'string', maxLength: 500 },
          tags: { type: 'array', items: { type: 'string' } },
          votes: { type: 'integer' },
          choice: { $ref: '#/components/schemas/ChoiceDto' },
          communityId: { type: 'string' },
        },
      },
    });
    const poll = addValidationLimits(document, [PollDto]).components!.schemas!.PollDto;
    expect(poll).toEqual({
      type: 'object',
      properties: {
        question: { type: 'string', minLength: 2, maxLength: 8 },
        tags: { type: 'array', minItems: 1, maxItems: 5, items: { type: 'string', maxLength: 20 } },
        votes: { type: 'integer', minimum: 2, maximum: 9 },
        choice: { $ref: '#/components/schemas/ChoiceDto' },
        communityId: { type: 'string', maxLength: 100 },
      },
    });
  });

  it('leaves a schema alone when two classes share its name', () => {
    const Twin = (() => {
      class PollDto {
        @MaxLength(1)
        question: string;
      }
      return PollDto;
    })();
    const schema = { type: 'object', properties: { question: { type: 'string' } } };
    const document = addValidationLimits(documentOf({ PollDto: structuredClone(schema) }), [PollDto, Twin]);
    expect(document.components!.schemas!.PollDto).toEqual(schema);
  });
});
