import { ApiProperty } from '@nestjs/swagger';
import { ROLES } from '../../../common/access/permissions';
import type { Role } from '../../../generated/prisma/enums';

/** Member (docs/product-decisions.md#7-resources): `id` is the membership id. */
export class MemberDto {
  id: string;
  userId: string;
  email: string;
  /** display name in this community: the name the community gave, never read from the user account */
  name: string;
  @ApiProperty({ enum: ROLES })
  role: Role;
  joinedAt: Date;
}

export class AddedMemberDto extends MemberDto {
  /** false when the e-mail was already a member of this community (then only name/role were updated) */
  created: boolean;
}

export class BulkMembersResultDto {
  /** new memberships (each raised member.joined) */
  created: number;
  /** existing memberships whose role or display name changed (each raised member.updated) */
  updated: number;
  /** existing memberships the request left as they were */
  unchanged: number;
  /** every entry's member, in request order */
  @ApiProperty({ type: [MemberDto] })
  members: MemberDto[];
}
