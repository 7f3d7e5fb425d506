import { IsEmail, IsString, MaxLength, MinLength } from 'class-validator';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';

export class LoginDto {
  @IsEmail()
  @MaxLength(254)
  email: string;

  @IsString()
  @MinLength(1)
  @MaxLength(256)
  password: string;

  /** community (id or slug) the token should be issued for; defaults per docs/product-decisions.md#2-identities-login-api-keys */
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  communityId?: string;
}

export class RefreshTokenDto {
  /** the opaque refresh token from login or an earlier refresh */
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  refreshToken: string;
}
