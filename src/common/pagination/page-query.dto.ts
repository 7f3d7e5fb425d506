import { Transform } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { OptionalNotNull } from '../decorators/optional.decorators';

export const MAX_PAGE_SIZE = 100;

/** Query strings arrive as text: '20' becomes 20, anything that is not an integer stays as-is and fails. */
export const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;

/**
 * `page` and `limit` of every /api/sdk list (docs/product-decisions.md#4-lists), plus the tenant fields the
 * query may carry.
 */
export class PageQueryDto {
  /** page number, from 1 */
  @OptionalNotNull()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page: number = 1;

  /** page size, 1–100 */
  @OptionalNotNull()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit: number = 20;

  /** community id or slug (tenant resolution: docs/product-decisions.md#3-tenancy-roles-permissions-plans) */
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  communityId?: string;
}

export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

export function toPage<T>(items: T[], query: { page: number; limit: number }, total: number): Page<T> {
  return { items, page: query.page, limit: query.limit, total, hasMore: query.page * query.limit < total };
}
