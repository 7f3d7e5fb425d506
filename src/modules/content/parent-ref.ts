import type { ParentType } from '../../generated/prisma/enums';

/** The tweet or task a comment or like hangs off, inside its community. */
export interface ParentRef {
  communityId: string;
  parentType: ParentType;
  parentId: string;
}

export interface ParentCounts {
  likeCount: number;
  commentCount: number;
}
