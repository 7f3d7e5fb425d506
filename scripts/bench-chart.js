// Draws each bench's history from bench/results/<bench>.jsonl as bench/results/<bench>.svg: one point per
// recorded run that has a ratio to the floor of its own invocation, a line per series (a route, a number
// of endpoints), the floor's 1 and the targets as horizontal lines. No dependency: the SVG is written out
// by hand. Runs without a ratio (no floor ran, or a bench that has none) are counted under the chart, not
// drawn; a bench with no ratio at all gets no chart.
//
//   npm run bench:chart          (node scripts/bench-chart.js [results folder])
//
// The functions are pure and exported for test/utils/bench-chart.spec.ts.
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, loaded by node and the tests alike */
'use strict';

const { readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

const PALETTE = [
  '#0072b2',
  '#d55e00',
  '#009e73',
  '#cc79a7',
  '#e69f00',
  '#56b4e9',
  '#7f3c8d',
  '#3b3b3b',
  '#a6761d',
  '#e7298a',
  '#66a61e',
  '#1b9e77',
];
const MARGIN = { left: 56, right: 320, top: 40, bottom: 78 };
/** The legend's place right of the plot, past the targets' labels. */
const LEGEND_OFFSET = 76;
const PLOT_HEIGHT = 220;
/** Horizontal room per run, within bounds: a long history gets a wider chart, not points on top of each other. */
const PER_RUN = 7;
const MIN_PLOT_WIDTH = 520;
const MAX_PLOT_WIDTH = 1400;

/** The lines of a results file as objects; a blank line is skipped, a line that is not JSON names its number. */
function parseResults(text, name = 'results') {
  return text.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line)];
    } catch (err) {
      throw new Error(`${name}:${i + 1}: not a JSON line (${err.message})`);
    }
  });
}

/** When a result was measured, for ordering: the date, then the time when it is known. */
function when(result) {
  return `${result.date ?? ''}T${result.time ?? ''}`;
}

/** The results that have a ratio to draw, oldest first (the file's order among those of one moment). */
function plotted(results) {
  return results
    .map((result, index) => ({ result, index }))
    .filter(({ result }) => typeof result.ratio === 'number' && Number.isFinite(result.ratio))
    .sort((a, b) => when(a.result).localeCompare(when(b.result)) || a.index - b.index)
    .map(({ result }) => result);
}

/**
 * The place of each plotted result on the x axis: the figures of one invocation (the same moment,
 * commit and build, each of another series: read-routes' five routes) share one; every other result
 * takes the next.
 */
function slots(points) {
  const key = (p) => JSON.stringify([p.date, p.time, p.commit, p.build]);
  const out = [];
  let slot = -1;
  let seen = new Set();
  points.forEach((p, i) => {
    const series = p.series ?? 'all';
    if (i === 0 || key(p) !== key(points[i - 1]) || seen.has(series)) {
      slot += 1;
      seen = new Set();
    }
    seen.add(series);
    out.push(slot);
  });
  return out;
}

/** The number of a target such as ">= 0.7" or "<= 2", or undefined. */
function targetValue(target) {
  const match = typeof target === 'string' ? /^\s*(>=|<=|>|<)\s*([\d.]+)\s*$/.exec(target) : null;
  return match ? Number(match[2]) : undefined;
}

/** A step for the y axis's ticks: at most eight of them from 0 to `top`. */
function tickStep(top) {
  return [0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50].find((step) => top / step <= 8) ?? 100;
}

