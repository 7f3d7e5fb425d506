import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { MemberInputDto } from './member-input.dto';

export const MAX_BULK_MEMBERS = 1000;

export class BulkMembersDto extends TenantBodyDto {
  /** 1–1000 entries; each e-mail at most once */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_MEMBERS)
  @ValidateNested({ each: true })
  @Type(() => MemberInputDto)
  members: MemberInputDto[];
}
