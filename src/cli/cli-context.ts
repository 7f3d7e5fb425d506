import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigValidationError, loadConfig } from '../config/app-config';
import { CliModule } from './cli.module';

/** A problem the user can fix: printed without a stack trace, exit code 1. */
export class CliError extends Error {}

/** The CLI's Nest context (no HTTP server, no logs); the configuration is checked first. */
export async function createCliContext(): Promise<INestApplicationContext> {
  try {
    loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigValidationError) throw new CliError(err.message);
    throw err;
  }
  return NestFactory.createApplicationContext(CliModule, { logger: false, abortOnError: false });
}
