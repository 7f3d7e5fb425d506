import { setFlagsFromString } from 'node:v8';

export type ProcessRole = 'api' | 'worker';

/**
 * How far V8 lets the old generation grow past what survived the last full collection before it
 * collects again (V8's own factor goes up to 4×). Under load both processes promote the objects of
 * work in flight out of the young generation: the API reached 205 MiB of old space for 47 MiB of
 * live objects, the worker 170 MiB for 39 MiB. The API needs 1.25× to stay under 200 MiB (1.5×
 * peaked at 203–212 MiB); the worker stays under it at 1.5× (187 MiB), where 1.25× cost it 7% of
 * its deliveries per second in collections (bench/README.md, "Memory").
 */
const OLD_GENERATION_GROWTH_PERCENT: Record<ProcessRole, number> = { api: 25, worker: 50 };

/**
 * The V8 settings that keep the API and the worker under 200 MiB of peak RSS under load (issue 13
 * §3). `--liftoff-only`: Prisma 7 compiles every query with its WebAssembly query compiler (3.4 MB
 * of wasm); by default V8 re-compiles its hot functions with TurboFan on background threads, and
 * those compilations left up to 48 MiB of malloc'd memory in glibc's per-thread arenas for good,
 * for no measurable gain. Liftoff's baseline code is all the query compiler gets.
 */
export function v8MemoryFlags(role: ProcessRole): string[] {
  return ['--liftoff-only', `--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT[role]}`];
}

/**
 * Called by src/main.ts and src/worker.ts before they do anything else, so every way of starting
 * them (npm start, start:api, start:worker, the Docker image, the benchmarks, the tests) gets the
 * same settings from this one place. V8 reads both flags when it uses them (at a wasm compile, after
 * a full collection), not only at start-up, so setting them here takes effect: measured, the same
 * figures as the flags on the command line.
 */
export function applyV8MemoryFlags(role: ProcessRole): void {
  for (const flag of v8MemoryFlags(role)) setFlagsFromString(flag);
}