function escapeXml(text) {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const fixed = (n) => Number(n.toFixed(1));

/**
 * The SVG of one bench's results: x, the runs with a ratio in date order; y, their ratio. Every such
 * result is one <circle> (its <title> says when, which commit and the figures), every series one
 * <polyline> through its points.
 */
function chartSvg(title, results) {
  const points = plotted(results);
  const skipped = results.length - points.length;
  const slotOf = slots(points);
  const slotCount = points.length === 0 ? 0 : slotOf[slotOf.length - 1] + 1;
  const plotWidth = Math.min(MAX_PLOT_WIDTH, Math.max(MIN_PLOT_WIDTH, slotCount * PER_RUN));
  const width = MARGIN.left + plotWidth + MARGIN.right;
  const height = MARGIN.top + PLOT_HEIGHT + MARGIN.bottom;
  const targets = [...new Set(points.map((p) => targetValue(p.target)).filter((t) => t !== undefined))].sort(
    (a, b) => a - b,
  );
  const highest = Math.max(1, ...points.map((p) => p.ratio), ...targets);
  const step = tickStep(highest * 1.05);
  const top = Math.ceil((highest * 1.05) / step) * step;
  /** the x of the i-th plotted result */
  const x = (i) =>
    fixed(MARGIN.left + (slotCount === 1 ? plotWidth / 2 : (slotOf[i] * plotWidth) / (slotCount - 1)));
  const y = (ratio) => fixed(MARGIN.top + PLOT_HEIGHT - (ratio / top) * PLOT_HEIGHT);
  const right = MARGIN.left + plotWidth;
  const out = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  );
  // the y axis: ticks, grid, the floor's 1 and the targets
  for (let tick = 0; tick <= top + step / 2; tick += step) {
    const ty = y(tick);
    out.push(
      `<line x1="${MARGIN.left}" y1="${ty}" x2="${right}" y2="${ty}" stroke="#e6e6e6"/>`,
      `<text x="${MARGIN.left - 6}" y="${fixed(ty + 4)}" text-anchor="end">${Number(tick.toFixed(2))}</text>`,
    );
  }
  out.push(
    `<line x1="${MARGIN.left}" y1="${y(1)}" x2="${right}" y2="${y(1)}" stroke="#888888"/>`,
    `<text x="${right - 4}" y="${fixed(y(1) - 4)}" text-anchor="end" fill="#666666">the floor (1)</text>`,
  );
  for (const target of targets) {
    out.push(
      `<line x1="${MARGIN.left}" y1="${y(target)}" x2="${right}" y2="${y(target)}" stroke="#b22222" stroke-dasharray="5,4"/>`,
      `<text x="${right + 4}" y="${fixed(y(target) + 4)}" fill="#b22222">target ${target}</text>`,
    );
  }
  out.push(
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${MARGIN.top + PLOT_HEIGHT}" stroke="#333333"/>`,
    `<line x1="${MARGIN.left}" y1="${MARGIN.top + PLOT_HEIGHT}" x2="${right}" y2="${MARGIN.top + PLOT_HEIGHT}" stroke="#333333"/>`,
    `<text transform="translate(16 ${MARGIN.top + PLOT_HEIGHT / 2}) rotate(-90)" text-anchor="middle">ratio to the floor</text>`,
  );
  // the x axis: a date under the first run of each day, when there is room for it
  let lastLabel = -Infinity;
  points.forEach((p, i) => {
    if ((i > 0 && points[i - 1].date === p.date) || x(i) - lastLabel < 16) return;
    lastLabel = x(i);
    const base = MARGIN.top + PLOT_HEIGHT;
    out.push(
      `<line x1="${x(i)}" y1="${base}" x2="${x(i)}" y2="${base + 4}" stroke="#333333"/>`,
      `<text transform="translate(${x(i)} ${base + 14}) rotate(-40)" text-anchor="end">${escapeXml(p.date ?? '?')}</text>`,
    );
  });
  // a line and its points per series, and the legend
  const series = [...new Set(points.map((p) => p.series ?? 'all'))];
  series.forEach((name, s) => {
    const colour = PALETTE[s % PALETTE.length];
    const own = points.map((p, i) => ({ p, i })).filter(({ p }) => (p.series ?? 'all') === name);
    if (own.length > 1)
      out.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="1.2" points="${own.map(({ p, i }) => `${x(i)},${y(p.ratio)}`).join(' ')}"/>`,
      );
    for (const { p, i } of own) {
      const figures = [
        p.commit && `commit ${String(p.commit).slice(0, 7)}`,
        typeof p.service === 'number' &&
          typeof p.floor === 'number' &&
          `${p.service} / ${p.floor} ${p.unit ?? ''}`.trim(),
        `ratio ${p.ratio}`,
      ].filter(Boolean);
      out.push(
        `<circle cx="${x(i)}" cy="${y(p.ratio)}" r="3" fill="${colour}"><title>${escapeXml(`${[p.date, p.time].filter(Boolean).join(' ')} ${name}: ${figures.join(', ')}`)}</title></circle>`,
      );
    }
    const ly = MARGIN.top + 6 + s * 15;
    out.push(
      `<rect x="${right + LEGEND_OFFSET}" y="${ly - 8}" width="10" height="10" fill="${colour}"/>`,
      `<text x="${right + LEGEND_OFFSET + 16}" y="${ly + 1}">${escapeXml(`${name} (${own.length})`)}</text>`,
    );
  });
  // the ratio as the bench prints it: a speed's is better above its target, a latency's below
  const ceilings = points.some((p) => /^\s*</.test(String(p.target ?? '')));
  const note =
    `${points.length} figure${points.length === 1 ? '' : 's'} of ${slotCount} run${slotCount === 1 ? '' : 's'}, in date order` +
    (skipped > 0 ? `; ${skipped} without a ratio (no floor, or none recorded) not drawn` : '') +
    (ceilings ? '; lower is better (a target is a ceiling)' : '; higher is better');
  out.push(`<text x="${MARGIN.left}" y="${height - 8}" fill="#444444">${escapeXml(note)}</text>`, '</svg>');
  return `${out.join('\n')}\n`;
}

/** Writes <bench>.svg beside each <bench>.jsonl of `dir` that has a ratio to draw; returns the files written. */
function writeCharts(dir) {
  const written = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    const bench = file.slice(0, -'.jsonl'.length);
    const results = parseResults(readFileSync(join(dir, file), 'utf8'), file);
    if (plotted(results).length === 0) continue;
    const svg = join(dir, `${bench}.svg`);
    writeFileSync(svg, chartSvg(`${bench}: ratio to the floor, per run`, results));
    written.push(svg);
  }
  return written;
}

module.exports = { chartSvg, parseResults, plotted, slots, targetValue, writeCharts };

if (require.main === module) {
  const dir = resolve(process.argv[2] ?? join(__dirname, '..', 'bench', 'results'));
  for (const file of writeCharts(dir)) console.log(`wrote ${file}`);
}
