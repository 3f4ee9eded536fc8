/**
 * One part of a load shard: the load engine (src/perf/engine.ts) driving its share of the profile,
 * each iteration running the runner's test cases through the interpreter's direct port, every
 * request and check measured (src/perf/metrics.ts). A shard runs one part per thread
 * (activities/load.ts): part `p` of `parts` is sub-shard `p` of the profile split `parts` ways, so
 * the parts of all shards and threads together keep the profile's VUs and rates exactly.
 *
 * Runs the same on the activity's own thread or on a worker thread (activities/load-thread.ts).
 */
import { testCaseAuth } from '../src/domain/auth-profiles';
import type { FlowNode, NodeResult, RunPlan, TestCaseDefinition } from '../src/domain/types';
import { forEachNode } from '../src/flow/tree';
import { LoadEngine, type AppliedControl, type EnginePosition, type VuIterationContext } from '../src/perf/engine';
import type { LoadControlState } from '../src/domain/load-control';
import { LoadMetrics, type LoadMetricsState } from '../src/perf/metrics';
import { DeadlineReached, FlowInterpreter, type InterpreterPort } from '../src/flow';
import { KEPT_LOAD_FAILURES, type LoadFailure } from '../src/perf/test-case-results';
import { expectedHttpStatuses, httpRequestFailed } from '../src/perf/expected-statuses';
import type { Dispatcher } from 'undici';
import type { DirectPortOptions } from './direct-port';
import type { LentConnection } from './prepared-request';
import type { FileBytes, FileSource } from './files';

/** Where a part is: its engine position and the iterations it started (data-set rows go round robin). */
export interface PartPosition {
  position: EnginePosition;
  started: number;
}

/** What a part is asked to run. */
export interface LoadPartSpec {
  runId: string;
  plan: RunPlan;
  /** Global 0-based part index: shard × threads + thread. */
  part: number;
  /** Parts of the whole run: shards × threads. */
  parts: number;
  resume?: PartPosition;
  /** The run's control state when the part starts (a resumed attempt continues paused, scaled or stopping). */
  control?: LoadControlState;
  /**
   * The files the flows name literally, read once by the shard before its parts start
   * (activities/load.ts): a part on a worker thread seeds its cache with them (activities/load-thread.ts).
   */
  files?: ShardFiles;
  /**
   * How API nodes are sent (config `load.requestPath`, `ASSAY_LOAD_REQUEST_PATH`): `prepared`
   * (default) where a node allows it (activities/prepared-request.ts), `general` always as a
   * functional run sends them.
   */
  requestPath?: 'prepared' | 'general';
}

/** Assertion targets that read a response's status, headers, time or size, never its body. */
const BODYLESS_TARGET = /^\s*response\s*\.\s*(status|statusText|headers|time|size|contentEncoding)\b/;

/**
 * Whether nothing of `testCase` can read a response body: only API and Wait nodes, no hooks
 * (the test case's, its folders', a node's script), no `extract`, and every assertion target one
 * of the response's status, headers, time or size (no `body`, no `nodes`, no function call). Its
 * load requests' bodies are then counted and dropped as they arrive (the prepared path's
 * `discardBody`). Conservative: a flow it cannot tell about keeps its bodies.
 */
export function readsNoBodies(testCase: Pick<TestCaseDefinition, 'flow' | 'hooks' | 'folderHooks'>): boolean {
  if (testCase.hooks || testCase.folderHooks?.length) return false;
  let blind = true;
  forEachNode(testCase.flow, (node) => {
    if (node.type === 'wait') return;
    if (node.type !== 'api' || node.script || node.extract) {
      blind = false;
      return;
    }
    for (const a of node.assertions ?? [])
      if (!BODYLESS_TARGET.test(a.target) || /body|nodes|\$/.test(a.target)) blind = false;
  });
  return blind;
}

/** Files a shard read for its parts: each ref with its file, or null when it names none. */
export interface ShardFiles {
  workspaceId: string;
  entries: Array<{ ref: string; file: FileBytes | null }>;
}

/** A part's measurements since it started (this attempt), its position and its VUs. */
export interface PartState extends PartPosition {
  metrics: LoadMetricsState;
  failures: LoadFailure[];
  activeVUs: number;
  /** The control state the part applied last (seq 0: none) and when (epoch ms). */
  control: AppliedControl;
}

