/**
 * A worker thread running one part of a load shard (activities/load-part.ts), so that one worker
 * process makes load on every core (`ASSAY_LOAD_THREADS`). Started by activities/load.ts with
 * `workerData: { spec, config }` (the configuration structured-cloned; its egress rules are parsed
 * again here). Posts `{ type: 'state', state }` every `stateMs` and `{ type: 'done', state }` at the
 * end; `{ type: 'stop' }` stops it at once. It has its own sandbox, address policy agent and (only
 * if a script loads a stored library) database connection.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { DataSource } from 'typeorm';
import type { AssayConfig } from '../src/config';
import { parseRule, policyFromConfig } from '../src/net/address-policy';
import { openDataSource } from '../src/store/data-source';
import { storedBlobReader } from '../src/bundler/blobs';
import { Sandbox } from '../src/sandbox/sandbox';
import { directPorts } from './direct-port';
import { startLoadPart, type LoadPartSpec, type PartState } from './load-part';

/** Messages a load thread posts. */
export type LoadThreadMessage = { type: 'state' | 'done'; state: PartState };

/** What the thread is started with. */
export interface LoadThreadData {
  spec: LoadPartSpec;
  config: AssayConfig;
  stateMs: number;
}

/** The configuration after a structured clone: rules parsed again (their addresses are class instances). */
export function reviveConfig(config: AssayConfig): AssayConfig {
  return { ...config, egress: { ...config.egress, allow: config.egress.allow.map((r) => parseRule(r.text)), deny: config.egress.deny.map((r) => parseRule(r.text)) } };
}

async function main(): Promise<void> {
  const { spec, stateMs } = workerData as LoadThreadData;
  const config = reviveConfig((workerData as LoadThreadData).config);
  const policy = policyFromConfig(config);
  let dataSource: Promise<DataSource> | undefined;
  const blobs = (url: string) => {
    dataSource ??= openDataSource(config.database);
    return dataSource.then((ds) => storedBlobReader(ds, config.bundler.publicUrl)(url));
  };
  const sandbox = new Sandbox({
    memoryLimitMb: config.scripts.memoryLimitMb,
    timeoutMs: config.scripts.timeoutMs,
    fetchTimeoutMs: config.scripts.fetchTimeoutMs,
    maxFetchBytes: config.scripts.maxFetchBytes,
    maxContexts: config.scripts.maxContexts,
    localLibrary: blobs,
    policy,
  });
  const part = startLoadPart(spec, directPorts({ sandbox, agent: policy.agent('node') }));
  parentPort!.on('message', (m: { type: string }) => {
    if (m.type === 'stop') part.stop();
  });
  const tick = setInterval(() => parentPort!.postMessage({ type: 'state', state: part.state() } satisfies LoadThreadMessage), stateMs);
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

if (parentPort) {
  main().catch((err: unknown) => {
    // The parent sees the thread's error event and fails the attempt (it retries from the last heartbeat).
    throw err;
  });
}
