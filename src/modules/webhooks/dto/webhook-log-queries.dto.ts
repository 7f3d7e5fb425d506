import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsString, Max, MaxLength, Min } from 'class-validator';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';
import { MAX_PAGE_SIZE, toInteger } from '../../../common/pagination/page-query.dto';
import { DeliveryStatus } from '../../../generated/prisma/enums';
import { SUBSCRIBABLE_EVENTS, TEST_EVENT } from '../../events/event-catalog';
import { FIGURE_PERIODS, type FigurePeriod } from '../attempt-figures';
import { ResponseStatusFilter, SubjectFilter } from './community-messages.dto';

/* The query strings of an endpoint's log: its messages, its attempts and its figures. */

/**
 * The message view's page and filters (docs/api.md#webhooks, "Messages"): limit 1–100 (default 50),
 * offset from 0; status, since and until apply to a message's latest attempt.
 */
export class MessageQueryDto {
  @OptionalNotNull()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = 50;

  @OptionalNotNull()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(100_000)
  offset: number = 0;

  /** the state of the message's latest attempt */
  @ApiPropertyOptional({ enum: DeliveryStatus })
  @OptionalNotNull()
  @IsIn(Object.values(DeliveryStatus))
  status?: DeliveryStatus;

  @ApiPropertyOptional({ enum: [...SUBSCRIBABLE_EVENTS, TEST_EVENT] })
  @OptionalNotNull()
  @IsIn([...SUBSCRIBABLE_EVENTS, TEST_EVENT])
  eventType?: string;

  /** one message by its id (the webhook-id header a receiver saw) */
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  messageId?: string;

  @SubjectFilter()
  subject?: string;

  @ResponseStatusFilter()
  responseStatus?: string;

  /** messages whose latest attempt was written at or after this time (ISO 8601) */
  @OptionalNotNull()
  @IsISO8601({ strict: true })
  since?: string;

  /** messages whose latest attempt was written before this time (ISO 8601) */
  @OptionalNotNull()
  @IsISO8601({ strict: true })
  until?: string;

  /** community id or slug (tenant resolution: docs/product-decisions.md#3-tenancy-roles-permissions-plans) */
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  communityId?: string;
}

/**
 * Delivery-log paging (docs/product-decisions.md#4-lists): limit 1–100 (default 50), offset from 0
 * (default 0).
 */
export class DeliveryQueryDto {
  @OptionalNotNull()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = 50;

  @OptionalNotNull()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  offset: number = 0;

  @ApiPropertyOptional({ enum: DeliveryStatus })
  @OptionalNotNull()
  @IsIn(Object.values(DeliveryStatus))
  status?: DeliveryStatus;

  /** community id or slug (tenant resolution: docs/product-decisions.md#3-tenancy-roles-permissions-plans) */
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  communityId?: string;
}

/** The figures route's period (docs/api.md#webhooks, "Figures"). */
export class FiguresQueryDto {
  @ApiPropertyOptional({
    enum: FIGURE_PERIODS,
    default: '24h',
    description: 'the last 24 hourly buckets (24h) or the last 168 (7d), each ending with the current hour',
  })
  @OptionalNotNull()
  @IsIn(FIGURE_PERIODS)
  period: FigurePeriod = '24h';

  /** community id or slug (tenant resolution: docs/product-decisions.md#3-tenancy-roles-permissions-plans) */
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  communityId?: string;
}
