import { loadConfig } from '../config/app-config';
import { preflightProblems, probePostgres, probeRedis } from './preflight';

// Real PostgreSQL and Redis on 127.0.0.1 (as every test), and port 1 where nothing listens.
const DOWN_PG = 'postgresql://postgres:hunter2@127.0.0.1:1/nowhere';
const DOWN_REDIS = 'redis://:hunter2@127.0.0.1:1';
const redisOf = (env: Record<string, string>) => loadConfig(env).config;

describe('start-up probes', () => {
  it('say nothing when PostgreSQL and Redis answer', async () => {
    expect(await probePostgres(process.env.DATABASE_URL!)).toBeNull();
    expect(
      await probeRedis(redisOf({ REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' })),
    ).toBeNull();
  });

  it('name the unreachable service, its setting and address in one line, never the password', async () => {
    const pg = await probePostgres(DOWN_PG);
    expect(pg).toMatch(/^Cannot reach PostgreSQL at 127\.0\.0\.1:1 \(DATABASE_URL\): .*ECONNREFUSED.*$/);
    const redis = await probeRedis(redisOf({ REDIS_URL: DOWN_REDIS }));
    expect(redis).toMatch(/^Cannot reach Redis at 127\.0\.0\.1:1 \(REDIS_URL\): .*ECONNREFUSED.*$/);
    for (const line of [pg, redis]) {
      expect(line).not.toContain('\n');
      expect(line).not.toContain('hunter2');
    }
  });

  it('with REDIS_CLUSTER_NODES set, probe the cluster and name its seeds and setting', async () => {
    const cluster = await probeRedis(redisOf({ REDIS_URL: DOWN_REDIS, REDIS_CLUSTER_NODES: '127.0.0.1:1' }));
    expect(cluster).toMatch(/^Cannot reach the Redis Cluster at 127\.0\.0\.1:1 \(REDIS_CLUSTER_NODES\): .+$/);
    expect(cluster).not.toContain('hunter2');
  });

  it('checks the configuration before touching the database: a bad setting never reaches a probe', async () => {
    const { problems } = await preflightProblems(
      { DATABASE_URL: DOWN_PG, REDIS_URL: DOWN_REDIS, JWT_EXPIRES_IN: 'forever' },
      { redis: true },
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/JWT_EXPIRES_IN/);
    expect(problems[0]).not.toMatch(/Cannot reach/);
  });

  it('reports PostgreSQL and, when the process needs it, Redis', async () => {
    const both = await preflightProblems({ DATABASE_URL: DOWN_PG, REDIS_URL: DOWN_REDIS }, { redis: true });
    expect(both.problems.map((p) => p.split(' at ')[0])).toEqual([
      'Cannot reach PostgreSQL',
      'Cannot reach Redis',
    ]);
    const cli = await preflightProblems({ DATABASE_URL: DOWN_PG, REDIS_URL: DOWN_REDIS }, { redis: false });
    expect(cli.problems).toHaveLength(1);
  });
});
