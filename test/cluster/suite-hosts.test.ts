/**
 * A parallel suite spread over many hosts (docs/parallel.md "Durability"): in the `testCase`
 * durability mode each test case's nodes run in one activity (`runTestCaseSegment`) that any worker
 * of the run's task queue may take, so one run's test cases should spread over every worker, and a
 * run bound by what each host can do should end sooner on more hosts. Built on this machine with
 * Linux network namespaces (test/helpers/netns.ts):
 *
 *   root namespace   bridge assaysh0 10.232.0.1/24: the Temporal dev server (through a forwarder on
 *                    the bridge's address), the API, the SQLite store; no worker
 *   assaysh-t        10.232.0.10  the target (a bare node:http server)
 *   assaysh-1…4      10.232.0.11…14  one host each, a `main.js worker` process
 *
 * The same run (RUNNER_CASES test cases × NODES API nodes, `durability: "testCase"`,
 * `concurrency: 16`) runs on 1 host, then 2, then 4 (workers added between runs): 2 and 4 hosts
 * must each take at most 0.65 × the time of 1 (a wide bound: this machine has 2 busy cores;
 * measured 0.56 and 0.30), every result must be there in the runner's order, and the target must
 * have seen every host's address, each with test cases of its own.
 *
 * What bounds a host: the target answers each source address's requests one at a time, HOLD_MS
 * each (a FIFO per source), so a host can complete 1000 / HOLD_MS requests a second whatever it has
 * in flight, and hosts do not share that capacity. Not a `tc` link per host (as
 * test/cluster/load-hosts.test.ts does): a host's link would also carry its Temporal traffic
 * (polls, heartbeats, segment results), and the host holding the run's workflow sends more of it
 * than the others (every workflow task's commands, each scheduled segment's input: the test
 * case's nodes and the run's variables), so a link-bound figure would mix the suite's spread with
 * where the workflow happens to land. A hold per source bounds exactly the test cases' requests,
 * costs no CPU (a timer per request), and needs no request bodies to fill a link, so neither a
 * link nor this busy 2-core machine's CPU sets the pace.
 *
 * Where the workflow runs: in the hosts. A worker polls workflow tasks and activities of its task
 * queue alike (bin/worker.ts: no setting makes a worker take workflow tasks only; the SDK's
 * `enableNonLocalActivities: false` would), so a worker in the root namespace would take test case
 * segments too, outside any host. So every worker is a host: the run's workflow lands on one of
 * them, as in a cluster of identical workers (`make cluster`). That is also the case eager activity
 * dispatch (on in Assay's Temporal: src/temporal/dev-server.ts, deploy/temporal/dynamicconfig.yaml)
 * gets wrong: a segment dispatched eagerly goes to the worker that completed the workflow task,
 * the one holding the run, so with it 61 of 64 test cases ran on one of two hosts and 2 hosts took
 * 0.96 × the time of 1; segments of test cases side by side are therefore not dispatched eagerly
 * (workflows/workflow-port.ts `allowEagerDispatch`), and each host must run at least a quarter of
 * its fair share of the test cases.
 *
 * Needs root and iproute2 (`ip`); selected by ASSAY_CLUSTER=1 (`make test-cluster`); skipped with a
 * message saying what is missing. Namespaces, bridge and processes are removed after the suite, also
 * when it fails, and any left by an earlier, killed run are removed before it. Bounded: the suite's
 * timeout is 4 minutes, each run's 90 s.
 */
