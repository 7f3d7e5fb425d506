import { ApiProperty, ApiPropertyOptional, getSchemaPath, OmitType } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../common/http/api-docs';

/** One dependency's state in a health answer (a @nestjs/terminus indicator result). */
export class HealthIndicatorDto {
  @ApiProperty({ enum: ['up', 'down'] })
  status: 'up' | 'down';
  /** when down: what is wrong, without driver detail (e.g. `unreachable`, `2 migrations not applied`) */
  @ApiPropertyOptional()
  message?: string;
}

const byDependency = {
  type: 'object',
  additionalProperties: { $ref: getSchemaPath(HealthIndicatorDto) },
} as const;

/** A health answer (@nestjs/terminus's HealthCheckResult), keyed by dependency: database, redis, migrations. */
export class HealthStatusDto {
  @ApiProperty({ enum: ['ok', 'error', 'shutting_down'] })
  status: 'ok' | 'error' | 'shutting_down';
  @ApiPropertyOptional({ ...byDependency, description: 'the dependencies that are up' })
  info?: Record<string, HealthIndicatorDto>;
  @ApiPropertyOptional({ ...byDependency, description: 'the dependencies that are down' })
  error?: Record<string, HealthIndicatorDto>;
  @ApiProperty({ ...byDependency, description: 'every dependency checked' })
  details: Record<string, HealthIndicatorDto>;
}

/**
 * The 503 of a health check: the error body (docs/product-decisions.md#1-responses-and-errors) whose
 * `details` is the health answer.
 */
export class HealthUnavailableBodyDto extends OmitType(ErrorBodyDto, ['details'] as const) {
  @ApiProperty({ type: HealthStatusDto, description: 'which dependency is down' })
  details: HealthStatusDto;
}
