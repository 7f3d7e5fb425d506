import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsDateString, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { IsHttpUrl, MAX_URL_LENGTH } from './url-rules';

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
  @IsOptional()
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
  @IsOptional()
  @IsBoolean()
  isActive?: boolean;
}

/** Any subset of the create fields; the resulting window must still have startsAt < endsAt. */
export class UpdateAdvertisementDto extends PartialType(CreateAdvertisementDto) {}

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
