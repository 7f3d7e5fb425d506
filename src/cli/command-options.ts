import type { INestApplicationContext } from '@nestjs/common';
import { CliError } from './cli-context';

/** A command's options as parsed from its command line. */
export type Options = Record<string, string | boolean | undefined>;

/** What a command may ask of the terminal besides its options (main.ts provides it). */
export interface CommandIo {
  /** a secret typed at a hidden prompt (interactive), or the whole of stdin with --password-stdin */
  readSecret: (prompt: string, fromStdin: boolean) => Promise<string>;
  /** prints a line at once, for a long command's progress */
  progress: (line: string) => void;
  /** aborted when the user asks a stoppable command to stop (Ctrl-C) */
  stop: AbortSignal;
}

export interface CommandSpec {
  usage: string;
  /** shown by `<command> --help`; the option names are listed from `options` */
  description?: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  /** the first Ctrl-C aborts `io.stop` instead of ending the process: the command stops cleanly */
  stoppable?: boolean;
  run: (app: INestApplicationContext, options: Options, io: CommandIo) => Promise<string[]>;
}

export function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new CliError(`--${name} is required`);
  return value.trim();
}

export function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A whole number of at least 1 given as --name, or the default when absent. */
export function positiveInt(options: Options, name: string, fallback: number): number;
export function positiveInt(options: Options, name: string, fallback?: undefined): number | undefined;
export function positiveInt(options: Options, name: string, fallback?: number): number | undefined {
  const value = optional(options, name);
  if (value === undefined) return fallback;
  if (!/^[1-9]\d{0,8}$/.test(value)) throw new CliError(`--${name} must be a whole number of at least 1`);
  return Number(value);
}

/** `1 batch`, `2 batches`: counts in the commands' lines. */
export const plural = (count: number, noun: string) =>
  `${count} ${noun}${count === 1 ? '' : noun.endsWith('h') ? 'es' : 's'}`;
