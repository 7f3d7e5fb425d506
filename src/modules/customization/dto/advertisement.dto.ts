import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsDateString, IsString, Length, Matches, MaxLength } from 'class-validator';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { IsHttpUrl, MAX_URL_LENGTH } from './url-rules';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';

export class CreateAdvertisementDto extends TenantBodyDto {
  @IsString()
  @Length(1, 200)
  title: string;

  /** http(s) */
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  @IsHttpUrl()
  imageUrl: string;

  /** http(s): where a click goes */
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  @IsHttpUrl()
  targetUrl: string;

  /** where the client shows it (a-z, 0-9, '-', '_'); default 'sidebar' */
  @ApiPropertyOptional({ default: 'sidebar' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(40)
  @Matches(/^[a-z0-9_-]+$/, { message: 'placement must be 1-40 of a-z, 0-9, - and _' })
  placement?: string;

  /** ISO-8601; shown from this instant (inclusive) */
  @IsDateString({ strict: true })
  @MaxLength(40)
  startsAt: string;

  /** ISO-8601; shown until this instant (exclusive); after startsAt */
  @IsDateString({ strict: true })
  @MaxLength(40)
  endsAt: string;

  @ApiPropertyOptional({ default: true })
  @OptionalNotNull()
  @IsBoolean()
  isActive?: boolean;
}

/**
 * Any subset of the create fields; the resulting window must still have startsAt < endsAt.
 * skipNullProperties: false: a field left out keeps its value, but `null` is validated (and refused)
 * instead of being waved through by the @IsOptional() PartialType adds by default.
 */
export class UpdateAdvertisementDto extends PartialType(CreateAdvertisementDto, {
  skipNullProperties: false,
}) {}

export class AdvertisementDto {
  id: string;
  title: string;
  imageUrl: string;
  targetUrl: string;
  placement: string;
  startsAt: Date;
  endsAt: Date;
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export class DeletedAdvertisementDto {
  id: string;
  deleted: true;
}
