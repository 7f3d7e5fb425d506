// A benchmark leaves no process behind: every child it starts (the API, a worker, a receiver) is
// killed when the benchmark exits, however it exits: done, thrown, or interrupted (Ctrl-C, a CI
// timeout's SIGTERM).
const children = new Set();

process.on('exit', () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => process.exit(128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal]));
}

/** Registers a child process to be killed when this process exits; returns it. */
export function ownChild(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