import { type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { spawnWorkerProcess, startLocalStack, type LocalStack } from '../../bin/local-stack';
import { forwarder, netnsMissing, netnsNetwork, startNodeInNamespace } from '../helpers/netns';

/** Hosts the run is measured on, in this order (workers are added, never removed). */
const HOST_COUNTS = [1, 2, 4] as const;
/** The run: test cases × API nodes each, `concurrency` test cases under way at once. */
const RUNNER_CASES = 64;
const NODES = 4;
const CONCURRENCY = 16;
/** The target's time per request of one source (ms): a host's capacity is 1000 / HOLD_MS requests/s. */
const HOLD_MS = 50;
/** Test cases of the warm-up run (tag `warm`), made after each host is added. */
const WARM_CASES = 8;

const network = netnsNetwork({ prefix: 'assaysh', net: '10.232.0', hosts: Math.max(...HOST_COUNTS) });
const TARGET_PORT = 8080;

/**
 * The target: answers each source address's requests in arrival order, one every HOLD_MS, with
 * `{"ok":true}`. GET /count answers, by source address, its requests, the test case positions they
 * came from (X-Assay-Execution: `<runId>/<position>/<path>`, src/flow/execution-id.ts) and the most
 * it held at once, and resets them.
 */
const TARGET_SOURCE = `
const http = require('node:http');
let seen = {};
const free = {};
http.createServer((req, res) => {
  if (req.url === '/count') {
    res.end(JSON.stringify(seen));
    seen = {};
    return;
  }
  const from = req.socket.remoteAddress.replace(/^::ffff:/, '');
  const s = (seen[from] ??= { requests: 0, positions: {}, held: 0, mostHeld: 0 });
  s.requests++;
  const position = String(req.headers['x-assay-execution'] || '').split('/')[1];
  s.positions[position] = (s.positions[position] || 0) + 1;
  s.mostHeld = Math.max(s.mostHeld, ++s.held);
  req.resume();
  req.on('end', () => {
    const now = Date.now();
    free[from] = Math.max(now, free[from] || 0) + ${HOLD_MS};
    setTimeout(() => {
      s.held--;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }, free[from] - now);
  });
}).listen(${TARGET_PORT}, '${network.target.ip}', () => console.log('listening'));
`;

interface SourceCounts {
  requests: number;
  positions: Record<string, number>;
  mostHeld: number;
}

/** The target's counts by source address since the last call. */
async function targetCounts(): Promise<Record<string, SourceCounts>> {
  const res = await fetch(`http://${network.target.ip}:${TARGET_PORT}/count`, { signal: AbortSignal.timeout(5000) });
  return (await res.json()) as Record<string, SourceCounts>;
}

const caseName = (i: number) => `case ${String(i).padStart(2, '0')}`;

describe('a parallel suite over many hosts (network namespaces; ASSAY_CLUSTER=1, root)', function () {
  this.timeout(240_000);
  const children: ChildProcess[] = [];
  const cleanups: Array<() => void> = [];
  let stack: LocalStack | undefined;
  let temporalPort = 0;

  /** Starts the worker of host `index` (0-based) in its namespace. */
  const startHost = async (index: number) => {
    const host = network.hosts[index]!;
    children.push(
      await spawnWorkerProcess(stack!, {
        wrapper: ['ip', 'netns', 'exec', host.ns],
        env: {
          ASSAY_LOAD_SHARDS_PER_WORKER: '0',
          ASSAY_EGRESS_ALLOW: network.cidr,
          TEMPORAL_ADDRESS: `${network.hub}:${temporalPort}`,
        },
      }),
    );
  };

  before(async function () {
    const why = netnsMissing(['ip']);
    if (why) {
      console.log(`      skipped: ${why}`);
      return this.skip();
    }
    network.teardown();
    network.build();
    children.push(await startNodeInNamespace(network.target.ns, TARGET_SOURCE));
    const dataDir = fs.mkdtempSync('/tmp/assay-suite-hosts-');
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    stack = await startLocalStack(
      { DATABASE_URL: `sqlite://${path.join(dataDir, 'assay.db')}`, ASSAY_LOG_LEVEL: 'error' },
      { worker: false },
    );
    // Temporal listens on loopback; the hosts reach it through a forwarder on the bridge's address.
    const temporal = await forwarder(network.hub, stack.config.temporal.address);
    temporalPort = temporal.port;
    cleanups.push(() => temporal.close());
    await stack.call('POST', '/v1/environments', {
      name: 'hosts',
      variables: { url: `http://${network.target.ip}:${TARGET_PORT}/item` },
    });
    for (let i = 0; i < RUNNER_CASES; i++)
      await stack.call('POST', '/v1/test-cases', {
        name: caseName(i),
        folder: 'suite',
        tags: i < WARM_CASES ? ['warm'] : [],
        flow: Array.from({ length: NODES }, (_, n) => ({
          type: 'api',
          id: `n${n}`,
          request: { method: 'POST', url: '{{url}}', body: { testCase: i, node: n } },
          assertions: [{ target: 'response.body.ok', operator: 'equals', expected: true }],
        })),
      });
    await stack.call('POST', '/v1/runners', { name: 'suite', folder: 'suite' });
  });

  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await stack?.stop().catch(() => undefined);
    for (const c of cleanups) c();
    network.teardown();
  });

  /** One run of the runner (or of its `warm` test cases); its wall time, results and the target's counts. */
  async function run(tags?: string[]) {
    await targetCounts(); // reset
    const started = Date.now();
    const { runId } = await stack!.call<{ runId: string }>('POST', '/v1/runs', {
      runner: 'suite',
      environment: 'hosts',
      durability: 'testCase',
      concurrency: CONCURRENCY,
      timeout: 120,
      ...(tags ? { tags } : {}),
    });
    const deadline = started + 90_000;
    let doc: { status: string; durability?: string; concurrency?: number };
    for (;;) {
      doc = await stack!.call('GET', `/v1/runs/${runId}`);
      if (doc.status === 'completed' || doc.status === 'failed') break;
      if (Date.now() > deadline) throw new Error(`run ${runId} did not end within 90 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const ms = Date.now() - started;
    const results = await stack!.call<{
      result: string;
      summary: { total: number; passed: number };
      details: { testCases: Array<{ name: string; status: string }> };
    }>('GET', `/v1/runs/${runId}/results`);
    return { runId, ms, doc, results, counts: await targetCounts() };
  }

  it(`${RUNNER_CASES} test cases × ${NODES} nodes at concurrency ${CONCURRENCY} spread over the hosts: on 2 or 4 they take at most 0.65 × the time of 1 (each host ${1000 / HOLD_MS} requests/s)`, async () => {
    const measured: Array<{ hosts: number } & Awaited<ReturnType<typeof run>>> = [];
    let started = 0;
    for (const hosts of HOST_COUNTS) {
      while (started < hosts) await startHost(started++);
      // The new workers' code warms up on a small run first.
      const warm = await run(['warm']);
      expect(warm.results.summary, `warm-up on ${hosts} host(s)`).to.deep.include({
        total: WARM_CASES,
        passed: WARM_CASES,
      });
      measured.push({ hosts, ...(await run()) });
    }

    const one = measured[0]!;
    const lines = measured.map((m) => {
      const share = Object.entries(m.counts)
        .map(
          ([ip, c]) =>
            `${ip}: ${Object.keys(c.positions).length} test cases, ${c.requests} requests, at most ${c.mostHeld} held`,
        )
        .join('; ');
      return `${m.hosts} host(s): ${m.ms} ms (${(m.ms / one.ms).toFixed(2)} × 1 host) — ${share}`;
    });
    console.log(lines.map((l) => `      ${l}`).join('\n'));
    console.log(
      `      | parallel suite over hosts (${RUNNER_CASES} × ${NODES} API nodes, testCase, concurrency ${CONCURRENCY}, ` +
        `each host ${1000 / HOLD_MS} requests/s) | ${measured.map((m) => `${m.hosts} host(s) ${(m.ms / 1000).toFixed(1)} s`).join(' | ')} | ` +
        `${measured
          .slice(1)
          .map((m) => `${m.hosts}: ${(m.ms / one.ms).toFixed(2)} ×`)
          .join(', ')} |`,
    );

    const hostIps = network.hosts.map((h) => h.ip);
    const names = Array.from({ length: RUNNER_CASES }, (_, i) => caseName(i));
    for (const m of measured) {
      const what = `${m.hosts} host(s), run ${m.runId}`;
      expect(m.doc, what).to.include({ status: 'completed', durability: 'testCase', concurrency: CONCURRENCY });
      expect(m.results.result, what).to.equal('passed');
      expect(m.results.summary, what).to.deep.include({ total: RUNNER_CASES, passed: RUNNER_CASES });
      expect(
        m.results.details.testCases.map((t) => t.name),
        what,
      ).to.deep.equal(names);
      // Every node's request reached the target once, from the hosts running then, each of them
      // with at least a quarter of its fair share of the test cases (all NODES of each).
      const sources = Object.keys(m.counts).sort();
      expect(sources, what).to.deep.equal(hostIps.slice(0, m.hosts));
      const requests = Object.values(m.counts).reduce((a, c) => a + c.requests, 0);
      expect(requests, what).to.equal(RUNNER_CASES * NODES);
      for (const [ip, c] of Object.entries(m.counts)) {
        expect(Object.keys(c.positions).length, `${what}: test cases from ${ip}`).to.be.at.least(
          RUNNER_CASES / m.hosts / 4,
        );
        expect(Object.values(c.positions), `${what}: requests per test case from ${ip}`).to.satisfy((n: number[]) =>
          n.every((k) => k === NODES),
        );
      }
    }
    for (const m of measured.slice(1))
      expect(m.ms / one.ms, `${m.hosts} hosts ${m.ms} ms, 1 host ${one.ms} ms`).to.be.at.most(0.65);
  });
});
