import { IsString, MaxLength } from 'class-validator';
import { OptionalNotNull } from '../decorators/optional.decorators';

/**
 * Base of every body on a tenant-scoped route: `communityId` is a known field there,
 * since the tenant may be resolved from it (docs/product-decisions.md#3-tenancy-roles-permissions-plans).
 */
export class TenantBodyDto {
  /** community id or slug */
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  communityId?: string;
}
