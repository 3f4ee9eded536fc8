/**
 * The load generator of performance runs (docs/performance.md): activities on the load task queue
 * (`<task queue>-load`), one per shard of a run's load profile.
 *
 * `runLoadShard` drives the shard's part of the profile with the load engine (src/perf/engine.ts);
 * each iteration of a virtual user runs the runner's test cases through the same interpreter as a
 * functional run, over its direct port (activities/direct-port.ts: API nodes through the address
 * policy's pooled keep-alive agent, scripts in the sandbox). Every request is measured
 * (src/perf/metrics.ts), every assertion counted as a check.
 *
 * Durability: every {@link HEARTBEAT_MS} the shard heartbeats its checkpoint — cumulative
 * measurements (HDR histograms, counts, the time series), its position in the profile, sample
 * failures — and writes the same to `run_load_shards` for the API's live figures. A worker crash or
 * a Temporal restart fails the heartbeat; the next attempt (on any worker) starts from the last
 * heartbeat's checkpoint: the profile continues where it stopped and nothing measured before it is
 * lost or counted twice. At the end the final state is heartbeated, then stored (a retry of an
 * ended shard only stores it again); `completePerformanceRun` (activities/runs.ts) merges the shards.
 */
import { hostname } from 'node:os';
import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { Agent } from 'undici';
import { Run, RunLoadShard } from '../src/store/entities';
import { jsonValue } from '../src/store/entities/columns';
import type { NodeResult, RunPlan } from '../src/domain/types';
import type { Sandbox } from '../src/sandbox/sandbox';
import { LoadEngine, type EnginePosition } from '../src/perf/engine';
import { LoadMetrics, type LoadMetricsState } from '../src/perf/metrics';
import { DeadlineReached, FlowInterpreter, type Failure } from '../workflows/interpreter';
import { directPorts } from './direct-port';
import { forEachNode } from '../src/domain/flow';

/** Milliseconds between checkpoints (heartbeat and stored snapshot). */
export const HEARTBEAT_MS = 1000;
/** Sample failures a shard keeps (the first ones). */
export const KEPT_FAILURES = 20;

/** Input of one shard. */
export interface LoadShardInput {
  runId: string;
  /** 0-based. */
  shard: number;
}

/** A failure kept as a sample, with where it happened. */
export interface LoadFailure extends Failure {
  testCase: string;
  vu: number;
  iteration: number;
}

/** What a shard heartbeats: enough to resume after a crash. */
export interface LoadCheckpoint {
  position: EnginePosition;
  metrics: LoadMetricsState;
  failures: LoadFailure[];
  /** Iterations this shard started (feeds data-set rows round robin). */
  started: number;
}

/** What a shard returns (its measurements are stored in `run_load_shards`). */
export interface LoadShardOutcome {
  shard: number;
  requests: number;
  iterations: number;
  /** The attempt that finished it (more than 1 after a crash). */
  attempt: number;
  worker: string;
}

/** Worker identity as Temporal writes it (`<pid>@<host>`). */
export const WORKER_IDENTITY = `${process.pid}@${hostname()}`;

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
 * Stores a shard's snapshot unless a later attempt already stored one (a zombie attempt, cut off
 * from Temporal but still running, must not overwrite its successor's figures).
 */
async function storeSnapshot(dataSource: DataSource, runId: string, shard: number, attempt: number, activeVUs: number, checkpoint: LoadCheckpoint): Promise<void> {
  await dataSource.transaction(async (manager) => {
    const repo = manager.getRepository(RunLoadShard);
    const existing = await repo.findOne({ select: { attempt: true }, where: { runId, shard } });
    if (existing && existing.attempt > attempt) return;
    await repo.save({ runId, shard, attempt, worker: WORKER_IDENTITY, activeVUs, position: jsonValue(checkpoint.position), metrics: jsonValue(checkpoint.metrics), failures: jsonValue(checkpoint.failures), updatedAt: new Date() });
  });
}

/**
 * The load task queue's activities. `agent` is the address policy's agent for API nodes; `sandbox`
 * runs scripts (contexts per run and test case, shared by the shard's VUs).
 */
