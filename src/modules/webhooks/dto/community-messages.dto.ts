import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';
import { MAX_PAGE_SIZE, toInteger } from '../../../common/pagination/page-query.dto';
import { DeliveryStatus } from '../../../generated/prisma/enums';
import { SUBSCRIBABLE_EVENTS, TEST_EVENT } from '../../events/event-catalog';
import { RESPONSE_STATUS_PATTERN, RESPONSE_STATUS_RULES } from '../message-filters';

/** `subject`: a resource's id, as events carry it (docs/product-decisions.md#event-subjects). */
export function SubjectFilter(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      maxLength: 100,
      description:
        'messages whose event is about this resource: its `subject` (a tweet, comment, like, member, community, advertisement, embed session or endpoint id)',
    }),
    OptionalNotNull(),
    IsString(),
    MaxLength(100),
  );
}

/** `responseStatus`: a code, a class or network (message-filters.ts). */
export function ResponseStatusFilter(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      pattern: RESPONSE_STATUS_PATTERN.source,
      example: '5xx',
      description: `${RESPONSE_STATUS_RULES}, matched against the latest attempt that ended (SUCCESS or FAILED), so a message waiting for a retry is found by the answer that failed it`,
    }),
    OptionalNotNull(),
    IsString(),
    Matches(RESPONSE_STATUS_PATTERN, { message: `responseStatus must be ${RESPONSE_STATUS_RULES}` }),
  );
}

/**
 * The community's messages (docs/api.md#community-wide-messages): limit 1–100 (default 50), the cursor of the
 * previous page, and filters on the message (subject, eventType, since, until) and on its state at an endpoint
 * (endpointId, status, responseStatus).
 */
export class CommunityMessageQueryDto {
  @OptionalNotNull()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = 50;

  /** the previous page's nextCursor, as it was given; leave it out for the first page */
  @OptionalNotNull()
  @IsString()
  @MaxLength(500)
  cursor?: string;

  @SubjectFilter()
  subject?: string;

  @ApiPropertyOptional({ enum: [...SUBSCRIBABLE_EVENTS, TEST_EVENT] })
  @OptionalNotNull()
  @IsIn([...SUBSCRIBABLE_EVENTS, TEST_EVENT])
  eventType?: string;

  /** messages sent to this endpoint of the community (each item then lists that endpoint alone) */
  @OptionalNotNull()
  @IsUUID(undefined, { message: 'endpointId must be a webhook endpoint id (a uuid)' })
  endpointId?: string;

  /** messages whose latest attempt at an endpoint is in this state */
  @ApiPropertyOptional({ enum: DeliveryStatus })
  @OptionalNotNull()
  @IsIn(Object.values(DeliveryStatus))
  status?: DeliveryStatus;

  @ResponseStatusFilter()
  responseStatus?: string;

  /** messages raised at or after this time (ISO 8601) */
  @OptionalNotNull()
  @IsISO8601({ strict: true })
  since?: string;

  /** messages raised before this time (ISO 8601) */
  @OptionalNotNull()
  @IsISO8601({ strict: true })
  until?: string;

  /** community id or slug (tenant resolution: docs/product-decisions.md#3-tenancy-roles-permissions-plans) */
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  communityId?: string;
}

/** A message at one endpoint. */
export class MessageAtEndpointDto {
  endpointId: string;
  /** the state of the latest attempt: SUCCESS, FAILED or PENDING (waiting for its send or its retry) */
  @ApiProperty({ enum: DeliveryStatus })
  status: DeliveryStatus;
  /** how many attempts so far */
  attempts: number;
  /** the HTTP status of the latest attempt that ended; null when none ended with an answer */
  @ApiProperty({ nullable: true, type: 'integer' })
  lastResponseStatus: number | null;
}

/** One message (event) of the community, with its state at each endpoint that has it. */
export class CommunityMessageDto {
  /** the webhook-id a receiver sees */
  messageId: string;
  eventType: string;
  /** the id of the resource the event is about; null for events raised before subjects were recorded */
  @ApiProperty({ nullable: true, type: String })
  subject: string | null;
  /** when the event was raised (the instant its id holds) */
  createdAt: Date;
  /** a probe of the test route */
  test: boolean;
  /** each endpoint the message went to, in the order of their ids (those matching endpointId, status and responseStatus when given) */
  @ApiProperty({ type: [MessageAtEndpointDto] })
  endpoints: MessageAtEndpointDto[];
}

export class CommunityMessagePageDto {
  @ApiProperty({ type: [CommunityMessageDto] })
  items: CommunityMessageDto[];
  limit: number;
  /** pass it as `cursor` for the next page; null on the last page */
  @ApiProperty({ nullable: true, type: String })
  nextCursor: string | null;
}
