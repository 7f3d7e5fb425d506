import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { createTestApp, TestApp } from '../utils/app';
import { memberWithToken, unique } from '../utils/factories';
import { call } from '../utils/http';
import { createIsolatedDatabase, IsolatedDatabase } from '../utils/isolated-database';
import { Receiver, startReceiver } from '../utils/webhook-receiver';
import { DELIVERY_TEST_ENV, waitFor } from '../utils/worker';
import { ChildWorker, killStillRunning, sparePort, spawnCompiled } from '../resilience/processes';
import { useDeliveryStack } from '../utils/delivery-stack';

/**
 * OpenTelemetry (docs/operations.md#tracing): one trace from the API request that raised an event to
 * each delivery attempt of it, exported over OTLP/HTTP to a collector this test serves itself; and
 * with no endpoint configured, none of the SDK loaded and nothing sent.
 */

/** A span as OTLP/HTTP JSON carries it, attributes flattened. */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  status?: { code?: number; message?: string };
  attributes: Record<string, string | number | boolean>;
  service: string;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: {
      spans: (Omit<ExportedSpan, 'attributes' | 'service'> & { attributes?: OtlpAttribute[] })[];
    }[];
  }[];
}

function flatten(attributes: OtlpAttribute[] = []): Record<string, string | number | boolean> {
  return Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
        value.boolValue ??
        value.doubleValue!,
    ]),
  );
}

