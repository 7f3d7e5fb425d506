import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { preflightProblems } from '../bootstrap/preflight';
import { CliModule } from './cli.module';

/** A problem the user can fix: printed without a stack trace, exit code 1. */
export class CliError extends Error {}

/**
 * The CLI's Nest context (no HTTP server, no logs). The configuration is checked first and then
 * PostgreSQL, so a bad setting or a database that is down is one clear line, not a stack trace.
 */
export async function createCliContext(): Promise<INestApplicationContext> {
  const { problems } = await preflightProblems(process.env, { redis: false });
  if (problems.length > 0) throw new CliError(problems.join('\n'));
  return NestFactory.createApplicationContext(CliModule, { logger: false, abortOnError: false });
}
