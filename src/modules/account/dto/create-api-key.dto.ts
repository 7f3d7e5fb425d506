import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { DEFAULT_API_KEY_SCOPES } from '../../../common/access/permissions';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';

export class CreateApiKeyDto extends TenantBodyDto {
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name: string;

  /** permissions the key may use; default: an ADMIN's, less API_KEYS_MANAGE */
  @ApiPropertyOptional({ enum: DEFAULT_API_KEY_SCOPES, isArray: true })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(20)
  @ArrayUnique()
  @IsIn(DEFAULT_API_KEY_SCOPES, { each: true })
  scopes?: string[];
}