/** A running part. */
export interface LoadPart {
  state(): PartState;
  stop(): void;
  /** Applies the run's control state (src/perf/engine.ts `applyControl`). */
  control(state: LoadControlState): void;
  /** Resolves when the part's profile (graceful stop included) is over. */
  done: Promise<void>;
}

/** The checks (assertions) of a test case's node results, by request name. */
function checksOf(nodes: NodeResult[] | undefined, out: Map<string, { passed: number; total: number }>): void {
  for (const node of nodes ?? []) {
    if (node.assertions?.length) {
      const name = node.name ?? node.id;
      const c = out.get(name) ?? { passed: 0, total: 0 };
      c.total += node.assertions.length;
      c.passed += node.assertions.filter((a) => a.passed).length;
      out.set(name, c);
    }
    checksOf(node.children, out);
    for (const it of node.iterationResults ?? []) checksOf(it.nodes, out);
  }
}

/**
 * The gRPC statuses each gRPC node's assertions expect (`response.status` or `response.statusName`
 * equal to, or one of, given values), by node id: such a status is not a failed request. A node
 * without such an assertion expects OK (0).
 */
function expectedGrpcStatuses(flow: FlowNode[]): Map<string, Set<number | string>> {
  const out = new Map<string, Set<number | string>>();
  forEachNode(flow, (node) => {
    if (node.type !== 'grpc') return;
    const codes = new Set<number | string>();
    for (const a of node.assertions ?? []) {
      if (a.target.replace(/\s/g, '') !== 'response.status' && a.target.replace(/\s/g, '') !== 'response.statusName')
        continue;
      if (a.operator === 'equals') codes.add(a.expected as number | string);
      else if (a.operator === 'oneOf' && Array.isArray(a.expected))
        for (const e of a.expected) codes.add(e as number | string);
    }
    if (codes.size === 0) codes.add(0);
    out.set(node.id, codes);
  });
  return out;
}

/** A VU's ports, one per test case, and the iteration they measure for (activities/load-part.ts `portFor`). */
interface VuPorts {
  it: VuIterationContext;
  /** An iteration of the VU is under way with them. */
  running: boolean;
  deadlineMs: number;
  byTestCase: Map<string, InterpreterPort>;
}

/** Origins a VU keeps a connection of its own to, at most; requests to more go through the shared agent. */
export const VU_ORIGINS = 8;

/**
 * Each VU's own connections, one per origin (k6: a VU's connections are its own), for the prepared
 * request path (activities/prepared-request.ts): a request goes straight to its VU's connection,
 * not through a pool that looks for a free one among every VU's. A connection already carrying a
 * request of the same VU (a Parallel node's lanes) is not lent twice: the request then goes through
 * the shared agent. Without `connect` (a part made without an address policy) none is lent.
 */
export class VuConnections {
  private readonly byVu = new Map<number, Map<string, { client: Dispatcher; busy: boolean }>>();

  constructor(private readonly connect?: (origin: string) => Dispatcher) {}

  /** What VU `vu`'s requests borrow a connection from (PreparedOptions `connection`). */
  of(vu: number): ((origin: string) => LentConnection | undefined) | undefined {
    const connect = this.connect;
    if (!connect) return undefined;
    return (origin) => {
      let mine = this.byVu.get(vu);
      if (!mine) this.byVu.set(vu, (mine = new Map()));
      let entry = mine.get(origin);
      if (!entry) {
        if (mine.size >= VU_ORIGINS) return undefined;
        entry = { client: connect(origin), busy: false };
        mine.set(origin, entry);
      }
      if (entry.busy) return undefined;
      const held = entry;
      held.busy = true;
      return { dispatcher: held.client, release: () => void (held.busy = false) };
    };
  }

  /** Closes every connection (requests under way fail as aborted). */
  close(): void {
    for (const mine of this.byVu.values())
      for (const { client } of mine.values()) void client.destroy().catch(() => undefined);
    this.byVu.clear();
  }
}

/**
 * Starts a part over `ports` (a direct port factory, activities/direct-port.ts). `files`: where its
 * requests read files (the shard's cache, activities/files.ts): read once per shard, not per request.
 */
