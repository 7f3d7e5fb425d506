import { ApiProperty } from '@nestjs/swagger';
import { Plan, Visibility } from '../../../generated/prisma/enums';

export class BrandingDto {
  @ApiProperty({ nullable: true, type: String })
  logoUrl: string | null;
  @ApiProperty({ nullable: true, type: String })
  faviconUrl: string | null;
  @ApiProperty({ nullable: true, type: String, example: '#1A2B3C' })
  primaryColor: string | null;
  @ApiProperty({ nullable: true, type: String, example: '#FFCC00' })
  accentColor: string | null;
}

export class SettingsDto {
  name: string;
  description: string;
  @ApiProperty({ enum: Visibility })
  visibility: Visibility;
  allowMemberPosts: boolean;
  @ApiProperty({ nullable: true, type: String })
  customDomain: string | null;
}

/** The community (contract §7) with its settings and branding. */
export class SdkCommunityDto {
  id: string;
  slug: string;
  name: string;
  @ApiProperty({ enum: Plan })
  plan: Plan;
  @ApiProperty({ nullable: true, type: String })
  customDomain: string | null;
  description: string;
  @ApiProperty({ enum: Visibility })
  visibility: Visibility;
  allowMemberPosts: boolean;
  branding: BrandingDto;
  createdAt: Date;
  updatedAt: Date;
}
