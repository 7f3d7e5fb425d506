import { IsOptional, IsString, MaxLength } from 'class-validator';

/**
 * Base of every body on a tenant-scoped route: `communityId` is a known field there (contract §1),
 * since the tenant may be resolved from it (spec §5).
 */
export class TenantBodyDto {
  /** community id or slug */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  communityId?: string;
}
