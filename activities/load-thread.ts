/**
 * A worker thread running one part of a load shard (activities/load-part.ts), so that one worker
 * process makes load on several cores (`ASSAY_LOAD_THREADS`). Started by activities/load.ts with
 * `workerData: { spec, config }` (the configuration structured-cloned; its egress rules are parsed
 * again here). Posts `{ type: 'state', state }` every `stateMs` and `{ type: 'done', state }` at the
 * end; `{ type: 'stop' }` stops it at once; `{ type: 'control', state }` applies the run's control state. It has its own sandbox, address policy agent and (only
 * if a script loads a stored library) database connection. Before its clock starts it warms the
 * load path up against a server of its own ({@link warmUp}), unless it resumes a shard whose
 * earlier attempt was lost (`spec.resume` set): the load is already waiting for it then.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { Agent } from 'undici';
import type { TestCaseDefinition } from '../src/domain/types';
import { FlowInterpreter } from '../src/flow';
import type { DataSource } from 'typeorm';
import type { AssayConfig } from '../src/config';
import { parseRule, policyFromConfig } from '../src/net/address-policy';
import { openDataSource } from '../src/store/data-source';
import { storedBlobReader } from '../src/bundler/blobs';
import type { Sandbox } from '../src/sandbox/sandbox';
import { sandboxFromConfig } from '../src/sandbox/configured';
import { directPorts } from './direct-port';
import { AuthProfiles } from '../src/auth/apply';
import { keyRingFor } from '../src/secrets/keyring';
import { startLoadPart, type LoadPartSpec, type PartState } from './load-part';
import { FileCache, storeFileReader } from './files';
import type { LoadControlState } from '../src/domain/load-control';

/** Messages a load thread posts. */
export type LoadThreadMessage = { type: 'state' | 'done'; state: PartState };

/** Messages a load thread takes: stop at once, or apply the run's control state (answered by a `state` message). */
export type LoadThreadCommand = { type: 'stop' } | { type: 'control'; state: LoadControlState };

/** What the thread is started with. */
export interface LoadThreadData {
  spec: LoadPartSpec;
  config: AssayConfig;
  stateMs: number;
}

/** The configuration after a structured clone: rules parsed again (their addresses are class instances). */
export function reviveConfig(config: AssayConfig): AssayConfig {
  return {
    ...config,
    egress: {
      ...config.egress,
      allow: config.egress.allow.map((r) => parseRule(r.text)),
      deny: config.egress.deny.map((r) => parseRule(r.text)),
    },
  };
}

/**
 * Iterations of the warm-up ({@link warmUp}) of a part's first attempt. A resumed part (a later
 * attempt after a lost host, `LoadPartSpec.resume` set) does none: on a 2-core machine the warm-up
 * took ~0.4 s of the ~1.2 s between a resumed attempt's start and its first request (thread start-up
 * most of the rest), which is load the target does not get; its first second runs on colder code.
 */
export const WARM_UP_ITERATIONS = 300;

/**
 * Runs the load path (interpreter, node executor, HTTP client, assertions) a few hundred times
 * against a server inside this thread before the part's clock starts, so that the first seconds of
 * the real load do not run on cold code (measured: p95 42 ms instead of 23 ms in the first second
 * with a 20 ms target). No request leaves the thread; nothing is measured.
 */
async function warmUp(spec: LoadPartSpec, sandbox: Sandbox): Promise<void> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new Agent({ connections: 8 });
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/warm`;
    const testCase = {
      id: 'warm-up',
      name: 'warm-up',
      dataSets: {},
      flow: [
        {
          type: 'api',
          id: 'warm',
          request: { method: 'GET', url },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    } as unknown as TestCaseDefinition;
    const ports = directPorts({ sandbox, agent });
    const lanes = Array.from({ length: 8 }, async (_, lane) => {
      for (let i = lane; i < WARM_UP_ITERATIONS; i += 8) {
        await FlowInterpreter.runTestCase(
          ports({ runId: `${spec.runId}-warm-up`, settings: spec.plan.settings, deadlineMs: Date.now() + 10_000 }),
          testCase,
          {},
        );
      }
    });
    await Promise.all(lanes);
  } finally {
    await agent.close().catch(() => undefined);
    server.closeAllConnections();
    server.close();
  }
}

async function main(): Promise<void> {
  const { spec, stateMs } = workerData as LoadThreadData;
  const config = reviveConfig((workerData as LoadThreadData).config);
  // A connection per virtual user (no per-origin limit), as on the activity's thread (activities/index.ts).
  const policy = policyFromConfig(config, { connections: null });
  let dataSource: Promise<DataSource> | undefined;
  const blobs = (url: string) => {
    dataSource ??= openDataSource(config.database);
    return dataSource.then((ds) => storedBlobReader(ds, config.bundler)(url));
  };
  const sandbox = sandboxFromConfig(config, policy, blobs);
  // A run with auth profiles reads its tokens from the shared cache table: connect before the clock starts.
  if (spec.plan.authProfiles) dataSource ??= openDataSource(config.database);
  // A resumed part starts at once: the time a lost host costs is a gap in the load (workflows/performance.ts).
  const warm = spec.resume ? undefined : warmUp(spec, sandbox).catch(() => undefined);
  await Promise.all([warm, dataSource?.catch(() => undefined)]);
  // Auth profiles' tokens: this thread's memory cache in front of the shared table (src/auth/token-cache.ts).
  const auth = new AuthProfiles(keyRingFor(config.secretKeys, config.dataDir), policy.agent('node'), () => {
    dataSource ??= openDataSource(config.database);
    return dataSource;
  });
  // Files: those the shard read before starting (the flows' literal refs), any other read once here.
  const files = new FileCache(
    storeFileReader(() => {
      dataSource ??= openDataSource(config.database);
      return dataSource;
    }),
  );
  if (spec.files)
    files.seed(
      spec.runId,
      spec.files.workspaceId,
      // A structured clone makes Buffers plain Uint8Arrays: view them as Buffers again (no copy).
      spec.files.entries.map(({ ref, file }) => ({
        ref,
        file: file
          ? { ...file, bytes: Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength) }
          : null,
      })),
    );
  const part = startLoadPart(
    spec,
    directPorts({ sandbox, agent: policy.agent('node'), auth, policy }),
    files,
    (origin) => policy.connection('node', origin),
  );
  parentPort!.on('message', (m: LoadThreadCommand) => {
    if (m.type === 'stop') part.stop();
    else if (m.type === 'control') {
      part.control(m.state);
      // The activity's checkpoint learns at once that (and when) the command was applied.
      parentPort!.postMessage({ type: 'state', state: part.state() } satisfies LoadThreadMessage);
    }
  });
  const tick = setInterval(
    () => parentPort!.postMessage({ type: 'state', state: part.state() } satisfies LoadThreadMessage),
    stateMs,
  );
  try {
    await part.done;
  } finally {
    clearInterval(tick);
  }
  parentPort!.postMessage({ type: 'done', state: part.state() } satisfies LoadThreadMessage);
  await sandbox.releaseRun(spec.runId).catch(() => undefined);
  if (dataSource) await (await dataSource).destroy().catch(() => undefined);
  parentPort!.close();
}

// A failure rejects unhandled: the parent sees the thread's error event and fails the attempt (it retries from the last heartbeat).
if (parentPort) void main();
