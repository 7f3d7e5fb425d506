import { ConfigModule as NestConfigModule } from '@nestjs/config';
import { Client } from 'pg';
import { closeRedisClient, createRedisClient, describeRedis, type RedisTarget } from '../redis/redis-client';
import { AppConfig, ConfigValidationError, loadConfig } from '../config/app-config';

/** How long a start-up probe waits for PostgreSQL or Redis before calling it unreachable. */
const PROBE_TIMEOUT_MS = 5_000;

/** host:port of a URL, never its credentials. */
function where(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return '(unparsable URL)';
  }
}

function reason(err: unknown): string {
  const e = err as { message?: string; code?: string; errors?: { message: string }[] };
  // Node's AggregateError (IPv4 and IPv6 both refused) has an empty message of its own.
  const message = e?.message || e?.errors?.map((x) => x.message).join('; ') || e?.code || String(err);
  return message.replace(/\s+/g, ' ').trim();
}

/** One line naming what is wrong with PostgreSQL, or null when it answers `SELECT 1`. */
export async function probePostgres(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<string | null> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return `Cannot reach PostgreSQL at ${where(url)} (DATABASE_URL): ${reason(err)}. Is it running, and does the database exist?`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** One line naming what is wrong with Redis (the node or the cluster), or null when it answers PING. */
export async function probeRedis(target: RedisTarget, timeoutMs = PROBE_TIMEOUT_MS): Promise<string | null> {
  const redis = createRedisClient(target, 'probe', { connectTimeout: timeoutMs });
  let lastError: unknown;
  redis.on('error', (err) => (lastError = err));
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (err) {
    return `Cannot reach ${describeRedis(target)}: ${reason(lastError ?? err)}. Is it running?`;
  } finally {
    await closeRedisClient(redis);
  }
}

/**
 * Everything a process checks before it starts Nest: the configuration (every bad value at once),
 * then PostgreSQL and, when the process uses it, Redis. Returns the problems, one line each.
 */
export async function preflightProblems(
  env: Record<string, string | undefined>,
  needs: { redis: boolean },
): Promise<{ problems: string[]; config?: AppConfig }> {
  let config: AppConfig;
  try {
    config = loadConfig(env).config;
  } catch (err) {
    if (err instanceof ConfigValidationError) return { problems: [err.message] };
    throw err;
  }
  const problems = (
    await Promise.all([
      probePostgres(config.DATABASE_URL),
      needs.redis ? probeRedis(config) : Promise.resolve(null),
    ])
  ).filter((p): p is string => p !== null);
  return { problems, config };
}

/**
 * The API and the worker call this first: a bad setting or an unreachable database or Redis stops
 * the process with one clear line each and exit code 1, before Nest logs anything.
 */
export async function preflight(processName: 'api' | 'worker'): Promise<void> {
  void NestConfigModule.envVariablesLoaded; // .env is loaded when the config module is imported
  const { problems } = await preflightProblems(process.env, { redis: true });
  if (problems.length === 0) return;
  for (const problem of problems) process.stderr.write(`[${processName}] ${problem}\n`);
  process.exit(1);
}

/** The message a process sends its parent (`npm start`) once it serves: the banner waits for both. */
export interface ReadyMessage {
  type: 'ready';
  process: 'api' | 'worker';
}

/**
 * Tells a parent that started this process with an IPC channel (scripts/start.js) that it is ready,
 * then lets go of the channel so it never keeps the process alive at shutdown.
 */
export function signalReady(processName: ReadyMessage['process']): void {
  if (!process.send) return;
  const message: ReadyMessage = { type: 'ready', process: processName };
  process.send(message, () => process.channel?.unref());
}
