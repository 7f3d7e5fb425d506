// The floor of this machine, measured in the same invocation as the service (a speed figure counts
// only as a ratio to it: these machines differ from one day to the next). Runs a round of the
// floor's scripts and returns the one JSON line it prints. They live outside the repository: FLOOR_DIR,
// by default ../shared/bench-floor beside the checkout (or beside one of its parents, for a git
// worktree). Without them (a fresh clone) floorPresent() says so in one line and the benches skip the
// floor's round: their figures are then printed, and recorded, without a ratio.
// The floor folder may be read-only and come without node_modules: it is then copied once into the
// temp directory and installed there with `npm install` (never `npm ci`, see its README).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pg = require('pg');
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
/** The advisory lock key every bench's floor run takes on the PostgreSQL server (any constant). */
const FLOOR_LOCK = 727_001;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE = resolve(process.env.FLOOR_DIR ?? nearestFloor(ROOT));

/** `shared/bench-floor` beside the checkout or beside one of its parents (a git worktree's). */
function nearestFloor(from) {
  for (let dir = from; dirname(dir) !== dir; dir = dirname(dir)) {
    const candidate = join(dirname(dir), 'shared', 'bench-floor');
    if (existsSync(candidate)) return candidate;
  }
  return join(from, '..', 'shared', 'bench-floor');
}

let announced = false;

/**
 * Whether the floor's scripts are there. When they are not, says so once, in one line on stderr: the
 * bench then skips the floor's round and prints its own figures without a ratio.
 */
export function floorPresent() {
  const present =
    existsSync(join(SOURCE, 'floor-delivery.mjs')) && existsSync(join(SOURCE, 'floor-read.mjs'));
  if (!present && !announced) {
    announced = true;
    process.stderr.write(
      `no floor at ${SOURCE} (set FLOOR_DIR to the bench-floor folder): its round is skipped, figures come without a ratio\n`,
    );
  }
  return present;
}

/** A folder with the floor's scripts and their dependencies installed. */
export function floorDir() {
  if (!floorPresent())
    throw new Error(`no floor at ${SOURCE}: set FLOOR_DIR to the shared bench-floor folder`);
  if (existsSync(join(SOURCE, 'node_modules'))) return SOURCE;
  const lock = readFileSync(join(SOURCE, 'package-lock.json'));
  const dir = join(
    tmpdir(),
    `cp-bench-floor-${createHash('sha256').update(lock).digest('hex').slice(0, 12)}`,
  );
  if (!existsSync(join(dir, 'node_modules'))) {
    cpSync(SOURCE, dir, { recursive: true, filter: (p) => !p.includes('/results') });
    execFileSync('npm', ['install', '--no-audit', '--no-fund'], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return dir;
}

/**
 * Runs `node <script>` of the floor with `env` and resolves with its last JSON line (the floor's
 * figures), or with `{ lines }` (every line it printed) when `allLines` is set, for a script that
 * prints a table rather than JSON. Its progress goes to stderr so this script's stdout stays one
 * JSON line.
 */
export async function runFloor(script, env, options = {}) {
  // The floor's scripts use fixed names (database `floor_delivery`, receiver port 3200): two floor
  // runs at once on this machine (two sessions benchmarking) drop each other's database and fail
  // ("terminating connection due to administrator command", EADDRINUSE), and the bench then ends
  // without its figures. A PostgreSQL advisory lock, held by a connection of this process for the
  // floor's run, makes them take turns, and is released by PostgreSQL if this process dies.
  const lock = new pg.Client({ connectionString: ADMIN_URL });
  await lock.connect();
  try {
    const { rows } = await lock.query('SELECT pg_try_advisory_lock($1) AS free', [FLOOR_LOCK]);
    if (!rows[0].free) {
      process.stderr.write('another bench is running the floor on this machine: waiting for it\n');
      await lock.query('SELECT pg_advisory_lock($1)', [FLOOR_LOCK]);
    }
    return await runFloorUnlocked(script, env, options);
  } finally {
    await lock.end().catch(() => undefined);
  }
}

function runFloorUnlocked(script, env, { allLines = false }) {
  const cwd = floorDir();
  return new Promise((resolvePromise, reject) => {
    // its own process group: a floor that fails leaves its receiver and worker running (they hold
    // port 3200, and every later floor run fails on it), so the whole group is ended when it exits
    const child = spawn(process.execPath, [script], { cwd, env: { ...process.env, ...env }, detached: true });
    const endGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    };
    process.once('exit', endGroup);
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      process.stderr.write(chunk);
    });
    child.stderr.pipe(process.stderr);
    child.on('error', reject);
    child.on('exit', (code) => {
      endGroup();
      process.removeListener('exit', endGroup);
      const lines = out.split('\n');
      const json = [...lines].reverse().find((l) => l.startsWith('{'));
      if (code !== 0 || (!allLines && !json))
        reject(new Error(`the floor (${script}) exited ${code} without its figures`));
      else resolvePromise(allLines ? { lines } : JSON.parse(json));
    });
  });
}

/** service / floor, two decimals: the only speed figure that survives a change of machine. */
export function ratio(service, floor) {
  return Number((service / floor).toFixed(2));
}

/** The same, or undefined when the floor did not run (its figure is missing). */
export function ratioIfFloor(service, floor) {
  return typeof floor === 'number' && typeof service === 'number' ? ratio(service, floor) : undefined;
}