export function startLoadPart(
  spec: LoadPartSpec,
  ports: (options: DirectPortOptions) => InterpreterPort,
  files?: FileSource,
  connect?: (origin: string) => Dispatcher,
): LoadPart {
  const { plan, part, parts } = spec;
  const connections = new VuConnections(connect);
  const profile = { ...plan.performance!.profile, shards: parts };
  const metrics = new LoadMetrics();
  const failures: LoadFailure[] = [];
  let started = spec.resume?.started ?? 0;
  // Requests are named by their API node's name, or its id (threshold tag `name`).
  const requestNames = new Map(
    plan.testCases.map((tc) => {
      const names = new Map<string, string>();
      forEachNode(tc.flow, (node) => void (node.name && names.set(node.id, node.name)));
      return [tc.id, names];
    }),
  );
  const grpcStatuses = new Map(plan.testCases.map((tc) => [tc.id, expectedGrpcStatuses(tc.flow)]));
  // HTTP statuses an API node's status assertions expect (k6's expectedStatuses; else 200–399).
  const httpStatuses = new Map(plan.testCases.map((tc) => [tc.id, expectedHttpStatuses(tc.flow)]));
  // The prepared request path (activities/prepared-request.ts), bodies dropped where nothing reads them.
  const prepared = new Map(
    plan.testCases.map((tc) => [
      tc.id,
      spec.requestPath === 'general' ? undefined : { discardBody: readsNoBodies(tc) },
    ]),
  );

  /**
   * VU `vu`'s port for `testCase` (its API and gRPC calls measured), made once per VU and test case
   * and kept while its iterations follow one another: a port is a few dozen closures, and making one
   * per test case per iteration cost a good share of the CPU per request (docs/benchmarks.md "Load
   * generation"). An iteration that starts while the VU's last one is still running (abandoned at a
   * ramp-down, still finishing its request) gets new ones, so that the old one's late calls are
   * judged by its own `live()`; a new deadline (a pause moved it) too.
   */
  const vuPorts = new Map<number, VuPorts>();
  const portsOf = (it: VuIterationContext): VuPorts => {
    let own = vuPorts.get(it.vu);
    if (!own || own.running || own.deadlineMs !== it.deadlineMs) {
      own = { it, running: false, deadlineMs: it.deadlineMs, byTestCase: new Map() };
      vuPorts.set(it.vu, own);
    }
    own.it = it;
    return own;
  };
  const portFor = (owner: VuPorts, testCase: TestCaseDefinition): InterpreterPort => {
    const made = owner.byTestCase.get(testCase.id);
    if (made) return made;
    const port = ports({
      runId: spec.runId,
      settings: plan.settings,
      deadlineMs: owner.deadlineMs,
      ...(plan.servers ? { servers: plan.servers } : {}),
      ...(plan.mockScope ? { mockScope: { workspaceId: plan.workspaceId, scope: plan.mockScope } } : {}),
      ...(files ? { files } : {}),
      workspaceId: plan.workspaceId,
      ...(prepared.get(testCase.id)
        ? { prepared: { ...prepared.get(testCase.id)!, connection: connections.of(owner.it.vu) } }
        : {}),
    });
    const executeApiNode = port.executeApiNode;
    const names = requestNames.get(testCase.id);
    port.executeApiNode = async (nodeInput, summary) => {
      const out = await executeApiNode(nodeInput, summary);
      if (owner.it.live()) {
        const body = out.request.body;
        const files = out.exchange?.sentFiles;
        const sent =
          out.request.url.length +
          (files
            ? (files.file?.size ?? 0) + (files.parts ?? []).reduce((n, p) => n + p.size, 0)
            : body === undefined
              ? 0
              : typeof body === 'string'
                ? Buffer.byteLength(body)
                : Buffer.byteLength(JSON.stringify(body)));
        const name = names?.get(nodeInput.label) ?? nodeInput.label;
        const expected = httpStatuses.get(testCase.id)?.get(nodeInput.label);
        const last = out.attempts.length - 1;
        out.attempts.forEach((a, i) =>
          metrics.recordRequest({
            name,
            testCase: testCase.name,
            durationMs: a.timeMs,
            status: a.error ? undefined : a.status,
            failed: httpRequestFailed(a.error ? undefined : a.status, expected),
            bytesSent: sent,
            bytesReceived: i === last ? (out.exchange?.size ?? 0) : 0,
            endedAtMs: Date.now(),
          }),
        );
      }
      return out;
    };
    // gRPC nodes' calls are requests too, named alike; bytes: the messages' protobuf sizes.
    const callGrpc = port.callGrpc;
    if (callGrpc) {
      const expected = grpcStatuses.get(testCase.id);
      port.callGrpc = async (input, summary) => {
        const out = await callGrpc(input, summary);
        if (owner.it.live()) {
          const ok = expected?.get(input.label) ?? new Set([0]);
          metrics.recordRequest({
            name: names?.get(input.label) ?? input.label,
            testCase: testCase.name,
            durationMs: out.timeMs,
            failed: out.code === undefined || !(ok.has(out.code) || (out.status !== undefined && ok.has(out.status))),
            bytesSent: out.sentSize ?? 0,
            bytesReceived: out.size,
            endedAtMs: Date.now(),
          });
        }
        return out;
      };
    }
    owner.byTestCase.set(testCase.id, port);
    return port;
  };

  const engine = new LoadEngine(
    profile,
    part,
    async (it) => {
      const row = started * parts + part;
      started += 1;
      const iterationStart = Date.now();
      let iterationFailed = false;
      // With the runner's `variableScope: 'run'`, a VU iteration passes variables from test case to
      // test case as a functional run does (workflows/run.ts); else each starts from these.
      let variables: Record<string, unknown> = { ...plan.variables, __VU: it.vu, __ITER: it.iteration };
      const own = portsOf(it);
      own.running = true;
      try {
        for (const testCase of plan.testCases) {
          if (!it.live()) return;
          const data: Record<string, unknown> = {};
          for (const [name, rows] of Object.entries(testCase.dataSets))
            if (rows.length > 0) data[name] = rows[row % rows.length];
          const port = portFor(own, testCase);
          const testCaseStart = Date.now();
          let result;
          try {
            const ran = await FlowInterpreter.runTestCaseWithVariables(
              port,
              testCase,
              { ...variables, __DATA: data },
              testCaseAuth(plan, testCase),
            );
            result = ran.result;
            if (plan.variableScope === 'run') {
              const { __DATA: _data, ...carried } = ran.variables;
              variables = { ...carried, __VU: it.vu, __ITER: it.iteration };
            }
          } catch (err) {
            if (err instanceof DeadlineReached) return; // cut by the graceful stop: the engine counts it interrupted
            throw err;
          }
          if (!it.live()) return;
          const failed = result.status === 'failed';
          iterationFailed ||= failed;
          metrics.recordTestCase(testCase.name, Date.now() - testCaseStart, failed);
          if (result.assertions > 0) {
            const checks = new Map<string, { passed: number; total: number }>();
            checksOf(result.nodes, checks);
            for (const [name, c] of checks) metrics.recordChecks(name, testCase.name, c.passed, c.total);
          }
          for (const f of result.failures)
            if (failures.length < KEPT_LOAD_FAILURES)
              failures.push({ ...f, testCase: testCase.name, vu: it.vu, iteration: it.iteration });
        }
      } finally {
        own.running = false;
      }
      if (it.live()) metrics.recordVuIteration(Date.now() - iterationStart, iterationFailed);
    },
    spec.resume?.position ?? { elapsedMs: 0, nextArrival: 0 },
    {
      vus: (active, now) => metrics.setVUs(active, now),
      dropped: () => (metrics.droppedIterations += 1),
      interrupted: () => (metrics.interruptedIterations += 1),
    },
  );
  if (spec.control) engine.applyControl(spec.control);
  return {
    state: () => ({
      metrics: metrics.state(),
      failures: [...failures],
      position: engine.position(),
      started,
      activeVUs: engine.activeVUs(),
      control: engine.appliedControl(),
    }),
    stop: () => engine.stop(),
    control: (state) => engine.applyControl(state),
    // The VUs' connections close with the part (a part on the activity's thread leaves none behind).
    done: engine.run().finally(() => connections.close()),
  };
}
