/**
 * The load generator of performance runs (docs/performance.md): activities on the load task queue
 * (`<task queue>-load`), one per shard of a run's load profile.
 *
 * `runLoadShard` runs the shard as `threads` parts (activities/load-part.ts), one per worker thread
 * (activities/load-thread.ts; `ASSAY_LOAD_THREADS`, default one per core) or, with one thread, on the
 * activity's own: each part's virtual users run the runner's test cases through the
 * same interpreter as a functional run, over its direct port (API nodes on the prepared path,
 * activities/prepared-request.ts, over each VU's own connections, or through the address policy's
 * pooled keep-alive agent; scripts in a sandbox).
 *
 * Durability: every {@link HEARTBEAT_MS} the shard heartbeats its checkpoint — cumulative
 * measurements of all its parts (HDR histograms, counts, the time series), each part's position in
 * the profile, sample failures — and writes the same to `run_load_shards` for the API's live
 * figures. A worker crash or a Temporal restart fails the heartbeat; the next attempt (on any
 * worker) starts from the last heartbeat's checkpoint, with the checkpoint's thread count: the
 * profile continues where it stopped and nothing measured before it is lost or counted twice. At the
 * end the final state is heartbeated, then stored (a retry of an ended shard only stores it again);
 * `completePerformanceRun` (activities/runs.ts) merges the shards.
 *
 * Live control (src/domain/load-control.ts): the shard reads its run's control row
 * (`run_load_controls`) when it starts — so a resumed attempt continues paused, scaled or stopping —
 * and every {@link CONTROL_POLL_MS}, and hands each newer state to its parts. The stored snapshot's
 * `position.control` says which command the shard applied and when ({@link ShardControl}).
 */
import { hostname } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Context } from '@temporalio/activity';
import type { Dispatcher } from 'undici';
import type { DataSource } from 'typeorm';
import type { AssayConfig } from '../src/config';
import { RunLoadShard } from '../src/store/entities';
import { jsonValue } from '../src/store/entities/columns';
import type { RequestSpec, RunPlan } from '../src/domain/types';
import { LoadMetrics, type LoadMetricsState } from '../src/perf/metrics';
import { peakVUs } from '../src/perf/profile';
import type { DirectPortOptions } from './direct-port';
import type { InterpreterPort } from '../src/flow';
import { keyRingFor } from '../src/secrets/keyring';
import { openPlan } from '../src/secrets/run-plan';
import { findRunWithPlan } from '../src/store/runs';
import type { SecretMasker } from '../src/secrets/mask';
import {
  startLoadPart,
  type LoadPart,
  type LoadPartSpec,
  type PartPosition,
  type PartState,
  type ShardFiles,
} from './load-part';
import { FileCache, literalFileRefs, storeFileReader } from './files';
import { KEPT_LOAD_FAILURES, type LoadFailure } from '../src/perf/test-case-results';
import type { LoadThreadCommand, LoadThreadData, LoadThreadMessage } from './load-thread';
import { CONTROL_POLL_MS, type LoadControlState } from '../src/domain/load-control';
import { readLoadControl } from '../src/store/load-control';
import type { AppliedControl } from '../src/perf/engine';

/** Milliseconds between checkpoints (heartbeat and stored snapshot). */
export const HEARTBEAT_MS = 1000;

/** Input of one shard. */
export interface LoadShardInput {
  runId: string;
  /** 0-based. */
  shard: number;
}

/** What a shard heartbeats: enough to resume after a crash. */
export interface LoadCheckpoint {
  /** Parts the shard runs in (threads); a resumed attempt keeps it, so every part finds its position. */
  threads: number;
  /** Each part's position, by thread. */
  parts: PartPosition[];
  /** Measurements of the whole shard so far (all attempts). */
  metrics: LoadMetricsState;
  failures: LoadFailure[];
}

/** What a shard returns (its measurements are stored in `run_load_shards`). */
export interface LoadShardOutcome {
  shard: number;
  requests: number;
  iterations: number;
  /** The attempt that finished it (more than 1 after a crash). */
  attempt: number;
  threads: number;
  worker: string;
}

/**
 * What a shard's stored snapshot (`run_load_shards.position.control`) says of live control: the
 * command number all its parts applied (`seq`, 0: none), when the last of them applied it (epoch
 * ms), and whether the shard is paused (every part's clock stopped).
 */
export interface ShardControl {
  seq: number;
  appliedAt: number;
  paused: boolean;
}

/** The shard's view of its parts' applied control. */
export function shardControl(parts: AppliedControl[]): ShardControl {
  const seq = Math.min(...parts.map((p) => p.seq));
  const at = parts.filter((p) => p.seq === seq).map((p) => p.appliedAt);
  return { seq, appliedAt: Math.max(0, ...at), paused: parts.length > 0 && parts.every((p) => p.paused) };
}

