import { setFlagsFromString } from 'node:v8';

export type ProcessRole = 'api' | 'worker';

/**
 * How far V8 lets the old generation grow past what survived the last full collection before it
 * collects again (V8's own factor goes up to 4×). Under load both processes promote the objects of
 * work in flight out of the young generation, so old space grows to several times what is live. The
 * API needs the tighter factor to stay under 200 MiB; the worker stays under it with the looser one,
 * where the tighter one cost it deliveries per second in collections (the peaks beside the floor's:
 * bench/README.md#tweets-list-benchtweets-listmjs, bench/README.md#delivery-throughput-benchdelivery-throughputmjs).
 */
const OLD_GENERATION_GROWTH_PERCENT: Record<ProcessRole, number> = { api: 25, worker: 50 };

/**
 * Young-generation collections on the main thread alone, in both processes. Under load both collect
 * their capped young generation (LAUNCH_NODE_FLAGS) many times a second, each collection keeping only
 * what the work in flight holds. Split with V8's helper thread, each collection held the main thread
 * longer, not shorter, and took a second core besides, which the database, the receiver and the load
 * were using (docs/architecture.md#operations).
 */
const YOUNG_GENERATION_ON_ONE_THREAD = ['--no-parallel-scavenge'];

/**
 * The V8 settings each process sets itself: YOUNG_GENERATION_ON_ONE_THREAD, and those that keep the API
 * and the worker under 200 MiB of peak RSS under load (docs/architecture.md#operations). `--liftoff-only`: Prisma 7 compiles every query with its WebAssembly query compiler
 * by default V8 re-compiles its hot functions with TurboFan on background threads, and those
 * compilations left malloc'd memory in glibc's per-thread arenas for good, for no
 * measurable gain (docs/architecture.md#operations). Liftoff's baseline code is all the query compiler gets.
 */
export function v8MemoryFlags(role: ProcessRole): string[] {
  return [
    '--liftoff-only',
    `--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT[role]}`,
    ...YOUNG_GENERATION_ON_ONE_THREAD,
  ];
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

/**
 * Node flags of each process that only its launcher can give, on the command line: V8 sizes the young
 * generation when the process starts, before any of its JavaScript runs, and grows it to its maximum
 * (2 × 16 MiB) during the start-up alone. Both processes cap it: the worker at half V8's size (a lower
 * peak for a little more CPU per delivery), the API at a quarter, where its reads and writes kept
 * their requests per second and its peak fell. Below a quarter the API's peak rose again: what a
 * smaller young generation cannot hold is promoted to the old one.
 * Why: docs/architecture.md#operations; the peaks beside the floor's:
 * bench/README.md#tweets-list-benchtweets-listmjs. `npm start`,
 * `npm run start:api` / `start:worker`, the Docker image, docker-compose.yml and the benchmarks pass
 * them; without them a process only peaks higher, so none warns.
 */
export const LAUNCH_NODE_FLAGS: Readonly<Record<ProcessRole, readonly string[]>> = {
  api: ['--max-semi-space-size=4'],
  worker: ['--max-semi-space-size=8'],
};

/**
 * glibc malloc's settings for the API and the worker: only the environment can give them (glibc
 * reads it before any JavaScript runs), so every launcher sets them (`npm start`, `npm run
 * start:api` / `start:worker`, the Docker image, the benchmarks), and a process started without
 * them says so at start (warnMissingMallocEnvironment). A fixed mmap threshold of 1 MiB: by default
 * glibc raises the threshold to the size of any large block freed, so after the start-up's dummy
 * argon2 hash, each login's argon2 block (memoryCost) came from the arena of the libuv thread
 * that ran it and stayed there for good, one block per libuv thread (docs/architecture.md#operations).
 * A fixed threshold also turns off glibc's rising trim threshold, so the main arena
 * gives freed memory back.
 */
export const MALLOC_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '1048576' };

/** The settings of MALLOC_ENVIRONMENT that `env` lacks, as NAME=value. */
export function missingMallocEnvironment(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(MALLOC_ENVIRONMENT)
    .filter(([name]) => env[name] === undefined)
    .map(([name, value]) => `${name}=${value}`);
}

/** One line on stderr when this process was started without MALLOC_ENVIRONMENT (it still runs). */
export function warnMissingMallocEnvironment(role: ProcessRole): void {
  const missing = missingMallocEnvironment(process.env);
  if (missing.length === 0 || process.platform !== 'linux') return;
  process.stderr.write(
    `[${role}] started without ${missing.join(' ')}: logins may keep an argon2 block per libuv thread ` +
      `(docs/operations.md, "What runs"); npm start, npm run start:${role} and the Docker image set it\n`,
  );
}
