import { endpointFigures, latencyQuantile } from './attempt-figures';

const BOUNDS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];
/** counts with `n` latencies in bin `bin` and nothing elsewhere */
function only(bin: number, n: number): number[] {
  return BOUNDS.map(() => 0)
    .concat(0)
    .map((_, i) => (i === bin ? n : 0));
}

describe('latencyQuantile', () => {
  it('is null when nothing was counted', () => {
    expect(latencyQuantile(only(0, 0), BOUNDS, 0.5)).toBeNull();
    expect(latencyQuantile([], BOUNDS, 0.95)).toBeNull();
  });

  it('stays inside the bin that holds the quantile, interpolating linearly', () => {
    // 10 latencies in [100, 250): the median is half-way, p95 near the top
    expect(latencyQuantile(only(5, 10), BOUNDS, 0.5)).toBe(175);
    expect(latencyQuantile(only(5, 10), BOUNDS, 0.95)).toBe(243);
    // the first bin starts at 0
    expect(latencyQuantile(only(0, 4), BOUNDS, 0.5)).toBe(3);
  });

  it('walks the bins in order: the median and p95 of a spread fall in their own bins', () => {
    const counts = only(1, 0);
    counts[1] = 50; // [5, 10)
    counts[6] = 45; // [250, 500)
    counts[9] = 5; // [2500, 5000)
    expect(latencyQuantile(counts, BOUNDS, 0.5)).toBe(10); // the 50th of 100 is the top of [5, 10)
    const p95 = latencyQuantile(counts, BOUNDS, 0.95)!;
    expect(p95).toBeGreaterThanOrEqual(250);
    expect(p95).toBeLessThanOrEqual(500);
    expect(latencyQuantile(counts, BOUNDS, 0.99)).toBeGreaterThanOrEqual(2500);
  });

  it('answers the lower bound of the open last bin (no upper bound to interpolate to)', () => {
    expect(latencyQuantile(only(11, 3), BOUNDS, 0.95)).toBe(10000);
  });
});

describe('endpointFigures', () => {
  const currentHour = new Date('2026-11-26T18:00:00Z');
  const hour = (hoursAgo: number) => new Date(currentHour.getTime() - hoursAgo * 3_600_000);

  it('has one bucket per hour of the period ending with the current one, empty hours as zeros', () => {
    const figures = endpointFigures('24h', {
      currentHour,
      bounds: BOUNDS,
      buckets: [
        { start: hour(23), attempts: 2, succeeded: 1, failed: 1, latencyCounts: only(2, 2) },
        { start: hour(0), attempts: 4, succeeded: 4, failed: 0, latencyCounts: only(4, 4) },
      ],
    });
    expect(figures.bucketSeconds).toBe(3600);
    expect(figures.buckets).toHaveLength(24);
    expect(figures.buckets[0]).toMatchObject({ start: hour(23), attempts: 2, successRate: 0.5 });
    expect(figures.buckets[23]).toMatchObject({ start: hour(0), attempts: 4, successRate: 1 });
    expect(figures.buckets[1]).toEqual({
      start: hour(22),
      attempts: 0,
      succeeded: 0,
      failed: 0,
      successRate: null,
      p50Ms: null,
      p95Ms: null,
    });
    // the totals add the bins up before estimating: 2 in [10, 25), 4 in [50, 100)
    expect(figures.totals).toMatchObject({ attempts: 6, succeeded: 5, failed: 1, successRate: 0.8333 });
    expect(figures.totals.p50Ms).toBeGreaterThanOrEqual(50);
    expect(figures.totals.p50Ms).toBeLessThan(100);
  });

  it('covers 168 hours for 7d', () => {
    const figures = endpointFigures('7d', { currentHour, bounds: BOUNDS, buckets: [] });
    expect(figures.buckets).toHaveLength(168);
    expect(figures.buckets[0].start).toEqual(hour(167));
    expect(figures.totals.attempts).toBe(0);
  });
});