export function createLoadActivities(deps: { dataSource: DataSource; sandbox: Sandbox; agent: Agent }) {
  const { dataSource } = deps;
  const ports = directPorts({ sandbox: deps.sandbox, agent: deps.agent });

  return {
    /** Runs shard `shard` of a performance run's profile to its end; resumes from the last heartbeat. */
    async runLoadShard(input: LoadShardInput): Promise<LoadShardOutcome> {
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      const run = await dataSource.getRepository(Run).createQueryBuilder('run').addSelect('run.plan').where('run.id = :id', { id: input.runId }).getOne();
      const plan = run?.plan as RunPlan | null | undefined;
      if (!plan?.performance) throw new Error(`Run ${input.runId} has no performance plan`);
      const { profile } = plan.performance;
      const resume = ctx.info.heartbeatDetails as LoadCheckpoint | undefined;
      const metrics = new LoadMetrics(resume?.metrics);
      const failures: LoadFailure[] = resume?.failures ?? [];
      let started = resume?.started ?? 0;
      // Requests are named by their API node's name, or its id (threshold tag `name`).
      const requestNames = new Map(plan.testCases.map((tc) => {
        const names = new Map<string, string>();
        forEachNode(tc.flow, (node) => void (node.name && names.set(node.id, node.name)));
        return [tc.id, names];
      }));
      if (resume) ctx.log.info('resuming load shard from its last heartbeat', { runId: input.runId, shard: input.shard, elapsedMs: resume.position.elapsedMs, attempt });

      const engine = new LoadEngine(
        profile,
        input.shard,
        async (it) => {
          const row = started * profile.shards + input.shard;
          started += 1;
          const iterationStart = Date.now();
          let iterationFailed = false;
          const variables: Record<string, unknown> = { ...plan.variables, __VU: it.vu, __ITER: it.iteration };
          for (const testCase of plan.testCases) {
            if (!it.live()) return;
            const data = Object.fromEntries(Object.entries(testCase.dataSets).filter(([, rows]) => rows.length > 0).map(([name, rows]) => [name, rows[row % rows.length]]));
            const port = ports({ runId: input.runId, settings: plan.settings, deadlineMs: it.deadlineMs });
            const executeApiNode = port.executeApiNode;
            port.executeApiNode = async (nodeInput, summary) => {
              const out = await executeApiNode(nodeInput, summary);
              if (it.live()) {
                const sent = Buffer.byteLength(out.request.url) + (out.request.body === undefined ? 0 : Buffer.byteLength(typeof out.request.body === 'string' ? out.request.body : JSON.stringify(out.request.body)));
                const name = requestNames.get(testCase.id)?.get(nodeInput.label) ?? nodeInput.label;
                for (const a of out.attempts) {
                  metrics.recordRequest({ name, testCase: testCase.name, durationMs: a.timeMs, status: a.error ? undefined : a.status, bytesSent: sent, bytesReceived: a === out.attempts[out.attempts.length - 1] ? (out.exchange?.size ?? 0) : 0, endedAtMs: Date.now() });
                }
              }
              return out;
            };
            const testCaseStart = Date.now();
            let result;
            try {
              result = await FlowInterpreter.runTestCase(port, testCase, { ...variables, __DATA: data });
            } catch (err) {
              if (err instanceof DeadlineReached) return; // cut by the graceful stop: the engine counts it interrupted
              throw err;
            }
            if (!it.live()) return;
            const failed = result.status === 'failed';
            iterationFailed ||= failed;
            metrics.recordTestCase(testCase.name, Date.now() - testCaseStart, failed);
            const checks = new Map<string, { passed: number; total: number }>();
            checksOf(result.nodes, checks);
            for (const [name, c] of checks) metrics.recordChecks(name, testCase.name, c.passed, c.total);
            for (const f of result.failures) if (failures.length < KEPT_FAILURES) failures.push({ ...f, testCase: testCase.name, vu: it.vu, iteration: it.iteration });
          }
          if (it.live()) metrics.recordIteration(Date.now() - iterationStart, iterationFailed);
        },
        resume?.position ?? { elapsedMs: 0, nextArrival: 0 },
        {
          vus: (active, now) => metrics.setVUs(active, now),
          dropped: () => (metrics.droppedIterations += 1),
          interrupted: () => (metrics.interruptedIterations += 1),
        },
      );

      const checkpoint = (): LoadCheckpoint => ({ position: engine.position(), metrics: metrics.state(), failures, started });
      let writing: Promise<void> | undefined;
      const tick = setInterval(() => {
        const cp = checkpoint();
        ctx.heartbeat(cp);
        // Live figures for the API: best effort, one write at a time (a slow database skips ticks).
        writing ??= storeSnapshot(dataSource, input.runId, input.shard, attempt, engine.activeVUs(), cp)
          .catch((err) => ctx.log.warn('load snapshot not stored', { error: String(err) }))
          .finally(() => (writing = undefined));
      }, HEARTBEAT_MS);
      const onCancel = () => engine.stop();
      ctx.cancellationSignal.addEventListener('abort', onCancel);
      try {
        await engine.run();
      } finally {
        clearInterval(tick);
        ctx.cancellationSignal.removeEventListener('abort', onCancel);
      }
      await writing;
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? new Error('cancelled');
      const final = checkpoint();
      // Heartbeat first: a retry after a failed store resumes at the end and only stores again.
      ctx.heartbeat(final);
      await storeSnapshot(dataSource, input.runId, input.shard, attempt, 0, final);
      return { shard: input.shard, requests: metrics.all.requests, iterations: metrics.all.iterations, attempt, worker: WORKER_IDENTITY };
    },
  };
}

export type LoadActivities = ReturnType<typeof createLoadActivities>;
