import { IsString, MaxLength, MinLength } from 'class-validator';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';

export const CONTENT_MAX_LENGTH = 2000;

/** Body of POST /api/sdk/tweets and PATCH /api/sdk/tweets/:id. */
export class TweetContentDto extends TenantBodyDto {
  /** 1–2000 characters */
  @IsString()
  @MinLength(1)
  @MaxLength(CONTENT_MAX_LENGTH)
  content: string;
}

export class TweetDto {
  id: string;
  communityId: string;
  authorId: string;
  content: string;
  likeCount: number;
  commentCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export class DeletedTweetDto {
  id: string;
  deleted: true;
}
