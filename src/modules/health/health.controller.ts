import { Controller, Get, Inject, Logger } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import Redis from 'ioredis';
import { Public } from '../../common/decorators/auth.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import { PrismaService } from '../../prisma/prisma.service';
import { REDIS } from '../../redis/redis.module';

@ApiTags('health')
@Controller('health')
export class HealthController {
  private readonly logger = new Logger(HealthController.name);

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly prisma: PrismaService,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Get()
  @Public()
  @HealthCheck({ swaggerDocumentation: false })
  @ApiEndpoint({
    summary: 'Liveness and readiness: 200 when PostgreSQL and Redis answer, else 503',
    auth: 'public',
    errors: [503],
  })
  check() {
    return this.health.check([
      () => this.probe('database', () => this.prisma.$queryRaw`SELECT 1`),
      () => this.probe('redis', () => this.redis.ping()),
    ]);
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
