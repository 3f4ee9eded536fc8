/**
 * Integration tests on the running cluster (docs/cluster.md "The cluster tests"): a real Temporal
 * server on PostgreSQL, the API, N workers and the bundler as separate processes (`make cluster`).
 * Selected by ASSAY_CLUSTER=1 (`make test-cluster`); skipped otherwise, and not in .mocharc.json's
 * default spec, so `make test` never needs the cluster.
 *
 * Every target and receiver listens on loopback; every wait is bounded.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { clusterCommand, clusterPid, clusterUnderTest, killCluster, type ClusterUnderTest } from '../helpers/cluster';
import { startTarget, type Target } from '../helpers/target';
import { startReceiver, type Receiver } from '../helpers/receiver';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value; errors (e.g. the API being restarted) count as "not yet", except one marked `fatal`. */
async function until<T>(
  what: string,
  timeoutMs: number,
  fn: () => Promise<T | undefined | null | false>,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      if ((err as { fatal?: boolean }).fatal) throw err;
      last = err;
    }
    await sleep(everyMs);
  }
  throw new Error(
    `${what}: not within ${Math.round(timeoutMs / 1000)} s${last ? ` (last error: ${(last as Error).message})` : ''}`,
  );
}

/** A unique suffix for names: the cluster's database outlives test runs. */
const suffix = () => `${Date.now().toString(36)}-${randomUUID().slice(0, 6)}`;

/** Waits until run `runId` is completed or failed (API errors while it restarts are retried). */
function finalRun(cluster: ClusterUnderTest, runId: string, timeoutMs = 120_000): Promise<any> {
  return until(
    `run ${runId} to end`,
    timeoutMs,
    async () => {
      const res = await cluster.request('GET', `/v1/runs/${runId}`);
      return res.status === 200 && (res.body.status === 'completed' || res.body.status === 'failed')
        ? res.body
        : undefined;
    },
    300,
  );
}

/**
 * POST /v1/runs with an Idempotency-Key, retried (same key) while the API does not answer or
 * answers 5xx: the documented way to start a run safely across API crashes (docs/api.md).
 */
async function startRun(cluster: ClusterUnderTest, body: unknown, timeoutMs = 180_000): Promise<string> {
  const key = randomUUID();
  return until(
    'a run to start',
    timeoutMs,
    async () => {
      const res = await cluster.request('POST', '/v1/runs', body, { 'idempotency-key': key });
      if (res.status === 201) return res.body.runId as string;
      if (res.status >= 500) return undefined;
      throw Object.assign(new Error(`POST /v1/runs: ${res.status} ${JSON.stringify(res.body)}`), { fatal: true });
    },
    500,
  );
}

/** Creates environment, test case and runner; returns their names/ids. */
async function fixture(cluster: ClusterUnderTest, name: string, variables: Record<string, string>, flow: unknown[]) {
  const env = await cluster.request('POST', '/v1/environments', { name, variables });
  expect(env.status, JSON.stringify(env.body)).to.equal(201);
  const tc = await cluster.request('POST', '/v1/test-cases', { name, folder: 'cluster', flow });
  expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
  const runner = await cluster.request('POST', '/v1/runners', { name, testCaseIds: [tc.body.id] });
  expect(runner.status, JSON.stringify(runner.body)).to.equal(201);
  return { environment: name, runner: name, testCaseId: tc.body.id as string };
}

