import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { ApiError, call, client, errorText, type Session } from '../api/client';
import type { FigurePeriod, Figures as FiguresAnswer, Webhook } from '../api/types';
import { href, paths } from '../app/routes';
import { useLoad } from '../shared/use-load';
import { Alert } from '../shared/ui';
import './endpoint-figures.css';

const PERIODS: { period: FigurePeriod; label: string; words: string }[] = [
  { period: '24h', label: '24 h', words: 'the last 24 hours' },
  { period: '7d', label: '7 d', words: 'the last 7 days' },
];
const CHART_HEIGHT = 180;
const GREEN = '#1b7f3b';
const RED = '#b3261e';
const BLUE = '#0b4f9c';
const AMBER = '#9a5b00';

function percent(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 1000) / 10} %`;
}

function ms(value: number | null): string {
  return value === null ? '—' : `≈ ${value} ms`;
}

/**
 * One uPlot chart, as wide as its box: drawn on a canvas (styles set through the CSSOM, which the
 * portal's CSP allows), redrawn at the box's width when it changes (a phone turned, a window resized).
 * The canvas says nothing to a screen reader: `summary` does, as the box's label.
 */
function Chart({
  title,
  summary,
  options,
  data,
}: {
  title: string;
  summary: string;
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current!;
    const plot = new uPlot({ ...options, width: el.clientWidth, height: CHART_HEIGHT }, data, el);
    const resized = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: CHART_HEIGHT }));
    resized.observe(el);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [options, data]);
  return (
    <figure class="chart card">
      <figcaption>{title}</figcaption>
      <div ref={box} class="chart-box" role="img" aria-label={summary} />
    </figure>
  );
}

/** The three charts' options and data for one answer (x: each hour's start, in seconds). */
function chartsOf(figures: FiguresAnswer) {
  const hours = figures.buckets.map((b) => Date.parse(b.start) / 1000);
  const failed = figures.buckets.map((b) => b.failed);
  const bars = uPlot.paths.bars!({ size: [0.7, 40, 2] });
  const xAxis: uPlot.Axis = {};
  // whole attempts only on the count axis
  const counts: uPlot.Axis = {
    label: 'attempts',
    incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 1e5, 1e6],
  };
  // an hour with figures between empty ones has no line to draw: its point shows it
  const points = { show: true, size: 6 };
  return {
    attempts: {
      // stacked by hand: the whole bar is every attempt in red, the successes drawn over it in green
      options: {
        scales: {
          x: { time: true },
          y: { range: (_u: uPlot, _min: number, max: number) => [0, Math.max(1, Math.ceil(max * 1.1))] },
        },
        axes: [xAxis, counts],
        series: [
          {},
          {
            label: 'Failed',
            fill: RED,
            stroke: RED,
            paths: bars,
            points: { show: false },
            value: (_u, _v, _s, i) => (i === null ? '—' : String(failed[i])),
          },
          { label: 'Succeeded', fill: GREEN, stroke: GREEN, paths: bars, points: { show: false } },
        ],
      } satisfies Omit<uPlot.Options, 'width' | 'height'>,
      data: [
        hours,
        figures.buckets.map((b) => b.attempts),
        figures.buckets.map((b) => b.succeeded),
      ] as uPlot.AlignedData,
    },
    successRate: {
      options: {
        scales: { x: { time: true }, y: { range: [0, 105] } },
        axes: [xAxis, { label: '%' }],
        series: [
          {},
          {
            label: 'Success rate',
            stroke: GREEN,
            width: 2,
            points,
            value: (_u, v) => (v === null ? '—' : `${v} %`),
          },
        ],
      } satisfies Omit<uPlot.Options, 'width' | 'height'>,
      data: [
        hours,
        figures.buckets.map((b) => (b.successRate === null ? null : Math.round(b.successRate * 1000) / 10)),
      ] as uPlot.AlignedData,
    },
    latency: {
      options: {
        scales: {
          x: { time: true },
          y: { range: (_u: uPlot, _min: number, max: number) => [0, Math.max(10, max * 1.15)] },
        },
        axes: [xAxis, { label: 'ms' }],
        series: [
          {},
          {
            label: 'p50',
            stroke: BLUE,
            width: 2,
            points,
            value: (_u, v) => (v === null ? '—' : `≈ ${v} ms`),
          },
          {
            label: 'p95',
            stroke: AMBER,
            width: 2,
            dash: [6, 4],
            value: (_u, v) => (v === null ? '—' : `≈ ${v} ms`),
          },
        ],
      } satisfies Omit<uPlot.Options, 'width' | 'height'>,
      data: [
        hours,
        figures.buckets.map((b) => b.p50Ms),
        figures.buckets.map((b) => b.p95Ms),
      ] as uPlot.AlignedData,
    },
  };
}

/**
 * An endpoint's page of figures over time (GET …/stats): attempts, success rate and latency per hour
 * for the last 24 hours or 7 days, with the period's totals in a table.
 */
export function EndpointFigures({
  session,
  communityId,
  webhook,
}: {
  session: Session;
  communityId: string;
  webhook: Pick<Webhook, 'id' | 'url'>;
}) {
  const [period, setPeriod] = useState<FigurePeriod>('24h');
  const [figures, setFigures] = useState<FiguresAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    // a slower answer for the period left behind must not replace the one asked for last
    let current = true;
    setError(null);
    call(session, (headers) =>
      client.GET('/api/communities/{communityId}/webhooks/{webhookId}/stats', {
        params: { path: { communityId, webhookId: webhook.id }, query: { period } },
        headers,
      }),
    )
      .then((answer) => current && setFigures(answer))
      .catch((err) => current && setError(errorText(err)));
    return () => {
      current = false;
    };
  }, [session, communityId, webhook.id, period]);
  const charts = useMemo(() => (figures ? chartsOf(figures) : null), [figures]);
  const words = PERIODS.find((p) => p.period === (figures?.period ?? period))!.words;
  const totals = figures?.totals;
  return (
    <section aria-labelledby="figures-title" class="figures">
      <div class="row spread">
        <h2 id="figures-title" tabIndex={-1} ref={heading}>
          Figures of <span class="url">{webhook.url}</span>
        </h2>
        <a class="button" href={href(paths.endpoints)}>
          Back to endpoints
        </a>
      </div>
      <div class="row" role="group" aria-label="Period">
        {PERIODS.map((p) => (
          <button
            key={p.period}
            type="button"
            aria-pressed={period === p.period}
            onClick={() => setPeriod(p.period)}
          >
            {p.label}
          </button>
        ))}
      </div>
      <Alert error={error} />
      {!figures && !error && <p aria-live="polite">Loading figures…</p>}
      {totals && charts && (
        <>
          <h3 id="figures-totals-title">Totals for {words}</h3>
          <dl class="figure-totals" data-testid="figures-totals" aria-labelledby="figures-totals-title">
            {[
              ['attempts', 'Attempts', String(totals.attempts)],
              ['succeeded', 'Succeeded', String(totals.succeeded)],
              ['failed', 'Failed', String(totals.failed)],
              ['success-rate', 'Success rate', percent(totals.successRate)],
              ['p50', 'Latency p50', ms(totals.p50Ms)],
              ['p95', 'Latency p95', ms(totals.p95Ms)],
            ].map(([column, name, value]) => (
              <div key={column}>
                <dt>{name}</dt>
                <dd data-column={column}>{value}</dd>
              </div>
            ))}
          </dl>
          {totals.attempts === 0 && (
            <p>No attempts in {words}: the charts stay empty until the next delivery or test.</p>
          )}
          <p class="muted">
            One bucket per hour. Latencies are estimates: each attempt is counted in a fixed range (under 5
            ms, 5–10 ms, … 10 s and more), and a percentile is placed inside its range.
          </p>
          <Chart
            title="Attempts per hour"
            summary={`Attempts per hour over ${words}: ${totals.attempts} in all, ${totals.succeeded} succeeded, ${totals.failed} failed`}
            {...charts.attempts}
          />
          <Chart
            title="Success rate per hour"
            summary={`Success rate per hour over ${words}: ${percent(totals.successRate)} overall`}
            {...charts.successRate}
          />
          <Chart
            title="Latency per hour (p50 and p95)"
            summary={`Latency per hour over ${words}: p50 ${ms(totals.p50Ms)}, p95 ${ms(totals.p95Ms)} overall`}
            {...charts.latency}
          />
        </>
      )}
    </section>
  );
}

/** The figures page of the endpoint the address names (`/portal/endpoints/<id>/figures`). */
export function FiguresPage({
  session,
  communityId,
  webhookId,
}: {
  session: Session;
  communityId: string;
  webhookId: string;
}) {
  // the list is the one read of endpoints (the API has no read of one): the page needs the endpoint's URL
  const endpoint = useLoad(
    () =>
      call(session, (headers) =>
        client.GET('/api/communities/{communityId}/webhooks', { params: { path: { communityId } }, headers }),
      ).then((list) => {
        const found = list.items.find((w) => w.id === webhookId);
        if (!found) throw new ApiError('This endpoint no longer exists.', 404, 'NOT_FOUND');
        return found;
      }),
    [session, communityId, webhookId],
  );
  if (endpoint.value)
    return <EndpointFigures session={session} communityId={communityId} webhook={endpoint.value} />;
  return (
    <section class="figures">
      <Alert error={endpoint.error} />
      {!endpoint.error && <p aria-live="polite">Loading the endpoint…</p>}
      <a class="button" href={href(paths.endpoints)}>
        Back to endpoints
      </a>
    </section>
  );
}
