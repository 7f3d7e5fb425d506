import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  chartSvg,
  parseResults,
  plotted,
  slots,
  targetValue,
  type BenchResult,
} from '../../scripts/bench-chart';

const RESULTS = join(__dirname, '..', '..', 'bench', 'results');
const count = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length;

describe('bench/results charts (scripts/bench-chart.js)', () => {
  const results: BenchResult[] = [
    {
      date: '2026-11-24',
      series: 'ten endpoints',
      service: 1729,
      floor: 2662,
      ratio: 0.65,
      target: '>= 0.85',
    },
    { date: '2026-11-26', series: 'one endpoint', ratio: 0.43, target: '>= 0.7' },
    { date: '2026-11-24', time: '17:49', series: 'one endpoint', ratio: 0.25 },
    { date: '2026-12-02', series: 'ten endpoints', service: 1912, floor: 2201, ratio: 0.87 },
    { date: '2026-12-02', series: 'ten endpoints', service: 1755, floor: 1933, ratio: 0.91 },
  ];

  it('draws a point per result line, and a line through each series', () => {
    const svg = chartSvg('delivery-throughput', results);
    expect(count(svg, /<circle /g)).toBe(results.length);
    expect(count(svg, /<polyline /g)).toBe(2);
    expect(svg).toContain('ten endpoints (3)');
    expect(svg).toContain('one endpoint (2)');
    expect(svg).toContain('target 0.85');
    expect(svg).toContain('target 0.7');
  });

  it('does not draw a run without a ratio (no floor in it), and says how many were left out', () => {
    const withoutFloor = [...results, { date: '2026-12-03', series: 'ten endpoints', service: 1800 }];
    const svg = chartSvg('delivery-throughput', withoutFloor);
    expect(count(svg, /<circle /g)).toBe(results.length);
    expect(svg).toContain('1 without a ratio');
  });

  it('orders the runs by date and time, whatever the order of the file', () => {
    expect(plotted(results).map((r) => r.ratio)).toEqual([0.65, 0.25, 0.43, 0.87, 0.91]);
  });

  it("puts the figures of one invocation at one place on the x axis, a series' repeated runs at the next", () => {
    const run = { date: '2026-12-02', time: '03:15–04:55', commit: 'ba7c271' };
    const routes = ['tweets (Bearer)', 'members (X-Api-Key)', 'me (Bearer)'].map((series, i) => ({
      ...run,
      series,
      ratio: 1 + i / 10,
    }));
    const again = { ...run, series: 'tweets (Bearer)', ratio: 1.2 };
    expect(slots([...routes, again])).toEqual([0, 0, 0, 1]);
    const svg = chartSvg('read-routes', [...routes, again]);
    expect(count(svg, /<circle /g)).toBe(4);
    expect(svg).toContain('4 figures of 2 runs');
  });

  it('escapes what a series name holds', () => {
    const svg = chartSvg('a <bench> & co', [
      { date: '2026-12-02', series: 'tweets <"keyed"> & co', ratio: 1 },
    ]);
    expect(svg).toContain('tweets &lt;&quot;keyed&quot;&gt; &amp; co');
    expect(svg).not.toContain('<bench>');
  });

  it('reads a target as a number, and names the line of a results file that is not JSON', () => {
    expect(targetValue('>= 0.7')).toBe(0.7);
    expect(targetValue('<= 2')).toBe(2);
    expect(targetValue('p99 < 50 ms')).toBeUndefined();
    expect(parseResults('{"ratio":1}\n\n{"ratio":2}\n')).toHaveLength(2);
    expect(() => parseResults('{"ratio":1}\nnot json\n', 'writes.jsonl')).toThrow(/^writes\.jsonl:2: /);
  });

  it('has a committed chart for every results file with a ratio, drawn from its lines as they are now', () => {
    const files = readdirSync(RESULTS).filter((f) => f.endsWith('.jsonl'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bench = file.replace(/\.jsonl$/, '');
      const lines = parseResults(readFileSync(join(RESULTS, file), 'utf8'), file);
      if (plotted(lines).length === 0) continue;
      const committed = readFileSync(join(RESULTS, `${bench}.svg`), 'utf8');
      // `npm run bench:chart` after recording: the chart in the repository is the one its lines draw
      expect(committed).toBe(chartSvg(`${bench}: ratio to the floor, per run`, lines));
      expect(count(committed, /<circle /g)).toBe(plotted(lines).length);
    }
  });
});
