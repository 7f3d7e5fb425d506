import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Test } from '@nestjs/testing';
import { load } from 'js-yaml';
import { AppModule } from '../../src/app.module';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { MetricsRegistry } from '../../src/metrics/metrics-registry';
import { WorkerModule } from '../../src/worker.module';

const root = resolve(__dirname, '..', '..');
const read = (path: string) => readFileSync(resolve(root, path), 'utf8');

/** What Prometheus itself adds to every target. */
const PROMETHEUS_SERIES = ['up'];
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: identifiers left once strings, label matchers,
 * range selectors, grouping clauses and Grafana variables are removed, minus function names
 * (an identifier followed by '(') and operators.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names = [...bare.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)]
    .filter(([, name, call]) => !call && !KEYWORDS.has(name.toLowerCase()))
    .map(([, name]) => name);
  return [...new Set(names)];
}

/** Every series name a registry exposes (a histogram as its _bucket, _sum and _count). */
function seriesOf(registry: MetricsRegistry): string[] {
  return registry.registry.getMetricsAsArray().flatMap((metric) => {
    const { name, type } = metric as unknown as { name: string; type: string };
    if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
    if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
    return [name];
  });
}

/** The series a process exports, read from its real module graph (compiled, never started). */
async function exportedBy(module: typeof AppModule | typeof WorkerModule): Promise<string[]> {
  const moduleRef = await Test.createTestingModule({ imports: [module] })
    .overrideProvider(AppConfig)
    .useValue(loadConfig(process.env).config)
    .compile();
  moduleRef.useLogger(false);
  try {
    return seriesOf(moduleRef.get(MetricsRegistry));
  } finally {
    await moduleRef.close();
  }
}

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

describe('ops/: alert rules, dashboard and scrape configuration', () => {
  let api: string[];
  let worker: string[];
  let defaults: string[];
  let exported: Set<string>;
  const rules = (load(read('ops/prometheus/alerts.yml')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
    (g) => g.rules,
  );
  const dashboard = JSON.parse(read('ops/grafana/community-platform.json')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  const panelExprs = dashboard.panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })),
  );

  beforeAll(async () => {
    api = await exportedBy(AppModule);
    worker = await exportedBy(WorkerModule);
    defaults = seriesOf(new MetricsRegistry());
    exported = new Set([...api, ...worker, ...PROMETHEUS_SERIES]);
  });

  it('reads metric names out of PromQL', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le, route) (rate(a_bucket{x="y z", le!="1"}[$__rate_interval]))) / ' +
          'on(job) group_left b_total and absent(up{job="w"} == 1) > bool 0.5',
      ).sort(),
    ).toEqual(['a_bucket', 'b_total', 'up']);
  });

  it('has the series the service promises, in the process that owns them', () => {
    for (const name of ['http_request_duration_seconds_bucket', 'http_rate_limit_refusals_total'])
      expect(api).toContain(name);
    for (const name of [
      'webhook_delivery_attempts_total',
      'webhook_delivery_latency_seconds_bucket',
      'webhook_queue_jobs',
      'outbox_lag_seconds',
      'webhook_deliveries_overdue',
      'webhook_endpoints_disabled',
      'webhook_fifo_endpoints_blocked',
      'webhook_fifo_deliveries_waiting',
      'webhook_broker_connections',
    ])
      expect(worker).toContain(name);
    expect(api).toContain('process_cpu_seconds_total');
    expect(worker).toContain('nodejs_eventloop_lag_p99_seconds');
  });

  it('has the outbox-lag, failure-ratio, worker-absent and 5xx alerts, each with a severity, a summary and a runbook section that exists', () => {
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'OutboxLagHigh',
        'WebhookDeliveryFailureRatioHigh',
        'WorkerMetricsAbsent',
        'ApiServerErrorRatioHigh',
      ]),
    );
    const anchors = new Set(
      [...read('docs/operations.md').matchAll(/^#+ (.+)$/gm)].map(([, heading]) =>
        heading
          .trim()
          .toLowerCase()
          .replace(/[^\w\- ]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    for (const rule of rules) {
      expect({ alert: rule.alert, severity: rule.labels?.severity }).toEqual({
        alert: rule.alert,
        severity: expect.stringMatching(/^(critical|warning)$/),
      });
      expect(rule.annotations?.summary).toBeTruthy();
      const anchor = /^docs\/operations\.md#(.+)$/.exec(rule.annotations?.runbook ?? '')?.[1];
      expect({ alert: rule.alert, anchor, found: anchor !== undefined && anchors.has(anchor) }).toEqual({
        alert: rule.alert,
        anchor,
        found: true,
      });
    }
  });

  it('alerts on nothing but series the service exports', () => {
    for (const rule of rules) {
      const names = metricNames(rule.expr);
      expect(names.length).toBeGreaterThan(0);
      expect({ alert: rule.alert, unknown: names.filter((n) => !exported.has(n)) }).toEqual({
        alert: rule.alert,
        unknown: [],
      });
    }
  });

  it('charts nothing but series the service exports, and every series of its own', () => {
    expect(panelExprs.length).toBeGreaterThan(0);
    const charted = new Set<string>();
    for (const { panel, expr } of panelExprs) {
      const names = metricNames(expr);
      names.forEach((n) => charted.add(n));
      expect({ panel, unknown: names.filter((n) => !exported.has(n)) }).toEqual({ panel, unknown: [] });
    }
    // every series of the service's own (not Node's defaults) has a panel; a histogram through _bucket or _count
    const ours = [...new Set([...api, ...worker])].filter((n) => !defaults.includes(n));
    const own = ours.filter((n) => !/_(sum|count|bucket)$/.test(n));
    const histograms = ours.filter((n) => n.endsWith('_bucket')).map((n) => n.slice(0, -'_bucket'.length));
    const uncharted = [
      ...own.filter((n) => !charted.has(n)),
      ...histograms.filter((h) => !charted.has(`${h}_bucket`) && !charted.has(`${h}_count`)),
    ];
    expect(uncharted).toEqual([]);
  });

  it('scrapes the API and the worker on their default metrics ports, under the job names the alerts use', () => {
    const config = load(read('ops/prometheus/prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: { job_name: string; dns_sd_configs: { names: string[]; port: number }[] }[];
    };
    const defaultsOf = loadConfig({}).config;
    const jobs = Object.fromEntries(config.scrape_configs.map((s) => [s.job_name, s.dns_sd_configs[0]]));
    expect(jobs['community-platform-api']).toEqual(
      expect.objectContaining({ names: ['api'], port: defaultsOf.metricsPort('api') }),
    );
    expect(jobs['community-platform-worker']).toEqual(
      expect.objectContaining({ names: ['worker'], port: defaultsOf.metricsPort('worker') }),
    );
    expect(config.rule_files).toEqual(['alerts.yml']);
    for (const rule of rules)
      for (const [, job] of rule.expr.matchAll(/job="([^"]+)"/g)) expect(Object.keys(jobs)).toContain(job);
  });
});
