// A bench's figures as history: with BENCH_RECORD=1 (or --record on its command line) each run appends
// one JSON line per measured figure to bench/results/<bench>.jsonl, with the date, the commit and the
// machine it ran on, so that the figures of many days can be compared as they were measured: each as a
// ratio to the floor of its own invocation (bench/README.md#recording-and-the-chart). A figure whose floor
// did not run (FLOOR_DIR missing) is recorded without a floor and without a ratio.
//
// Fields every line may have (a bench adds its own): date and time (UTC), commit (`git rev-parse HEAD`,
// `dirty` when the working tree differed from it), machine, series (which figure of the bench: a route,
// a number of endpoints), unit, service, floor, ratio, target, p50Ms / p99Ms, peakRssMiB, floorPeakRssMiB,
// rssRatio, source ("run"; the lines taken from the old journal say "journal").
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');

/** Whether this run appends its figures to its results file. */
export function recording() {
  return process.env.BENCH_RECORD === '1' || process.argv.includes('--record');
}

/** What the figures were measured on: a 2-core machine shared with the load generator is not a 16-core one. */
export function machine() {
  const cores = cpus();
  return {
    cpu: cores[0]?.model.replace(/\s+/g, ' ').trim(),
    cores: cores.length,
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    loadAverage: loadavg().map((l) => Number(l.toFixed(1))),
  };
}

/** HEAD of the checkout, and whether its tracked files differ from it; nothing when git cannot say. */
function revision() {
  const git = (...args) => execFileSync('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const commit = git('rev-parse', 'HEAD').toString().trim();
    let dirty = false;
    try {
      // the results files themselves left out: a run recorded before this one is not a change of the code
      git('diff', '--quiet', 'HEAD', '--', '.', ':!bench/results');
    } catch {
      dirty = true;
    }
    return dirty ? { commit, dirty } : { commit };
  } catch {
    return {};
  }
}

/** Drops the fields left undefined (JSON.stringify would drop them too; this keeps the order readable). */
function defined(object) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

/**
 * Appends `figures` (one object per measured figure of this run) to bench/results/<bench>.jsonl when
 * recording() says so; says on stderr where they went.
 */
export function record(bench, figures) {
  if (!recording()) return;
  const now = new Date().toISOString();
  const context = { date: now.slice(0, 10), time: now.slice(11, 16), ...revision(), machine: machine() };
  const lines = figures.map((f) => JSON.stringify(defined({ ...context, source: 'run', ...f })));
  mkdirSync(RESULTS_DIR, { recursive: true });
  appendFileSync(join(RESULTS_DIR, `${bench}.jsonl`), `${lines.join('\n')}\n`);
  process.stderr.write(`recorded ${lines.length} line(s) in bench/results/${bench}.jsonl\n`);
}
