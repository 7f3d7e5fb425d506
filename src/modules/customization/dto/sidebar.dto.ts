import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { IsHttpUrlOrPath, MAX_URL_LENGTH } from './url-rules';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';

export const MAX_SIDEBAR_ITEMS = 50;

export class SidebarItemDto {
  /** 1–60 characters */
  @IsString()
  @Length(1, 60)
  label: string;

  /** an http(s) URL, or a path on the community's site starting with '/' */
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  @IsHttpUrlOrPath()
  url: string;

  /** an icon name, at most 60 characters */
  @OptionalNotNull()
  @IsString()
  @MaxLength(60)
  icon?: string;
}

export class PutSidebarDto extends TenantBodyDto {
  /** the whole sidebar, in display order (at most 50 items; [] empties it) */
  @IsArray()
  @ArrayMaxSize(MAX_SIDEBAR_ITEMS)
  @ValidateNested({ each: true })
  @Type(() => SidebarItemDto)
  items: SidebarItemDto[];
}

export class SidebarDto {
  items: SidebarItemDto[];
  /** null until the sidebar is first set */
  updatedAt: Date | null;
}
