import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsUUID,
  Matches,
  MaxLength,
  ValidateBy,
} from 'class-validator';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { CommunityParamsDto } from '../dto/webhook-requests.dto';
import { REPLAY_STATUSES, RESPONSE_CLASSES, type ReplayStatus } from '../core/replays/replay-selection';

/** A replay names at most this many endpoints (docs/api.md#bulk-replay). */
export const REPLAY_MAX_ENDPOINT_IDS = 100;
const MAX_EVENT_TYPES = 50;
const MAX_RESPONSE_STATUSES = 20;

/** An HTTP status code (100–599) or one of RESPONSE_CLASSES. */
function isResponseStatus(value: unknown): boolean {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 100 && value <= 599;
  return typeof value === 'string' && (RESPONSE_CLASSES as readonly string[]).includes(value);
}

/** The body of POST …/webhooks/replays. */
export class CreateReplayDto extends TenantBodyDto {
  @ApiProperty({
    format: 'date-time',
    example: '2026-11-20T00:00:00Z',
    description:
      'start of the window of event raise times, inclusive; no longer ago than WEBHOOK_MESSAGE_RETENTION',
  })
  @IsISO8601({ strict: true })
  since: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'end of the window, exclusive; default: now; at most 30 days after since',
  })
  @OptionalNotNull()
  @IsISO8601({ strict: true })
  until?: string;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: REPLAY_MAX_ENDPOINT_IDS,
    description: `endpoints of this community, at most ${REPLAY_MAX_ENDPOINT_IDS}; default: every endpoint of the community. An id that is not one of its endpoints: 404`,
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(REPLAY_MAX_ENDPOINT_IDS)
  @ArrayUnique()
  @IsUUID(undefined, { each: true })
  endpointIds?: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_EVENT_TYPES,
    example: ['tweet.created'],
    description: 'only events of these types; default: every type',
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(MAX_EVENT_TYPES)
  @ArrayUnique()
  @MaxLength(100, { each: true })
  @Matches(/^[a-z0-9_.]+$/, { each: true, message: 'each value in eventTypes must be an event type' })
  eventTypes?: string[];

  @ApiPropertyOptional({
    enum: REPLAY_STATUSES,
    description:
      "the state of the message's latest attempt on the endpoint: FAILED (when left out), SUCCESS, or ANY finished one (a message whose latest attempt is still PENDING is left to its own schedule)",
  })
  @OptionalNotNull()
  @IsIn(REPLAY_STATUSES, { message: `status must be one of: ${REPLAY_STATUSES.join(', ')}` })
  status?: ReplayStatus;

  @ApiPropertyOptional({
    type: 'array',
    items: {
      oneOf: [
        { type: 'integer', minimum: 100, maximum: 599 },
        { type: 'string', enum: [...RESPONSE_CLASSES] },
      ],
    },
    maxItems: MAX_RESPONSE_STATUSES,
    example: [503, '4xx', 'network'],
    description:
      'only messages whose latest attempt answered one of these: a status code, a class ("4xx": 400–499), or "network" (failed with no HTTP answer: connection, timeout, refused address); default: any',
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(MAX_RESPONSE_STATUSES)
  @ValidateBy({
    name: 'isResponseStatusList',
    validator: {
      validate: (value: unknown) => Array.isArray(value) && value.every(isResponseStatus),
      defaultMessage: () =>
        `each value in responseStatus must be a status code (100–599) or one of: ${RESPONSE_CLASSES.join(', ')}`,
    },
  })
  responseStatus?: (number | string)[];

  @ApiPropertyOptional({
    type: Boolean,
    description: 'true: answer 200 with what would be queued, per endpoint, and write nothing',
  })
  @OptionalNotNull()
  @IsBoolean()
  dryRun?: boolean;
}

export class ReplayParamsDto extends CommunityParamsDto {
  @IsUUID()
  replayId: string;
}

/** A dry run's answer. */
export class ReplayDryRunDto {
  /** the messages × endpoints the replay would select now */
  count: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { '5b0e7c1a-3f2d-4e8b-9a61-0c4d2e7f9b13': 120 },
    description: 'the same per endpoint id (endpoints with nothing selected are left out)',
  })
  byEndpoint: Record<string, number>;
}

/** A replay just created (202). */
export class CreatedReplayDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['queued'] })
  state: 'queued';

  /** what the selection held when the replay was created */
  total: number;
}

export class ReplayDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({
    enum: ['queued', 'running', 'done', 'cancelled'],
    description:
      'queued: no batch taken yet; running: a worker is taking batches; done: the whole selection was taken; cancelled: stopped by a cancel',
  })
  state: 'queued' | 'running' | 'done' | 'cancelled';

  /** the messages × endpoints the selection held when the replay was created */
  total: number;

  /** attempts the replay queued so far (each message at most once per endpoint) */
  queued: number;

  /** selected messages not queued: their endpoint was paused or disabled, or a newer attempt was written meanwhile */
  skipped: number;

  createdAt: Date;

  /** when it was done or cancelled; null before */
  @ApiProperty({ type: Date, nullable: true })
  finishedAt: Date | null;

  /** the start of the window of event raise times, inclusive, as created */
  since: Date;

  /** the end of the window, exclusive (the creation time when the request gave none) */
  until: Date;

  @ApiProperty({
    type: [String],
    format: 'uuid',
    description:
      'the endpoints it replays to: those the request named, or every endpoint the community had then',
  })
  endpointIds: string[];

  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'the event types it selects; null: every type',
  })
  eventTypes: string[] | null;

  @ApiProperty({ enum: REPLAY_STATUSES, description: "the latest attempt's state it selects" })
  status: ReplayStatus;

  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['503', '4xx', 'network'],
    description: 'the answers it selects (codes as text, classes, "network"); null: any',
  })
  responseStatus: string[] | null;
}

export class ReplayPageDto {
  @ApiProperty({ type: [ReplayDto] })
  items: ReplayDto[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}
