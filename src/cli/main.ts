import { parseArgs } from 'node:util';
import { CliError, createCliContext } from './cli-context';
import { COMMANDS } from './commands';

function usage(): string {
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    'Commands:',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
    '',
    'The CLI reads the same configuration as the service (DATABASE_URL, ... from the environment or .env).',
  ].join('\n');
}

export interface CliOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Runs one CLI command; returns the process exit code (0 done, 1 bad input or failure). */
export async function runCli(argv: string[], io: CliOutput): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage());
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`Unknown command '${name}'.\n\n${usage()}`);
    return 1;
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }));
  } catch (err) {
    io.err(`${(err as Error).message}\nUsage: npm run cli -- ${command.usage}`);
    return 1;
  }
  let app: Awaited<ReturnType<typeof createCliContext>> | undefined;
  try {
    app = await createCliContext();
    for (const line of await command.run(app, values)) io.out(line);
    return 0;
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`Error: ${err.message}`);
      return 1;
    }
    io.err(`Error: ${(err as Error).message ?? String(err)}`);
    return 1;
  } finally {
    await app?.close();
  }
}

if (require.main === module) {
  void runCli(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  }).then((code) => process.exit(code));
}
