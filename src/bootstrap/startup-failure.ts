/**
 * What the API and the worker do when their start fails after the preflight (a port already in use,
 * PostgreSQL lost between the probe and Prisma's connect, a hook that throws): the promise of
 * docs/configuration.md#configuration holds for these too, one line on stderr and exit code 1, never a
 * stack trace a reader takes for a crash. A bug shows its stack at LOG_LEVEL=debug or trace.
 */
export function startupFailureLine(processName: 'api' | 'worker', err: unknown): string {
  const e = err as { message?: string; code?: string; syscall?: string; address?: string; port?: number };
  if (e?.code === 'EADDRINUSE' && e.syscall === 'listen') {
    return `[${processName}] Cannot start: ${e.address}:${e.port} is in use (PORT, HOST): stop what holds it or choose another port`;
  }
  const message = (e?.message || e?.code || String(err)).replace(/\s+/g, ' ').trim();
  return `[${processName}] Cannot start: ${message}`;
}

/** Writes the failure's line (and at LOG_LEVEL=debug its stack) and ends the process with exit code 1. */
export function exitOnStartupFailure(processName: 'api' | 'worker'): (err: unknown) => never {
  return (err) => {
    process.stderr.write(`${startupFailureLine(processName, err)}\n`);
    if (/^(debug|trace)$/i.test(process.env.LOG_LEVEL ?? '') && err instanceof Error && err.stack)
      process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  };
}
