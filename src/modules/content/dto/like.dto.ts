import { ApiProperty } from '@nestjs/swagger';
import { ParentType } from '../../../generated/prisma/enums';

/** The caller's like of an item, and the item's like count after the change. */
export class LikeDto {
  /** the like's id (the same on a repeated like) */
  id: string;
  @ApiProperty({ enum: ParentType })
  parentType: ParentType;
  parentId: string;
  userId: string;
  @ApiProperty({ enum: [true] })
  liked: true;
  likeCount: number;
  createdAt: Date;
}

export class UnlikeDto {
  @ApiProperty({ enum: ParentType })
  parentType: ParentType;
  parentId: string;
  @ApiProperty({ enum: [false] })
  liked: false;
  likeCount: number;
}
