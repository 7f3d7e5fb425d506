import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { MemberInputDto } from './member-input.dto';

export const MAX_BULK_MEMBERS = 1000;
/**
 * Fields in the largest valid body: every entry with its three fields (email, name, role), plus
 * `members` and `communityId`. Above the body-wide default, which the route raises to this.
 */
export const MAX_BULK_MEMBERS_BODY_KEYS = MAX_BULK_MEMBERS * 3 + 2;

export class BulkMembersDto extends TenantBodyDto {
  /** 1–1000 entries; each e-mail at most once */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_MEMBERS)
  @ValidateNested({ each: true })
  @Type(() => MemberInputDto)
  members: MemberInputDto[];
}
