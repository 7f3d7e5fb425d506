import { ApiProperty } from '@nestjs/swagger';
import { Role } from '../../../generated/prisma/enums';
import { IsString, Length } from 'class-validator';

/** POST .../webhooks/portal-links: where the portal opens, and until when the link works. */
export class PortalLinkDto {
  /** `<PUBLIC_BASE_URL>/portal/#token=...`: the token is in the fragment, which browsers never send */
  url: string;
  expiresAt: Date;
}

/** POST /api/webhooks/portal-sessions: the token from a portal link's fragment. */
export class ExchangePortalLinkDto {
  @IsString()
  @Length(20, 200)
  token: string;
}

/** A session for one community's webhook routes: send accessToken as Authorization: Bearer. */
export class PortalSessionDto {
  accessToken: string;
  tokenType: 'Bearer';
  /** seconds */
  expiresIn: number;
  communityId: string;
  communityName: string;
}

/** A community the caller may run webhooks in (the portal's picker after a password sign-in). */
export class PortalCommunityDto {
  id: string;
  name: string;
  slug: string;
  @ApiProperty({ enum: Role })
  role: Role;
}

export class PortalCommunitiesDto {
  @ApiProperty({ type: [PortalCommunityDto] })
  items: PortalCommunityDto[];
}