/** An OTLP/HTTP trace receiver (POST /v1/traces, JSON) on port 0 that keeps what it got. */
async function startCollector() {
  const bodies: string[] = [];
  const spans: ExportedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      bodies.push(text);
      for (const r of (JSON.parse(text) as OtlpExport).resourceSpans) {
        const service = String(flatten(r.resource.attributes)['service.name']);
        for (const scope of r.scopeSpans)
          for (const span of scope.spans)
            spans.push({ ...span, attributes: flatten(span.attributes), service });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    /** every export as the service sent it */
    text: () => bodies.join('\n'),
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

const root = resolve(__dirname, '..', '..');

/**
 * The @opentelemetry/ modules a fresh node process holds once it has loaded both processes' module graphs
 * (AppModule, WorkerModule, the bootstrap files) and called startTracing with `env`, from dist/.
 */
function openTelemetryModulesLoaded(env: Record<string, string>): {
  loaded: string[];
  apiLoadedBy: string | null;
} {
  const dist = join(root, 'dist');
  if (!existsSync(join(dist, 'main.js'))) throw new Error('dist/ is missing: npm test builds it first');
  const script = `
    const { startTracing } = require('./dist/tracing/start-tracing');
    const started = startTracing('api', ${JSON.stringify(env)});
    require('./dist/app.module'); require('./dist/worker.module'); require('./dist/bootstrap/http-app');
    require('./dist/modules/webhooks/worker/delivery.processor');
    const loaded = Object.keys(require.cache).filter((k) => k.includes('/@opentelemetry/'));
    const api = require.cache[require.resolve('@opentelemetry/api')];
    process.stdout.write(JSON.stringify({ started, loaded, apiLoadedBy: api && api.parent ? api.parent.id : null }));`;
  const out = spawnSync(process.execPath, ['-e', script], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  if (out.status !== 0) throw new Error(out.stderr);
  const result = JSON.parse(out.stdout) as { started: boolean; loaded: string[]; apiLoadedBy: string | null };
  expect(result.started).toBe(false);
  return result;
}

/** The packages among `paths` (node_modules/@opentelemetry/<name>/…). */
function packagesOf(paths: string[]): string[] {
  return [...new Set(paths.map((p) => /\/@opentelemetry\/([^/]+)\//.exec(p)![1]))].sort();
}

describe('tracing off (no OTLP endpoint)', () => {
  it.each([
    ['no endpoint', {}],
    [
      'an endpoint and OTEL_SDK_DISABLED=true',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_SDK_DISABLED: 'true' },
    ],
  ])('loads no OpenTelemetry module of its own with %s', (_label, env) => {
    const { loaded, apiLoadedBy } = openTelemetryModulesLoaded(env);
    // prom-client's default metrics load @opentelemetry/api (for exemplars) whatever tracing does;
    // the SDK, the exporter and their dependencies are never loaded
    expect(packagesOf(loaded)).toEqual(['api']);
    expect(apiLoadedBy).toMatch(/\/prom-client\//);
  });

  describe('a delivery', () => {
    const stack = useDeliveryStack();

    it('stores no trace context and sends no traceparent header', async () => {
      const { community, token } = await memberWithToken(stack.api.app, { plan: 'PRO' });
      const path = `/${unique('untraced')}`;
      const created = await call(stack.api.app, 'POST', `/api/communities/${community.id}/webhooks`, {
        token,
        body: { url: stack.receiver.url + path, events: ['tweet.created'] },
      });
      expect(created.status).toBe(201);
      const tweet = await call(stack.api.app, 'POST', '/api/sdk/tweets', {
        token,
        body: { content: 'untraced' },
      });
      expect(tweet.status).toBe(201);
      await waitFor('the delivery', () => stack.receiver.at(path).length === 1);
      expect(stack.receiver.at(path)[0].headers).not.toHaveProperty('traceparent');
      const outbox = await stack.api.prisma.outboxEvent.findFirstOrThrow({
        where: { communityId: community.id, eventType: 'tweet.created' },
      });
      expect(outbox.traceparent).toBeNull();
    });
  });
});

describe('tracing on (the API and a worker started from dist/ with an OTLP endpoint)', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let db: IsolatedDatabase;
  let factories: TestApp;
  let apiProcess: ChildWorker;
  let workerProcess: ChildWorker;
  let apiUrl: string;
  let receiver: Receiver;

  beforeAll(async () => {
    collector = await startCollector();
    // a database and queue of their own: the run's shared workers (tracing off) would relay and send
    // the events otherwise
    db = await createIsolatedDatabase('tracing');
    const env = { ...DELIVERY_TEST_ENV, DATABASE_URL: db.url, REDIS_KEY_PREFIX: db.redisKeyPrefix };
    // OpenTelemetry's exporter loads node:http with import(), which jest's module sandbox cannot run:
    // the traced processes are real ones, as in production; this in-process API (tracing off) only
    // makes the members and tokens
    factories = await createTestApp(env);
    receiver = await startReceiver();
    process.env.WORKER_DIST ??= join(root, 'dist');
    const port = await sparePort();
    const traced = {
      ...env,
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      // the standard variables, read by the SDK; a short batch delay so that spans arrive at once
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    };
    apiProcess = spawnCompiled('main.js', { ...traced, PORT: String(port), HOST: '127.0.0.1' });
    workerProcess = spawnCompiled('worker.js', traced);
    apiUrl = `http://127.0.0.1:${port}`;
    await Promise.all([apiProcess.ready, workerProcess.ready]);
  }, 60_000);

  afterAll(async () => {
    for (const child of [apiProcess, workerProcess].filter(Boolean)) {
      child.process.kill('SIGTERM');
      await child.exited;
    }
    killStillRunning([apiProcess, workerProcess].filter(Boolean));
    await factories?.close();
    await receiver?.close();
    await collector?.close();
    await db?.drop();
  }, 60_000);

  /** A request to the traced API, over HTTP. */
  async function request(method: string, path: string, token: string, body?: unknown, headers = {}) {
    const res = await fetch(apiUrl + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  }

  it('makes one trace of a write, the relay of its event and every attempt, and sends each its context', async () => {
    const { community, token } = await memberWithToken(factories.app, { plan: 'PRO' });
    const path = `/${unique('traced')}`;
    const headerValue = unique('custom-header-value');
    let calls = 0;
    receiver.respond(path, () => ({ status: ++calls === 1 ? 500 : 200 }));
    const created = await request('POST', `/api/communities/${community.id}/webhooks`, token, {
      url: receiver.url + path,
      events: ['tweet.created'],
      headers: { 'x-receiver-token': headerValue },
    });
    expect(created.status).toBe(201);
    const { id: endpointId, secret } = created.body.data as { id: string; secret: string };
    const content = unique('a tweet body nobody may export');
    const requestId = unique('req');
    const tweet = await request('POST', '/api/sdk/tweets', token, { content }, { 'x-request-id': requestId });
    expect(tweet.status).toBe(201);

    await waitFor('the retry to succeed', () => receiver.at(path).length === 2);
    const outbox = await factories.prisma.outboxEvent.findFirstOrThrow({
      where: { communityId: community.id, eventType: 'tweet.created' },
    });
    const messageId = outbox.messageId;
    const attemptsOf = () =>
      collector.spans.filter(
        (s) => s.name === 'webhook.attempt' && s.attributes['webhook.message_id'] === messageId,
      );
    await waitFor('the spans to be exported', () => attemptsOf().length === 2);

    // the request's span: a trace of its own, its context stored with the event
    const requestSpan = collector.spans.find(
      (s) => s.name === 'POST /api/sdk/tweets' && s.attributes['app.request_id'] === requestId,
    )!;
    expect(requestSpan).toBeDefined();
    expect(requestSpan.parentSpanId ?? '').toBe('');
    expect(requestSpan).toMatchObject({ kind: 2, service: 'community-platform-api' }); // SERVER
    expect(requestSpan.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/api/sdk/tweets',
      'http.response.status_code': 201,
    });
    const { traceId } = requestSpan;
    expect(outbox.traceparent).toBe(`00-${traceId}-${requestSpan.spanId}-01`);

    // the relay of the event, in the worker, a child of the request
    const relay = collector.spans.filter(
      (s) => s.name === 'webhook.relay' && s.attributes['webhook.message_id'] === messageId,
    );
    expect(relay).toHaveLength(1);
    expect(relay[0]).toMatchObject({
      traceId,
      parentSpanId: requestSpan.spanId,
      service: 'community-platform-worker',
    });
    expect(relay[0].attributes).toMatchObject({
      'webhook.event_type': 'tweet.created',
      'webhook.endpoints': 1,
    });

    // each attempt a child of the request too (the attempt rows carry its context), the retry included
    const [first, second] = attemptsOf().sort(
      (a, b) => Number(a.attributes['webhook.attempt']) - Number(b.attributes['webhook.attempt']),
    );
    for (const attempt of [first, second]) {
      expect(attempt).toMatchObject({ traceId, parentSpanId: requestSpan.spanId, kind: 3 }); // CLIENT
      expect(attempt.attributes).toMatchObject({
        'webhook.endpoint_id': endpointId,
        'webhook.event_type': 'tweet.created',
      });
      expect(typeof attempt.attributes['webhook.duration_ms']).toBe('number');
    }
    expect(first.attributes).toMatchObject({
      'webhook.attempt': 1,
      'webhook.outcome': 'FAILED',
      'http.response.status_code': 500,
      'webhook.next_attempt': 2,
    });
    expect(first.status).toMatchObject({ code: 2, message: 'target answered HTTP 500' }); // ERROR
    expect(second.attributes).toMatchObject({
      'webhook.attempt': 2,
      'webhook.outcome': 'SUCCESS',
      'http.response.status_code': 200,
    });
    expect(second.status?.code ?? 0).not.toBe(2);

    // the receiver got each attempt's own context: it can continue the trace
    expect(receiver.at(path).map((r) => r.headers.traceparent)).toEqual([
      `00-${traceId}-${first.spanId}-01`,
      `00-${traceId}-${second.spanId}-01`,
    ]);
    const attemptRows = await factories.prisma.webhookDelivery.findMany({ where: { endpointId, messageId } });
    expect(attemptRows.map((r) => r.traceparent)).toEqual([outbox.traceparent, outbox.traceparent]);

    // log lines name the trace: the request's completion line, the failed attempt's line
    await waitFor('the log lines', () => apiProcess.output().includes(requestSpan.spanId));
    expect(apiProcess.output()).toContain(traceId);
    await waitFor('the attempt log line', () => workerProcess.output().includes(first.spanId));
    expect(workerProcess.output()).toContain(traceId);

    // nothing the deliveries carried is exported: no secret, no header value, no body
    const exported = collector.text();
    expect(exported).not.toContain(secret);
    expect(exported).not.toContain(secret.replace(/^whsec_/, ''));
    expect(exported).not.toContain(headerValue);
    expect(exported).not.toContain(content);
  });

  it("keeps a resend in the event's trace, on a FIFO endpoint too (its head is claimed by another statement)", async () => {
    const { community, token } = await memberWithToken(factories.app, { plan: 'PRO' });
    const path = `/${unique('fifo')}`;
    const created = await request('POST', `/api/communities/${community.id}/webhooks`, token, {
      url: receiver.url + path,
      events: ['tweet.created'],
      ordering: 'fifo',
    });
    expect(created.status).toBe(201);
    const endpointId = created.body.data.id as string;
    const requestId = unique('req');
    const tweet = await request(
      'POST',
      '/api/sdk/tweets',
      token,
      { content: 'fifo' },
      { 'x-request-id': requestId },
    );
    expect(tweet.status).toBe(201);
    await waitFor('the delivery', () => receiver.at(path).length === 1);
    const first = await factories.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId } });
    const resent = await request(
      'POST',
      `/api/communities/${community.id}/webhooks/${endpointId}/deliveries/${first.id}/resend`,
      token,
    );
    expect(resent.status).toBe(202);
    await waitFor('the resend', () => receiver.at(path).length === 2);

    const attempts = () =>
      collector.spans
        .filter((s) => s.name === 'webhook.attempt' && s.attributes['webhook.message_id'] === first.messageId)
        .sort((a, b) => Number(a.attributes['webhook.attempt']) - Number(b.attributes['webhook.attempt']));
    await waitFor('both attempt spans', () => attempts().length === 2);
    const requestSpan = collector.spans.find((s) => s.attributes['app.request_id'] === requestId)!;
    expect(first.traceparent).toBe(`00-${requestSpan.traceId}-${requestSpan.spanId}-01`);
    // the resend is an attempt of the event: a further child of the request that raised it
    expect(attempts().map((a) => [a.attributes['webhook.attempt'], a.traceId, a.parentSpanId])).toEqual([
      [1, requestSpan.traceId, requestSpan.spanId],
      [2, requestSpan.traceId, requestSpan.spanId],
    ]);
    expect(receiver.at(path).map((r) => r.headers.traceparent)).toEqual(
      attempts().map((a) => `00-${a.traceId}-${a.spanId}-01`),
    );
  });

  it('leaves reads untraced', async () => {
    const { token } = await memberWithToken(factories.app, { plan: 'PRO' });
    const read = unique('read');
    expect((await request('GET', '/api/sdk/tweets', token, undefined, { 'x-request-id': read })).status).toBe(
      200,
    );
    const write = unique('write');
    const created = await request(
      'POST',
      '/api/sdk/tweets',
      token,
      { content: 'x' },
      { 'x-request-id': write },
    );
    expect(created.status).toBe(201);
    // spans are exported in the order they end: once the write's is in, a read's would be too
    await waitFor('the write span', () =>
      collector.spans.some((s) => s.attributes['app.request_id'] === write),
    );
    expect(collector.spans.filter((s) => s.attributes['app.request_id'] === read)).toEqual([]);
  });
});
