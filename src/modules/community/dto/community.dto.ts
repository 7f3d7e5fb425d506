import { CommunityDto } from '../../admin/dto/responses.dto';
import { ApiProperty } from '@nestjs/swagger';
import { Visibility } from '../../../generated/prisma/enums';

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

/** The community (contract §7, as the service routes give it) with its settings and branding. */
export class SdkCommunityDto extends CommunityDto {
  description: string;
  @ApiProperty({ enum: Visibility })
  visibility: Visibility;
  allowMemberPosts: boolean;
  branding: BrandingDto;
  updatedAt: Date;
}
