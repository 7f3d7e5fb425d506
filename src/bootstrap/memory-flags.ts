import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings that keep the API and the worker under 200 MiB of peak RSS under load (issue 13 §3,
 * measured in bench/README.md "Memory"). Set from inside the process, as the first import of
 * src/main.ts and src/worker.ts, so every way of starting them (npm start, start:api, start:worker,
 * the Docker image, the benchmarks, the tests) gets the same settings from this one place; both are
 * read by V8 when it uses them, not at start-up, so setting them here takes effect.
 * - `--liftoff-only`: Prisma 7 compiles every query with its WebAssembly query compiler (3.4 MB of
 *   wasm). By default V8 re-compiles its hot functions with TurboFan on background threads; those
 *   compilations took up to 48 MiB of malloc'd memory, left in glibc's per-thread arenas for good,
 *   for no measurable gain (a query's compile is a small part of its time). Liftoff's baseline code
 *   is all the query compiler gets.
 * - `--heap-growing-percent=25`: after each full collection V8 lets the old generation grow to up
 *   to 4× what survived before the next one. Under load (requests promoted out of the young
 *   generation) that was 200 MiB of old space for 47 MiB of live objects; 1.25× keeps it near 60 MiB.
 */
export const V8_MEMORY_FLAGS = ['--liftoff-only', '--heap-growing-percent=25'] as const;

for (const flag of V8_MEMORY_FLAGS) setFlagsFromString(flag);
