import { Controller, Get, Inject, Logger } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { Public } from '../../common/decorators/auth.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import { PrismaService } from '../../prisma/prisma.service';
import { REDIS } from '../../redis/redis.module';
import type { RedisClient } from '../../redis/redis-client';
import { HealthIndicatorDto, HealthStatusDto, HealthUnavailableBodyDto } from './dto/health-status.dto';
import { MigrationStatus } from './migration-status';

@ApiTags('health')
@ApiExtraModels(HealthIndicatorDto)
@Controller('health')
export class HealthController {
  private readonly logger = new Logger(HealthController.name);

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly prisma: PrismaService,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly migrations: MigrationStatus,
  ) {}

  @Get()
  @Public()
  @HealthCheck({ swaggerDocumentation: false })
  @ApiEndpoint({
    summary: 'Liveness and readiness: 200 when PostgreSQL and Redis answer, else 503',
    auth: 'public',
    response: HealthStatusDto,
    errors: [503],
    errorBodies: { 503: HealthUnavailableBodyDto },
  })
  check() {
    return this.health.check([
      () => this.probe('database', () => this.prisma.$queryRaw`SELECT 1`),
      () => this.probe('redis', () => this.redis.ping()),
    ]);
  }

  @Get('live')
  @Public()
  @HealthCheck({ swaggerDocumentation: false })
  @ApiEndpoint({
    summary: 'Liveness: 200 whenever the process answers; checks no dependency (restart only if this fails)',
    auth: 'public',
    response: HealthStatusDto,
  })
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @Public()
  @HealthCheck({ swaggerDocumentation: false })
  @ApiEndpoint({
    summary:
      'Readiness: 200 when PostgreSQL and Redis answer and every migration shipped with this build is ' +
      'applied, else 503 naming what is not (send traffic only while this is 200)',
    auth: 'public',
    response: HealthStatusDto,
    errors: [503],
    errorBodies: { 503: HealthUnavailableBodyDto },
  })
  ready() {
    return this.health.check([
      () => this.probe('database', () => this.acceptsWrites()),
      () => this.probe('redis', () => this.redis.ping()),
      () => this.migrationsApplied(),
    ]);
  }

  /**
   * Ready only on a server that takes writes: during a failover DATABASE_URL may lead to a standby, or
   * to a promoted one pg_auto_failover still holds read-only, where every write would be refused
   * (docs/operations.md#database-failover).
   */
  private async acceptsWrites(): Promise<void> {
    const [{ writable }] = await this.prisma.$queryRaw<{ writable: boolean }[]>`
      SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AS writable`;
    if (!writable) throw new Error('the database server takes no writes (a standby, or read-only)');
  }

  /** Down with the number of migrations missing; their names go to the log, not to the caller. */
  private async migrationsApplied() {
    const indicator = this.indicators.check('migrations');
    let missing: string[];
    try {
      missing = await this.migrations.pending();
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'migration check failed');
      return indicator.down({ message: 'unknown' });
    }
    if (missing.length === 0) return indicator.up();
    return indicator.down({
      message: `${missing.length} migration${missing.length === 1 ? '' : 's'} not applied`,
    });
  }

  /**
   * The answer names the dependency and nothing more: the driver's error text (host, port, database
   * or user names) is for the operator's log, not for an anonymous caller.
   */
  private async probe(key: string, call: () => Promise<unknown>) {
    const indicator = this.indicators.check(key);
    try {
      await call();
      return indicator.up();
    } catch (err) {
      this.logger.warn(
        { dependency: key, err: err instanceof Error ? err.message : String(err) },
        'health check failed',
      );
      return indicator.down({ message: 'unreachable' });
    }
  }
}