/** Worker identity as Temporal writes it (`<pid>@<host>`). */
export const WORKER_IDENTITY = `${process.pid}@${hostname()}`;

/**
 * Stores a shard's snapshot unless a later attempt already stored one (a zombie attempt, cut off
 * from Temporal but still running, must not overwrite its successor's figures).
 */
async function storeSnapshot(
  dataSource: DataSource,
  runId: string,
  shard: number,
  attempt: number,
  activeVUs: number,
  checkpoint: LoadCheckpoint,
  masker: SecretMasker,
  control: ShardControl,
): Promise<void> {
  await dataSource.transaction(async (manager) => {
    const repo = manager.getRepository(RunLoadShard);
    const existing = await repo.findOne({ select: { attempt: true }, where: { runId, shard } });
    if (existing && existing.attempt > attempt) return;
    const elapsedMs = Math.min(...checkpoint.parts.map((p) => p.position.elapsedMs));
    await repo.save({
      runId,
      shard,
      attempt,
      worker: WORKER_IDENTITY,
      activeVUs,
      position: jsonValue({ elapsedMs, nextArrival: 0, control }),
      metrics: jsonValue(checkpoint.metrics),
      // Sample failures carry URLs and messages: the run's secrets are masked (docs/security.md "Secrets").
      failures: jsonValue(masker.maskDeep(checkpoint.failures)),
      updatedAt: new Date(),
    });
  });
}

/**
 * Reads the files `plan`'s API and Poll nodes (sub-flows included) name literally into `files`
 * (scope `runId`), in one store read: what the shard's parts send. Undefined when they name none.
 */
async function preloadFiles(files: FileCache, runId: string, plan: RunPlan): Promise<ShardFiles | undefined> {
  const requests: RequestSpec[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const node = value as { type?: unknown; request?: RequestSpec };
      if ((node.type === 'api' || node.type === 'poll') && node.request) requests.push(node.request);
      for (const child of Object.values(value)) if (child && typeof child === 'object') walk(child);
    }
  };
  walk(plan.testCases.map((tc) => tc.flow));
  const refs = literalFileRefs(requests);
  if (refs.length === 0) return undefined;
  const found = await files.read(runId, plan.workspaceId, refs);
  return { workspaceId: plan.workspaceId, entries: refs.map((ref) => ({ ref, file: found.get(ref) ?? null })) };
}

const liveThreads = new Set<Worker>();

/**
 * The load threads of this process that are running now (for memory measurements: the soak bench
 * samples their heaps with `getHeapStatistics()` and writes `getHeapSnapshot()`s of them).
 */
export function liveLoadThreads(): Worker[] {
  return [...liveThreads];
}

