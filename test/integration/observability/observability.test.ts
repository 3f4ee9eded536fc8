/**
 * Observability (docs/operations.md), on real processes over loopback:
 *
 * - metrics: after real runs (passed, failed, cancelled, a deployment's with its webhook), the
 *   API's and a worker process's `/metrics` show the counters moved (runs started and finished by
 *   result, node durations by outcome, node executions written down, HTTP requests by route template
 *   and status, mock requests,
 *   webhook deliveries), the Temporal SDK's own metrics and the Node process metrics;
 * - traces: with OTEL_EXPORTER_OTLP_ENDPOINT set (an OTLP/HTTP receiver here that decodes the
 *   worker's protobuf export and the API's JSON one), one run is one connected trace from the
 *   caller's `traceparent` through the API's request span, the workflow start, the workflow, the
 *   activity to the HTTP client span, and the system under test received a `traceparent` of that
 *   trace; the traced history replays with the workflow bundle; with the variable unset, no
 *   `traceparent` is sent;
 * - health: `/healthz` answers 200 while the database (or Temporal) is unreachable, and `/readyz`
 *   503 problem+json naming the store and Temporal, on the API, the bundler and a worker process.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from '@temporalio/worker';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, waitForHttp, type AssayProcess } from '../../helpers/processes';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy';
import { temporalClient, testDataConverter } from '../../helpers/temporal';
import { startBundler, type BundlerHandle } from '../../../bin/processes';
import { createLogger } from '../../../src/logger';
import { workflowSource } from '../../../src/temporal/bundle';
import { workerTracing } from '../../../src/observability/tracing-temporal';
import { freePort } from '../../../src/net/free-port';

// The OTLP protobuf messages, as the exporter's own transformer generated them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const otlpRoot = require('@opentelemetry/otlp-transformer/build/src/generated/root') as {
  opentelemetry: {
    proto: {
      collector: {
        trace: {
          v1: {
            ExportTraceServiceRequest: {
              decode(bytes: Uint8Array): unknown;
              toObject(message: unknown, options: Record<string, unknown>): OtlpRequest;
            };
          };
        };
      };
    };
  };
};

interface OtlpRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value?: { stringValue?: string } }> };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: Array<{ key: string; value?: Record<string, unknown> }>;
      }>;
    }>;
  }>;
}

/** One span as the receiver got it: ids in hex. */
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

/** A tiny OTLP/HTTP trace receiver on 127.0.0.1 (protobuf or JSON bodies). */
async function startOtlpReceiver(): Promise<{
  url: string;
  spans: ReceivedSpan[];
  contentTypes: string[];
  paths: string[];
  close(): Promise<void>;
}> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const paths: string[] = [];
  const hex = (v: unknown) =>
    typeof v === 'string'
      ? /^[0-9a-f]*$/.test(v)
        ? v
        : Buffer.from(v, 'base64').toString('hex')
      : Buffer.from(v as Uint8Array).toString('hex');
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = String(req.headers['content-type'] ?? '');
      contentTypes.push(type);
      paths.push(req.url ?? '');
      const body = Buffer.concat(chunks);
      const Request = otlpRoot.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
      const message: OtlpRequest = type.includes('json')
        ? (JSON.parse(body.toString('utf8')) as OtlpRequest)
        : Request.toObject(Request.decode(body), { bytes: String, longs: String, defaults: false });
      for (const rs of message.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue ?? '';
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            const attributes = Object.fromEntries(
              (s.attributes ?? []).map((a) => [a.key, Object.values(a.value ?? {})[0]]),
            );
            spans.push({
              service,
              traceId: hex(s.traceId),
              spanId: hex(s.spanId),
              parentSpanId: s.parentSpanId ? hex(s.parentSpanId) : '',
              name: s.name,
              attributes,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : 'application/x-protobuf' });
      res.end(type.includes('json') ? '{}' : undefined);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    paths,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The system under test: records every request's headers; `/ok` 200, `/fail` 500, `/slow?ms=N` waits. */
async function startRecordingTarget(): Promise<{
  url: string;
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}> {
  const requests: Array<{ path: string; headers: http.IncomingHttpHeaders }> = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push({ path: url.pathname, headers: req.headers });
    const answer = (status: number) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status }));
    };
    if (url.pathname === '/slow') {
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          answer(200);
        },
        Number(url.searchParams.get('ms') ?? 1000),
      );
      timers.add(timer);
      return;
    }
    answer(url.pathname === '/fail' ? 500 : 200);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * The value of the sample `name{labels…}` in Prometheus text (labels given must match, others may
 * be there too); undefined when there is no such sample. With several matches, their sum.
 */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let found: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]),
    );
    if (Object.entries(labels).some(([k, v]) => have[k] !== v)) continue;
    found = (found ?? 0) + Number(m[4]);
  }
  return found;
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