describe('cluster (ASSAY_CLUSTER=1: make cluster && make test-cluster)', function () {
  this.timeout(300_000);
  const cluster = clusterUnderTest();
  let target: Target;

  before(async function () {
    if (!cluster) return this.skip();
    target = await startTarget();
  });
  after(async () => {
    await target?.close();
  });

  it('the REST contract: health, authentication, environment, test case, runner, a run and its results', async () => {
    const c = cluster!;
    const health = await fetch(`${c.state.apiUrl}/healthz`);
    expect(health.status).to.equal(200);
    const anonymous = await fetch(`${c.state.apiUrl}/v1/environments`);
    expect(anonymous.status).to.equal(401);
    expect(anonymous.headers.get('content-type')).to.match(/application\/problem\+json/);
    const name = `smoke-${suffix()}`;
    const f = await fixture(c, name, { base: target.url }, [
      {
        type: 'api',
        id: 'user',
        request: { method: 'GET', url: '{{base}}/users/1' },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
    ]);
    expect((await c.request('GET', `/v1/environments/${name}`)).body).to.include({ name });
    expect((await c.request('GET', `/v1/test-cases/${f.testCaseId}`)).body).to.include({ id: f.testCaseId, name });
    expect((await c.request('GET', `/v1/runners/${name}/test-cases`)).status).to.equal(200);
    const started = await c.request('POST', '/v1/runs', { runner: name, environment: name });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    expect(started.body).to.include({ runner: name, environment: name });
    expect(started.body.runId).to.match(/^run_/);
    const got = await c.request('GET', `/v1/runs/${started.body.runId}`);
    expect(got.status).to.equal(200);
    expect(got.body).to.include({ runId: started.body.runId, runner: name, environment: name, trigger: 'api' });
    expect(['queued', 'running', 'completed']).to.include(got.body.status);
    const unknown = await c.request('GET', '/v1/runs/run_01NOSUCHRUN000000000000000');
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.have.property('code');
    await finalRun(c, started.body.runId);
  });

  it("a run completes passed against a loopback target, on the cluster's workers", async () => {
    const c = cluster!;
    const name = `run-${suffix()}`;
    await fixture(c, name, { base: target.url }, [
      {
        type: 'api',
        id: 'ada',
        request: { method: 'GET', url: '{{base}}/users/1' },
        assertions: [{ target: 'response.body.name', operator: 'equals', expected: 'Ada' }],
      },
      {
        type: 'api',
        id: 'grace',
        request: { method: 'GET', url: '{{base}}/users/2' },
        assertions: [{ target: 'response.body.name', operator: 'equals', expected: 'Grace' }],
      },
    ]);
    const runId = await startRun(c, { runner: name, environment: name });
    const run = await finalRun(c, runId);
    expect(run).to.include({ status: 'completed', result: 'passed' });
    expect(run.summary).to.deep.equal({ total: 1, passed: 1, failed: 0, skipped: 0 });
    const results = (await c.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(
      results.details.testCases[0].nodes.map((n: { id: string; status: string }) => `${n.id}:${n.status}`),
    ).to.deep.equal(['ada:passed', 'grace:passed']);
  });

  it("a run on the cluster's workers tests a mock on the API's mock port (ASSAY_MOCK_PORT)", async () => {
    const c = cluster!;
    const name = `mock-${suffix()}`;
    const design = await c.request('POST', '/v1/designs', {
      method: 'GET',
      path: `/${name}/{id}`,
      responses: [{ status: 200, code: 1, data: { id: '{{id}}', name: 'Ada' }, dynamic: true }],
    });
    expect(design.status, JSON.stringify(design.body)).to.equal(201);
    const workspaceId = new URL(design.body.mockUrl).pathname.split('/')[2]!;
    await fixture(c, name, { base: `${c.state.mockUrl}/mock/${workspaceId}` }, [
      {
        type: 'api',
        id: 'mocked',
        request: { method: 'GET', url: `{{base}}/${name}/7` },
        assertions: [{ target: 'response.body', operator: 'equals', expected: { id: '7', name: 'Ada' } }],
      },
    ]);
    const run = await finalRun(c, await startRun(c, { runner: name, environment: name }));
    expect(run).to.include({ status: 'completed', result: 'passed' });
    // The port serves the mocks and nothing else.
    expect(
      (await fetch(`${c.state.mockUrl}/v1/workspaces`, { headers: { authorization: `Bearer ${c.state.apiKey}` } }))
        .status,
    ).to.equal(404);
  });

  it("a deployment's cron schedule fires on the cluster (a Temporal Schedule) and its run completes", async () => {
    const c = cluster!;
    const name = `sched-${suffix()}`;
    await fixture(c, name, { base: target.url }, [
      {
        type: 'api',
        id: 'ada',
        request: { method: 'GET', url: '{{base}}/users/1' },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
    ]);
    // Every minute: the finest Assay's five-field cron allows (src/temporal/cron.ts).
    const d = await c.request('POST', '/v1/deployments', {
      name,
      runner: name,
      environment: name,
      schedule: '* * * * *',
    });
    expect(d.status, JSON.stringify(d.body)).to.equal(201);
    try {
      const described = await until('the schedule to be synced', 60_000, async () => {
        const res = await c.request('GET', `/v1/deployments/${d.body.id}`);
        return res.body.scheduleState?.nextRunTimes?.length ? res.body : undefined;
      });
      expect(new Date(described.scheduleState.nextRunTimes[0]).getTime()).to.be.greaterThan(Date.now() - 60_000);
      const listed = await until(
        'a scheduled run',
        150_000,
        async () => {
          const res = await c.request('GET', `/v1/runs?deployment=${d.body.id}`);
          return res.body.items?.[0];
        },
        1000,
      );
      expect(listed).to.include({ trigger: 'schedule', deploymentId: d.body.id });
      const run = await finalRun(c, listed.runId);
      expect(run).to.include({ status: 'completed', result: 'passed' });
    } finally {
      await c.request('DELETE', `/v1/deployments/${d.body.id}`);
    }
  });

  it("an outgoing webhook is delivered, signed, to a loopback receiver when a deployment's run ends", async () => {
    const c = cluster!;
    const receiver: Receiver = await startReceiver();
    try {
      const name = `hook-${suffix()}`;
      await fixture(c, name, { base: target.url }, [
        {
          type: 'api',
          id: 'ada',
          request: { method: 'GET', url: '{{base}}/users/1' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ]);
      const d = await c.request('POST', '/v1/deployments', {
        name,
        runner: name,
        environment: name,
        webhooks: {
          onComplete: [
            {
              url: `${receiver.url}/done`,
              payload: { run: '{{result.runId}}', status: '{{result.status}}', total: '{{result.total}}' },
            },
          ],
        },
      });
      expect(d.status, JSON.stringify(d.body)).to.equal(201);
      receiver.secret = d.body.signingSecret;
      const now = await c.request('POST', `/v1/deployments/${d.body.id}/runs`, {});
      expect(now.status, JSON.stringify(now.body)).to.equal(201);
      const runId = now.body.runId as string;
      expect(await finalRun(c, runId)).to.include({ status: 'completed', result: 'passed' });
      const delivery = await until('the webhook delivery', 60_000, async () =>
        receiver.received.find((r) => r.body?.run === runId),
      );
      expect(delivery.path).to.equal('/done');
      expect(delivery.body).to.deep.equal({ run: runId, status: 'passed', total: 1 });
      expect(receiver.rejected).to.equal(0);
      const deliveries = await until('the delivery to be recorded', 30_000, async () => {
        const res = await c.request('GET', `/v1/runs/${runId}/deliveries`);
        return res.body.items?.[0]?.status === 'delivered' ? res.body.items : undefined;
      });
      expect(deliveries).to.have.length(1);
      await c.request('DELETE', `/v1/deployments/${d.body.id}`);
    } finally {
      await receiver.close();
    }
  });

  describe('chaos: kill -9 of a worker, the API and the Temporal server during bursts of runs', function () {
    const BURSTS = Number(process.env.ASSAY_CHAOS_BURSTS ?? 3);
    const RUNS = Number(process.env.ASSAY_CHAOS_RUNS ?? 10);
    const NODES = Number(process.env.ASSAY_CHAOS_NODES ?? 20);
    this.timeout(1_200_000);

    it(`${BURSTS} bursts × ${RUNS} runs × ${NODES} API nodes: every run ends completed and passed, none lost; duplicates counted`, async () => {
      const c = cluster!;
      // A target that counts requests by run tag and node id, answering after 20 ms.
      const seen = new Map<string, number>();
      const byBurst = new Map<number, number>();
      const server = http.createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://x');
        const m = /^\/hit\/(n\d+)$/.exec(url.pathname);
        const tag = url.searchParams.get('tag') ?? '';
        if (m && tag) {
          const key = `${tag}/${m[1]}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
          const burst = Number(tag.split('-')[1]);
          byBurst.set(burst, (byBurst.get(burst) ?? 0) + 1);
        }
        setTimeout(
          () =>
            res
              .writeHead(m ? 200 : 404, { 'content-type': 'application/json' })
              .end(JSON.stringify({ ok: Boolean(m) })),
          20,
        );
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const name = `chaos-${suffix()}`;
      const flow = Array.from({ length: NODES }, (_, i) => ({
        type: 'api',
        id: `n${i + 1}`,
        request: { method: 'GET', url: `{{base}}/hit/n${i + 1}?tag={{tag}}` },
        assertions: [{ target: 'response.body.ok', operator: 'equals', expected: true }],
      }));
      await fixture(c, name, { base }, flow);

      const victims = ['worker-1', 'api', 'temporal'].slice(0, BURSTS);
      const runs: Array<{ runId: string; tag: string; burst: number }> = [];
      const kills: Array<{ burst: number; process: string; pid: number; requestsBefore: number; restartMs: number }> =
        [];
      try {
        for (let burst = 1; burst <= BURSTS; burst += 1) {
          const victim = victims[burst - 1] ?? 'worker-1';
          const tags = Array.from({ length: RUNS }, (_, i) => `b-${burst}-${i}-${randomUUID().slice(0, 8)}`);
          // Half the burst's runs before the kill, half after (for the API, started while it is down
          // and coming back: the client retries with the same Idempotency-Key).
          const half = Math.ceil(RUNS / 2);
          for (const tag of tags.slice(0, half))
            runs.push({
              runId: await startRun(c, { runner: name, environment: name, variables: { tag } }),
              tag,
              burst,
            });
          // Kill once this burst is under way: the target has seen some of its requests.
          const threshold = Math.min(half * NODES, 3 * NODES);
          await until(`burst ${burst} under way`, 120_000, async () => (byBurst.get(burst) ?? 0) >= threshold, 50);
          const requestsBefore = byBurst.get(burst) ?? 0;
          const pid = killCluster(victim);
          const started = Date.now();
          const late = (async () => {
            for (const tag of tags.slice(half))
              runs.push({
                runId: await startRun(c, { runner: name, environment: name, variables: { tag } }),
                tag,
                burst,
              });
          })();
          await until(`${victim} (pid ${pid}) to be gone`, 10_000, async () => clusterPid(victim) !== pid, 100);
          await clusterCommand(['up']);
          kills.push({ burst, process: victim, pid, requestsBefore, restartMs: Date.now() - started });
          await late;
        }

        // Every run ends completed and passed, with every node run.
        const ends = [];
        for (const r of runs) ends.push({ ...r, run: await finalRun(c, r.runId, 600_000) });
        const wrong = ends.filter((e) => e.run.status !== 'completed' || e.run.result !== 'passed');
        expect(
          wrong.map((e) => `${e.runId}: ${e.run.status} ${e.run.result ?? ''} ${e.run.error ?? ''}`),
        ).to.deep.equal([]);
        for (const e of ends) {
          const results = (await c.request('GET', `/v1/runs/${e.runId}/results`)).body;
          const nodes = results.details.testCases[0].nodes as Array<{ id: string; status: string }>;
          expect(nodes.length, e.runId).to.equal(NODES);
          expect(
            nodes.every((n) => n.status === 'passed'),
            e.runId,
          ).to.equal(true);
          for (let i = 1; i <= NODES; i += 1)
            expect(seen.get(`${e.tag}/n${i}`) ?? 0, `${e.tag}/n${i}`).to.be.at.least(1);
        }
        expect(new Set(runs.map((r) => r.runId)).size).to.equal(BURSTS * RUNS);

        // Duplicates: requests the target saw more than once for one run and node (at least once delivery).
        const duplicates = (burst: number) =>
          [...seen].filter(([k]) => Number(k.split('-')[1]) === burst).reduce((sum, [, n]) => sum + (n - 1), 0);
        const report = {
          at: new Date().toISOString(),
          workers: c.state.workers.length,
          bursts: BURSTS,
          runsPerBurst: RUNS,
          nodesPerRun: NODES,
          runs: runs.length,
          requests: [...seen.values()].reduce((a, b) => a + b, 0),
          expectedRequests: runs.length * NODES,
          kills: kills.map((k) => ({ ...k, duplicates: duplicates(k.burst) })),
          duplicatesTotal: [1, 2, 3].slice(0, BURSTS).reduce((s, b) => s + duplicates(b), 0),
          allCompletedPassed: true,
        };
        const file = path.join(c.state.dir, 'chaos.json');
        fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
        process.stdout.write(
          `      chaos figures (also in ${file}):\n${JSON.stringify(report, null, 2).replace(/^/gm, '        ')}\n`,
        );
      } finally {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
        // Leave the cluster whole for whatever runs next.
        await clusterCommand(['up']).catch(() => undefined);
      }
    });
  });
});