/** A part on a worker thread, seen from the activity: its latest state. */
function threadPart(spec: LoadPartSpec, config: AssayConfig): LoadPart {
  const worker = new Worker(path.join(__dirname, 'load-thread.js'), {
    workerData: { spec, config, stateMs: HEARTBEAT_MS } satisfies LoadThreadData,
  });
  liveThreads.add(worker);
  worker.once('exit', () => liveThreads.delete(worker));
  const empty = new LoadMetrics().state();
  let latest: PartState = {
    metrics: empty,
    failures: [],
    position: spec.resume?.position ?? { elapsedMs: 0, nextArrival: 0 },
    started: spec.resume?.started ?? 0,
    activeVUs: 0,
    control: { seq: 0, appliedAt: 0, paused: false, stopped: false },
  };
  const done = new Promise<void>((resolve, reject) => {
    worker.on('message', (m: LoadThreadMessage) => {
      latest = m.state;
      if (m.type === 'done') {
        void worker.terminate();
        resolve();
      }
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      code === 0 || code === 1 ? resolve() : reject(new Error(`load thread exited with code ${code}`)),
    );
  });
  return {
    state: () => latest,
    stop: () => {
      worker.postMessage({ type: 'stop' } satisfies LoadThreadCommand);
      setTimeout(() => void worker.terminate(), 2000).unref();
    },
    control: (state) => worker.postMessage({ type: 'control', state } satisfies LoadThreadCommand),
    done,
  };
}

/**
 * The load task queue's activities. `ports` makes the direct ports of parts on the activity's own
 * thread; `config` is given to worker threads; `threads` parts per shard (1: no worker threads).
 */
export function createLoadActivities(deps: {
  dataSource: DataSource;
  ports: (options: DirectPortOptions) => InterpreterPort;
  config: AssayConfig;
  threads: number;
  /** A VU's own connection to an origin (`AddressPolicy.connection`), for parts on the activity's thread. */
  connect?: (origin: string) => Dispatcher;
}) {
  const { dataSource } = deps;

  return {
    /** Runs shard `shard` of a performance run's profile to its end; resumes from the last heartbeat. */
    async runLoadShard(input: LoadShardInput): Promise<LoadShardOutcome> {
      const ctx = Context.current();
      const attempt = ctx.info.attempt;
      const run = await findRunWithPlan(dataSource.manager, input.runId);
      const stored = run?.plan as RunPlan | null | undefined;
      if (!stored?.performance) throw new Error(`Run ${input.runId} has no performance plan`);
      // The stored plan keeps secret variables sealed: open them for the VUs, mask them in what is stored.
      const { plan, masker } = openPlan(stored, keyRingFor(deps.config.secretKeys, deps.config.dataDir));
      const { profile } = plan.performance!;
      const resume = ctx.info.heartbeatDetails as LoadCheckpoint | undefined;
      // Each thread runs at least one VU.
      const threads =
        resume?.threads ?? Math.max(1, Math.min(deps.threads, Math.floor(peakVUs(profile) / profile.shards)));
      if (resume)
        ctx.log.info('resuming load shard from its last heartbeat', {
          runId: input.runId,
          shard: input.shard,
          attempt,
          threads,
        });

      // The run's control state now: a resumed attempt continues as commanded (paused, scaled, stopping).
      let control: LoadControlState | null = await readLoadControl(dataSource, input.runId);
      // Files requests send (docs/flows.md "Files"): those the flows name literally read once, here,
      // before the clock starts; threads get the bytes, a part on this thread this cache.
      const files = new FileCache(storeFileReader(dataSource));
      const shardFiles = await preloadFiles(files, input.runId, plan);
      const parts = Array.from({ length: threads }, (_, t) => {
        const spec: LoadPartSpec = {
          runId: input.runId,
          plan,
          part: input.shard * threads + t,
          parts: profile.shards * threads,
          resume: resume?.parts[t],
          requestPath: deps.config.load.requestPath,
          ...(control ? { control } : {}),
        };
        return threads === 1
          ? startLoadPart(spec, deps.ports, files, deps.connect)
          : threadPart({ ...spec, ...(shardFiles ? { files: shardFiles } : {}) }, deps.config);
      });
      const checkpoint = (): { checkpoint: LoadCheckpoint; activeVUs: number; control: ShardControl } => {
        const states = parts.map((p) => p.state());
        // Measurements of earlier attempts (the resumed checkpoint's) plus this attempt's parts.
        const metrics = new LoadMetrics(resume?.metrics);
        for (const s of states) metrics.add(new LoadMetrics(s.metrics));
        const failures = [...(resume?.failures ?? []), ...states.flatMap((s) => s.failures)].slice(
          0,
          KEPT_LOAD_FAILURES,
        );
        return {
          checkpoint: {
            threads,
            parts: states.map((s) => ({ position: s.position, started: s.started })),
            metrics: metrics.state(),
            failures,
          },
          activeVUs: states.reduce((n, s) => n + s.activeVUs, 0),
          control: shardControl(states.map((s) => s.control)),
        };
      };
      let writing: Promise<void> | undefined;
      const tick = setInterval(() => {
        const { checkpoint: cp, activeVUs, control: applied } = checkpoint();
        ctx.heartbeat(cp);
        // Live figures for the API: best effort, one write at a time (a slow database skips ticks).
        writing ??= storeSnapshot(dataSource, input.runId, input.shard, attempt, activeVUs, cp, masker, applied)
          .catch((err) => ctx.log.warn('load snapshot not stored', { error: String(err) }))
          .finally(() => (writing = undefined));
      }, HEARTBEAT_MS);
      // Commands: a newer control state goes to every part (a failed read is tried again next time).
      let polling = false;
      const poll = setInterval(() => {
        if (polling) return;
        polling = true;
        readLoadControl(dataSource, input.runId)
          .then((state) => {
            if (!state || (control && state.seq <= control.seq)) return;
            control = state;
            for (const p of parts) p.control(state);
          })
          .catch((err) => ctx.log.warn('load control not read', { error: String(err) }))
          .finally(() => (polling = false));
      }, CONTROL_POLL_MS);
      const onCancel = () => parts.forEach((p) => p.stop());
      ctx.cancellationSignal.addEventListener('abort', onCancel);
      try {
        await Promise.all(parts.map((p) => p.done));
      } catch (err) {
        parts.forEach((p) => p.stop());
        throw err;
      } finally {
        clearInterval(tick);
        clearInterval(poll);
        ctx.cancellationSignal.removeEventListener('abort', onCancel);
      }
      await writing;
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? new Error('cancelled');
      const { checkpoint: final, control: applied } = checkpoint();
      // Heartbeat first: a retry after a failed store resumes at the end and only stores again.
      ctx.heartbeat(final);
      await storeSnapshot(dataSource, input.runId, input.shard, attempt, 0, final, masker, applied);
      return {
        shard: input.shard,
        requests: final.metrics.all.requests,
        iterations: final.metrics.all.iterations,
        attempt,
        threads,
        worker: WORKER_IDENTITY,
      };
    },
  };
}

export type LoadActivities = ReturnType<typeof createLoadActivities>;
