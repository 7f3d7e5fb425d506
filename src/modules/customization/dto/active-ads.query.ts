import { IsString, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../../common/pagination/page-query.dto';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';

export class AdvertisementsQueryDto extends PageQueryDto {
  /** only advertisements for this placement */
  @OptionalNotNull()
  @IsString()
  @MaxLength(40)
  @Matches(/^[a-z0-9_-]+$/, { message: 'placement must be 1-40 of a-z, 0-9, - and _' })
  placement?: string;
}
