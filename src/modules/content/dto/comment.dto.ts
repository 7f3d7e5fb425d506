import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';
import { ParentType } from '../../../generated/prisma/enums';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { CONTENT_MAX_LENGTH } from './tweet.dto';

export class CreateCommentDto extends TenantBodyDto {
  /** 1–2000 characters */
  @IsString()
  @MinLength(1)
  @MaxLength(CONTENT_MAX_LENGTH)
  content: string;
}

export class CommentDto {
  id: string;
  communityId: string;
  @ApiProperty({ enum: ParentType })
  parentType: ParentType;
  parentId: string;
  authorId: string;
  content: string;
  createdAt: Date;
}
