import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Plan, Role } from '../../../generated/prisma/enums';

export class CommunityDto {
  id: string;
  slug: string;
  name: string;
  @ApiProperty({ enum: Plan })
  plan: Plan;
  @ApiProperty({ nullable: true, type: String })
  customDomain: string | null;
  createdAt: Date;
}

export class ApiKeyDto {
  id: string;
  name: string;
  communityId: string;
  /** the public part, for recognising the key: cpk_<keyId>_… */
  keyPrefix: string;
  scopes: string[];
  @ApiProperty({ nullable: true, type: Date })
  lastUsedAt: Date | null;
  @ApiProperty({ nullable: true, type: Date })
  revokedAt: Date | null;
  createdAt: Date;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  /** the whole key, shown once; send it as X-Api-Key */
  key: string;
}

export class MembershipSummaryDto {
  communityId: string;
  slug: string;
  name: string;
  @ApiProperty({ enum: Role })
  role: Role;
}

export class IdentityDto {
  @ApiProperty({ enum: ['user', 'apiKey'] })
  type: 'user' | 'apiKey';
  user: { id: string; email: string; name: string; isPlatformAdmin: boolean };
  /** the tenant of the token, or the API key's community */
  @ApiProperty({ nullable: true, type: String })
  communityId: string | null;
  @ApiPropertyOptional({ type: ApiKeyDto })
  apiKey?: ApiKeyDto;
  @ApiProperty({ type: [MembershipSummaryDto] })
  memberships: MembershipSummaryDto[];
}
