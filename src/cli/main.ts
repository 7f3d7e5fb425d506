import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { CliError, createCliContext } from './cli-context';
import { COMMANDS, CommandSpec } from './commands';

const HELP_FLAGS = new Set(['--help', '-h']);

function usage(): string {
  return [
    'Usage: npm run cli -- <command> [options]',
    '       npm run cli -- <command> --help',
    '',
    'Commands:',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
    '',
    'The CLI reads the same configuration as the service (DATABASE_URL, ... from the environment or .env).',
  ].join('\n');
}

/** `<command> --help`: built from the spec alone, so every command (present and future) has one. */
export function commandHelp(name: string, command: CommandSpec): string {
  const options = Object.entries(command.options).map(
    ([option, { type }]) => `  --${option}${type === 'string' ? ' <value>' : ''}`,
  );
  return [
    `Usage: npm run cli -- ${command.usage}`,
    ...(command.description ? ['', command.description] : []),
    '',
    'Options:',
    ...options,
    '  --help, -h       this help',
    '',
    `Example: npm run cli -- ${name} --help`,
  ].join('\n');
}

export interface CliOutput {
  out: (line: string) => void;
  err: (line: string) => void;
  /** the whole of standard input (defaults to the process's) */
  readStdin?: () => Promise<string>;
  /** a hidden prompt; null: there is no terminal (default: the process's, when stdin is a TTY) */
  prompt?: ((question: string) => Promise<string>) | null;
  /** asks a stoppable command to stop after the work in hand (default: the process's first SIGINT) */
  stop?: AbortSignal;
}

/** The first Ctrl-C asks a stoppable command to finish its batch and stop; a second one ends the process. */
function stopOnFirstSigint(io: CliOutput): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onSigint = () => {
    io.err('Stopping after the current batch (Ctrl-C again to quit at once)...');
    controller.abort();
  };
  process.once('SIGINT', onSigint);
  return { signal: controller.signal, release: () => process.removeListener('SIGINT', onSigint) };
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a line from the terminal without echoing it. */
function hiddenPrompt(question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) process.stdout.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      process.stdout.write('\n');
      resolve(answer);
    });
    muted = true;
  });
}

function secretReader(io: CliOutput) {
  return async (question: string, fromStdin: boolean): Promise<string> => {
    if (fromStdin) {
      // One trailing newline (echo, a file) is not part of the password.
      return (await (io.readStdin ?? readProcessStdin)()).replace(/\r?\n$/, '');
    }
    const prompt = io.prompt === undefined ? (process.stdin.isTTY ? hiddenPrompt : null) : io.prompt;
    if (!prompt) throw new CliError('No terminal to ask for the password: pipe it in with --password-stdin');
    const first = await prompt(question);
    const again = await prompt('Repeat it: ');
    if (first !== again) throw new CliError('The two passwords differ');
    return first;
  };
}

/** Runs one CLI command; returns the process exit code (0 done, 1 bad input or failure). */
export async function runCli(argv: string[], io: CliOutput): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || HELP_FLAGS.has(name) || name === 'help') {
    const about = name === 'help' && rest[0] ? COMMANDS[rest[0]] : undefined;
    io.out(about ? commandHelp(rest[0], about) : usage());
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`Unknown command '${name}'.\n\n${usage()}`);
    return 1;
  }
  // --help wins over everything else and needs neither valid options nor a database.
  if (rest.some((arg) => HELP_FLAGS.has(arg))) {
    io.out(commandHelp(name, command));
    return 0;
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }));
  } catch (err) {
    io.err(`${(err as Error).message}\nUsage: npm run cli -- ${command.usage}  (--help for more)`);
    return 1;
  }
  let app: Awaited<ReturnType<typeof createCliContext>> | undefined;
  const sigint = command.stoppable && !io.stop ? stopOnFirstSigint(io) : undefined;
  try {
    app = await createCliContext();
    const stop = io.stop ?? sigint?.signal ?? new AbortController().signal;
    for (const line of await command.run(app, values, {
      readSecret: secretReader(io),
      progress: io.out,
      stop,
    }))
      io.out(line);
    return 0;
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`Error: ${err.message}`);
      return 1;
    }
    io.err(`Error: ${(err as Error).message ?? String(err)}`);
    return 1;
  } finally {
    sigint?.release();
    await app?.close();
  }
}

if (require.main === module) {
  void runCli(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  }).then((code) => process.exit(code));
}
