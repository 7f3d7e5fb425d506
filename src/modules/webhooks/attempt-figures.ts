import type { AttemptStatsBucket, AttemptStatsHours } from './core/attempt-stats.store';

/** The periods the figures route answers for, in hours (docs/api.md#webhooks, "Figures"). */
export const FIGURE_PERIOD_HOURS = { '24h': 24, '7d': 168 } as const;
export type FigurePeriod = keyof typeof FIGURE_PERIOD_HOURS;
export const FIGURE_PERIODS = Object.keys(FIGURE_PERIOD_HOURS) as FigurePeriod[];

/** Every bucket of the answer is one stored hour. */
export const FIGURE_BUCKET_SECONDS = 3600;

/** The figures of one bucket or of the whole period. */
export interface Figures {
  attempts: number;
  succeeded: number;
  failed: number;
  /** succeeded / attempts; null without attempts */
  successRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface EndpointFigures {
  period: FigurePeriod;
  bucketSeconds: number;
  buckets: (Figures & { start: Date })[];
  totals: Figures;
}

/**
 * The `q` quantile (0–1) of the latencies counted in `counts` (one count per bin; bin 0 is [0,
 * bounds[0]), bin k is [bounds[k-1], bounds[k]), the last is [last bound, ∞)), in whole ms; null when
 * nothing was counted. Interpolated linearly inside the bin holding the quantile, so it is exact to
 * that bin only; in the open last bin it is the bin's lower bound.
 */
export function latencyQuantile(
  counts: readonly number[],
  bounds: readonly number[],
  q: number,
): number | null {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let bin = 0; bin < counts.length; bin++) {
    const n = counts[bin];
    if (n > 0 && below + n >= rank) {
      const low = bin === 0 ? 0 : bounds[bin - 1];
      if (bin >= bounds.length) return low;
      return Math.round(low + ((rank - below) / n) * (bounds[bin] - low));
    }
    below += n;
  }
  return bounds[bounds.length - 1];
}

function figuresOf(
  attempts: number,
  succeeded: number,
  failed: number,
  latencyCounts: readonly number[],
  bounds: readonly number[],
): Figures {
  return {
    attempts,
    succeeded,
    failed,
    successRate: attempts === 0 ? null : Math.round((succeeded / attempts) * 10_000) / 10_000,
    p50Ms: latencyQuantile(latencyCounts, bounds, 0.5),
    p95Ms: latencyQuantile(latencyCounts, bounds, 0.95),
  };
}

/**
 * The answer of the figures route from the stored hours: one bucket per hour of the period, oldest
 * first, ending with the current hour; an hour without attempts is there with zeros (a chart gets a
 * point per bucket). The totals add the hours' counts and bins up before estimating.
 */
export function endpointFigures(period: FigurePeriod, stored: AttemptStatsHours): EndpointFigures {
  const hours = FIGURE_PERIOD_HOURS[period];
  const bins = stored.bounds.length + 1;
  const byStart = new Map<number, AttemptStatsBucket>(stored.buckets.map((b) => [b.start.getTime(), b]));
  const total = { attempts: 0, succeeded: 0, failed: 0, latencyCounts: new Array<number>(bins).fill(0) };
  const buckets = Array.from({ length: hours }, (_, i) => {
    const start = new Date(stored.currentHour.getTime() - (hours - 1 - i) * FIGURE_BUCKET_SECONDS * 1000);
    const hour = byStart.get(start.getTime());
    if (!hour) return { start, ...figuresOf(0, 0, 0, [], stored.bounds) };
    total.attempts += hour.attempts;
    total.succeeded += hour.succeeded;
    total.failed += hour.failed;
    hour.latencyCounts.forEach((n, bin) => (total.latencyCounts[bin] += n));
    return {
      start,
      ...figuresOf(hour.attempts, hour.succeeded, hour.failed, hour.latencyCounts, stored.bounds),
    };
  });
  return {
    period,
    bucketSeconds: FIGURE_BUCKET_SECONDS,
    buckets,
    totals: figuresOf(total.attempts, total.succeeded, total.failed, total.latencyCounts, stored.bounds),
  };
}
