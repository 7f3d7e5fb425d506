/** One line of bench/results/<bench>.jsonl (see bench/lib/record.mjs); a bench adds fields of its own. */
export interface BenchResult {
  date?: string;
  time?: string;
  commit?: string;
  series?: string;
  unit?: string;
  service?: number;
  floor?: number;
  ratio?: number;
  target?: string;
  [field: string]: unknown;
}

/** The lines of a results file as objects (see bench-chart.js). */
export function parseResults(text: string, name?: string): BenchResult[];
/** The results that have a ratio to draw, oldest first. */
export function plotted(results: readonly BenchResult[]): BenchResult[];
/** The x slot of each plotted result: the figures of one invocation share one. */
export function slots(points: readonly BenchResult[]): number[];
/** The number of a target such as ">= 0.7", or undefined. */
export function targetValue(target: unknown): number | undefined;
/** The SVG of one bench's results: a point per result with a ratio, a line per series. */
export function chartSvg(title: string, results: readonly BenchResult[]): string;
/** Writes <bench>.svg beside each <bench>.jsonl of `dir` with a ratio to draw; returns the files written. */
export function writeCharts(dir: string): string[];