const apiNode = (url: string, status = 200) => ({
  type: 'api',
  request: { method: 'GET', url },
  assertions: [{ target: 'response.status', operator: 'equals', expected: status }],
});

describe('observability: metrics', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Awaited<ReturnType<typeof startRecordingTarget>>;
  let worker: AssayProcess | undefined;
  let workerUrl: string;

  before(async () => {
    [app, target] = await Promise.all([startTestApp(), startRecordingTarget()]);
    const port = await freePort();
    worker = spawnAssay('worker', processEnv(app, { ASSAY_WORKER_HTTP_PORT: String(port), ASSAY_LOG_LEVEL: 'warn' }));
    workerUrl = `http://127.0.0.1:${port}`;
    await waitForHttp(`${workerUrl}/readyz`, 60_000);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    for (const [folder, flow] of Object.entries({
      good: [apiNode('{{base}}/ok'), apiNode('{{base}}/ok')],
      bad: [apiNode('{{base}}/fail', 200)],
      slow: [apiNode('{{base}}/slow?ms=60000')],
    })) {
      expect((await app.request('POST', '/v1/test-cases', { name: `${folder} case`, folder, flow })).status).to.equal(
        201,
      );
      expect((await app.request('POST', '/v1/runners', { name: folder, folder })).status).to.equal(201);
    }
  });
  after(async () => {
    await worker?.kill();
    await target?.close();
    await app?.stop();
  });

  it('counts runs by result, node durations by outcome, HTTP requests by route and status, with the Temporal SDK and process metrics', async () => {
    const apiBefore = await scrape(app.url);
    const started = (t: string) => sample(t, 'assay_runs_started_total') ?? 0;
    const posted = (t: string) =>
      sample(t, 'assay_http_requests_total', { service: 'api', method: 'POST', route: '/v1/runs', status: '201' }) ?? 0;

    const start = async (runner: string) => {
      const res = await app.request('POST', '/v1/runs', { runner, environment: 'local' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.runId as string;
    };
    const good = await start('good');
    const bad = await start('bad');
    const slow = await start('slow');
    // A deployment's run whose onComplete webhook the target receives.
    const deployment = await app.request('POST', '/v1/deployments', {
      name: 'hooked',
      runner: 'good',
      environment: 'local',
      webhooks: { onComplete: [{ url: `${target.url}/hook` }] },
    });
    expect(deployment.status, JSON.stringify(deployment.body)).to.equal(201);
    const hooked = (await app.request('POST', `/v1/deployments/${deployment.body.id}/runs`)).body.runId as string;
    expect(await waitForRun(app, hooked)).to.include({ status: 'completed', result: 'passed' });
    expect(await waitForRun(app, good)).to.include({ status: 'completed', result: 'passed' });
    expect(await waitForRun(app, bad)).to.include({ status: 'completed', result: 'failed' });
    await eventually(async () => target.requests.some((r) => r.path === '/slow'), 30_000);
    expect((await app.request('POST', `/v1/runs/${slow}/cancel`)).status).to.equal(202);
    expect(await waitForRun(app, slow)).to.include({ status: 'failed' });

    // A mock request (its own counter: the mock path skips Koa).
    const mocked = (t: string) => sample(t, 'assay_mock_requests_total', { status: '404' }) ?? 0;
    expect((await fetch(`${app.url}/mock/${app.workspaceId}/nothing-designed`)).status).to.equal(404);

    // The API: the runs it started, and its requests by route template (not the raw path).
    const api = await scrape(app.url);
    expect(mocked(api) - mocked(apiBefore)).to.equal(1);
    expect(started(api) - started(apiBefore)).to.equal(4);
    expect(posted(api) - posted(apiBefore)).to.equal(3);
    expect(
      sample(api, 'assay_http_requests_total', {
        service: 'api',
        method: 'POST',
        route: '/v1/deployments/:deploymentId/runs',
      }),
      'a route with a parameter',
    ).to.be.greaterThan(0);
    expect(
      sample(api, 'assay_http_requests_total', { service: 'api', method: 'GET', route: '/v1/runs/:runId' }),
      'polls by route template',
    ).to.be.greaterThan(0);
    expect(api).not.to.include(`route="/v1/runs/${good}"`);
    expect(
      sample(api, 'assay_http_request_duration_seconds_count', { service: 'api', method: 'POST', route: '/v1/runs' }),
    ).to.be.greaterThan(0);
    expect(sample(api, 'assay_process_cpu_user_seconds_total'), 'Node process metrics').to.be.greaterThan(0);

    // The worker process: runs finished by result, node durations by outcome, the SDK's metrics.
    const w = await eventually(async () => {
      const text = await scrape(workerUrl);
      return sample(text, 'assay_runs_finished_total', { result: 'cancelled' }) === 1 &&
        sample(text, 'assay_webhook_deliveries_total', { outcome: 'delivered' }) === 1
        ? text
        : undefined;
    }, 30_000);
    expect(target.requests.filter((r) => r.path === '/hook')).to.have.length(1);
    expect(sample(w, 'assay_runs_finished_total', { result: 'passed' })).to.equal(2);
    expect(sample(w, 'assay_runs_finished_total', { result: 'failed' })).to.equal(1);
    expect(sample(w, 'assay_run_duration_seconds_count', { result: 'passed' })).to.equal(2);
    expect(sample(w, 'assay_node_duration_seconds_count', { outcome: '2xx' })).to.equal(4);
    expect(sample(w, 'assay_node_duration_seconds_count', { outcome: '5xx' })).to.equal(1);
    expect(sample(w, 'assay_node_duration_seconds_bucket', { outcome: '2xx', le: '+Inf' })).to.equal(4);
    // Each node execution written down (docs/durability.md "What a crash repeats"); no crash, no repeat avoided.
    expect(sample(w, 'assay_node_executions_total', { outcome: 'sent' })).to.be.at.least(5);
    expect(w).not.to.match(/^assay_node_executions_total\{outcome="(recorded|taken-over|unrecorded)"\}/m);
    expect(sample(w, 'assay_process_resident_memory_bytes')).to.be.greaterThan(0);
    expect(
      sample(w, 'temporal_workflow_task_schedule_to_start_latency_seconds_count'),
      'Temporal SDK metrics',
    ).to.be.greaterThan(0);
    expect(sample(w, 'temporal_workflow_task_execution_latency_seconds_count')).to.be.greaterThan(0);
    expect(sample(w, 'temporal_activity_execution_latency_seconds_count')).to.be.greaterThan(0);
    expect(w).to.match(/^# TYPE assay_runs_finished_total counter$/m);

    // The worker's other two paths.
    expect(await (await fetch(`${workerUrl}/healthz`)).json()).to.deep.equal({ status: 'ok' });
    const ready = await fetch(`${workerUrl}/readyz`);
    expect([ready.status, await ready.json()]).to.deep.equal([
      200,
      { status: 'ok', checks: { store: 'ok', temporal: 'ok' } },
    ]);
    const post = await fetch(`${workerUrl}/metrics`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).to.deep.equal([405, 'GET, HEAD']);
    expect((await fetch(`${workerUrl}/nope`)).status).to.equal(404);
  });
});

describe('observability: traces', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Awaited<ReturnType<typeof startRecordingTarget>>;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  const children: AssayProcess[] = [];

  before(async () => {
    [app, target, receiver] = await Promise.all([startTestApp(), startRecordingTarget(), startOtlpReceiver()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    expect(
      (
        await app.request('POST', '/v1/test-cases', {
          name: 'traced',
          folder: 'traced',
          flow: [apiNode('{{base}}/ok'), apiNode('{{base}}/ok?second=1')],
        })
      ).status,
    ).to.equal(201);
    expect((await app.request('POST', '/v1/runners', { name: 'traced', folder: 'traced' })).status).to.equal(201);
  });
  after(async () => {
    for (const c of children) await c.kill();
    await receiver?.close();
    await target?.close();
    await app?.stop();
  });

  it('one run is one trace from the API request to the HTTP request the system under test received with its traceparent', async () => {
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100', ASSAY_LOG_LEVEL: 'warn' };
    const apiPort = await freePort();
    // The API exports OTLP/JSON, the worker OTLP/protobuf (the default).
    children.push(
      spawnAssay(
        'api',
        processEnv(app, { ...otel, ASSAY_PORT: String(apiPort), OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
      ),
    );
    children.push(spawnAssay('worker', processEnv(app, otel)));
    const api = `http://127.0.0.1:${apiPort}`;
    await waitForHttp(`${api}/readyz`, 60_000);

    // The caller's own trace: the API's span continues it.
    const callerTrace = 'aaaabbbbccccddddeeeeffff00001111';
    const res = await fetch(`${api}/v1/runs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${app.key}`,
        'content-type': 'application/json',
        traceparent: `00-${callerTrace}-1111222233334444-01`,
      },
      body: JSON.stringify({ runner: 'traced', environment: 'local' }),
    });
    expect(res.status).to.equal(201);
    const { runId } = (await res.json()) as { runId: string };
    expect(await waitForRun(app, runId)).to.include({ status: 'completed', result: 'passed' });

    // The target saw the trace in both requests, each with the id of its own client span.
    const sent = target.requests.filter((r) => r.path === '/ok');
    expect(sent).to.have.length(2);
    const parents = sent.map((r) => {
      const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(r.headers.traceparent));
      expect(m, `traceparent ${r.headers.traceparent}`).to.not.equal(null);
      expect(m![1]).to.equal(callerTrace);
      return m![2]!;
    });

    // The spans of the trace reach the receiver: one connected tree.
    const trace = await eventually(
      async () => {
        const mine = receiver.spans.filter((s) => s.traceId === callerTrace);
        const workflowSpan = mine.find((s) => s.name === 'RunWorkflow:runWorkflow');
        return workflowSpan && parents.every((p) => mine.some((s) => s.spanId === p)) ? mine : undefined;
      },
      60_000,
      200,
    );
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const chain = (spanId: string): string[] => {
      const names: string[] = [];
      for (let s = byId.get(spanId), i = 0; s && i < 20; s = byId.get(s.parentSpanId), i++)
        names.push(`${s.service} ${s.name}`);
      return names.reverse();
    };
    for (const p of parents) {
      const client = byId.get(p)!;
      expect(client.name).to.equal('GET');
      expect(client.attributes).to.include({ 'http.request.method': 'GET', 'server.address': '127.0.0.1' });
      expect(Number(client.attributes['http.response.status_code'])).to.equal(200);
      expect(client.attributes, 'no path or query in the span').not.to.have.property('url.full');
      const path = chain(p);
      expect(path[0]).to.equal('assay-api POST /v1/runs');
      expect(
        byId.get([...byId.values()].find((s) => s.name === 'POST /v1/runs')!.spanId)!.parentSpanId,
        "the caller's span",
      ).to.equal('1111222233334444');
      expect(path).to.include.members([
        'assay-api StartWorkflow:runWorkflow',
        'assay-worker RunWorkflow:runWorkflow',
        'assay-worker StartActivity:executeApiNode',
        'assay-worker RunActivity:executeApiNode',
      ]);
      expect(path.at(-1)).to.equal('assay-worker GET');
    }
    expect([...new Set(receiver.contentTypes)].sort()).to.deep.equal(['application/json', 'application/x-protobuf']);
    expect(new Set(receiver.paths)).to.deep.equal(new Set(['/v1/traces']));

    // The traced history (its start header carries the trace) replays with the workflow bundle.
    const history = await (await temporalClient()).workflow.getHandle(`run-${runId}`).fetchHistory();
    await Worker.runReplayHistory(
      { ...workflowSource(), sinks: workerTracing().sinks, dataConverter: testDataConverter(), replayName: 'traced' },
      history,
    );
  });

  it('sends no traceparent when OTEL_EXPORTER_OTLP_ENDPOINT is not set', async () => {
    const before = target.requests.length;
    const untraced = await startTestApp({ worker: true });
    try {
      await untraced.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
      await untraced.request('POST', '/v1/test-cases', {
        name: 'plain',
        folder: 'plain',
        flow: [apiNode('{{base}}/ok')],
      });
      await untraced.request('POST', '/v1/runners', { name: 'plain', folder: 'plain' });
      const res = await untraced.request(
        'POST',
        '/v1/runs',
        { runner: 'plain', environment: 'local' },
        { headers: { traceparent: '00-aaaabbbbccccddddeeeeffff00002222-1111222233334444-01' } },
      );
      expect(await waitForRun(untraced, res.body.runId)).to.include({ status: 'completed', result: 'passed' });
    } finally {
      await untraced.stop();
    }
    const sent = target.requests.slice(before);
    expect(sent).to.have.length(1);
    expect(sent[0]!.headers).to.have.property('x-assay-execution');
    expect(sent[0]!.headers).not.to.have.property('traceparent');
  });
});

describe('observability: health', function () {
  this.timeout(120_000);
  let proxy: TcpProxy;
  let app: TestApp;
  let bundler: BundlerHandle | undefined;
  let worker: AssayProcess | undefined;

  before(async () => {
    const mysql = new URL(process.env.DATABASE_URL || 'mysql://root@127.0.0.1:3306/');
    proxy = await startTcpProxy(mysql.hostname, Number(mysql.port || 3306));
    app = await startTestApp({ databaseAddress: proxy.address, env: { ASSAY_BUNDLER_PORT: '0' } });
  });
  after(async () => {
    await worker?.kill();
    await bundler?.close();
    await proxy?.restore().catch(() => undefined);
    await app?.stop();
    await proxy?.close();
  });

  it('/healthz stays 200 while the database is unreachable; /readyz answers 503 naming the store, and 200 again once it is back', async () => {
    bundler = await startBundler(app.config, app.dataSource, createLogger('silent', 'health-test'));
    for (const url of [app.url, bundler.url]) {
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status, url).to.equal(200);
    }
    expect(await (await fetch(`${app.url}/readyz`)).json()).to.deep.equal({
      status: 'ok',
      checks: { store: 'ok', temporal: 'ok' },
    });

    await proxy.cut();
    for (const [url, checks] of [
      [app.url, ['store', 'temporal']],
      [bundler.url, ['store']],
    ] as const) {
      const live = await fetch(`${url}/healthz`);
      expect([live.status, await live.json()], url).to.deep.equal([200, { status: 'ok' }]);
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status, url).to.equal(503);
      expect(ready.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const body = (await ready.json()) as {
        code: string;
        unavailable: string[];
        checks: Record<string, string>;
        detail: string;
        type: string;
      };
      expect(body).to.include({ code: 'not-ready', type: '/problems/not-ready' });
      expect(body.unavailable).to.deep.equal(['store']);
      expect(Object.keys(body.checks)).to.deep.equal([...checks]);
      expect(body.checks.store).to.match(/^unreachable: /);
      expect(body.detail).to.equal('Not ready: the store (database) is not reachable.');
    }

    await proxy.restore();
    await eventually(async () => (await fetch(`${app.url}/readyz`)).status === 200, 30_000, 200);
  });

  it('/readyz names Temporal when it is unreachable: the API, and a worker process that waits for it', async () => {
    const closed = await freePort();
    const lonely = await startTestApp({ env: { TEMPORAL_ADDRESS: `127.0.0.1:${closed}` } });
    try {
      expect((await fetch(`${lonely.url}/healthz`)).status).to.equal(200);
      const ready = await fetch(`${lonely.url}/readyz`);
      const body = (await ready.json()) as { unavailable: string[]; detail: string };
      expect([ready.status, body.unavailable]).to.deep.equal([503, ['temporal']]);
      expect(body.detail).to.equal('Not ready: Temporal is not reachable.');
    } finally {
      await lonely.stop();
    }

    const port = await freePort();
    worker = spawnAssay(
      'worker',
      processEnv(app, { TEMPORAL_ADDRESS: `127.0.0.1:${closed}`, ASSAY_WORKER_HTTP_PORT: String(port) }),
    );
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`, 60_000);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).to.equal(503);
    const body = (await ready.json()) as { unavailable: string[]; checks: Record<string, string> };
    expect(body.unavailable).to.deep.equal(['temporal']);
    expect(body.checks).to.deep.equal({
      store: 'ok',
      temporal: 'unreachable: the worker is still connecting to Temporal',
    });
  });
});
