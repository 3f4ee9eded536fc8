/**
 * The running cluster (`make cluster`, bin/cluster.ts, docs/cluster.md) for the tests in
 * test/cluster/. They run only when `ASSAY_CLUSTER=1` (`make test-cluster` sets it); otherwise
 * {@link clusterUnderTest} answers null and the suites skip. The cluster's URLs and dev key come
 * from `.assay/cluster/state.json` (`CLUSTER_DIR`), each overridable: `ASSAY_CLUSTER_API_URL`,
 * `ASSAY_CLUSTER_API_KEY`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ClusterState } from '../../bin/cluster';
import { clusterSettings, livePid, stateFile } from '../../bin/cluster';
import { readReply, type Reply } from './app';

/** The repository root (dist/test/helpers → ../../..). */
const ROOT = path.resolve(__dirname, '..', '..', '..');
const CLUSTER_JS = path.join(ROOT, 'dist', 'bin', 'cluster.js');

/** A JSON answer of the cluster's API (the test app's reply shape). */
export type ClusterReply<T = any> = Reply<T>;

/** The cluster the tests talk to. */
export interface ClusterUnderTest {
  state: ClusterState;
  /** Calls the cluster's API with the dev key; JSON in and out. A connection error throws. */
  request<T = any>(
    method: string,
    urlPath: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ClusterReply<T>>;
}

/** The cluster when ASSAY_CLUSTER=1 and state.json is there; else null (the suite skips). */
export function clusterUnderTest(): ClusterUnderTest | null {
  if (process.env.ASSAY_CLUSTER !== '1') return null;
  const file = stateFile(clusterSettings());
  if (!fs.existsSync(file)) throw new Error(`ASSAY_CLUSTER=1 but ${file} is missing: run \`make cluster\` first`);
  const state = JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterState;
  if (process.env.ASSAY_CLUSTER_API_URL) state.apiUrl = process.env.ASSAY_CLUSTER_API_URL.replace(/\/$/, '');
  if (process.env.ASSAY_CLUSTER_API_KEY) state.apiKey = process.env.ASSAY_CLUSTER_API_KEY;
  return {
    state,
    async request(method, urlPath, body, headers = {}) {
      const res = await fetch(`${state.apiUrl}${urlPath}`, {
        method,
        headers: {
          authorization: `Bearer ${state.apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      return readReply(res);
    },
  };
}

/** Runs `node dist/bin/cluster.js <args>` (bounded by `timeoutMs`); resolves with its output, rejects on a non-zero exit. */
export function clusterCommand(args: string[], timeoutMs = 300_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLUSTER_JS, ...args], {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`cluster ${args.join(' ')} exited ${code}:\n${out}`));
    });
  });
}

/** kill -9 of one cluster process (`temporal`, `api`, `worker-1`, …); returns the pid killed. */
export function killCluster(name: string): number {
  const pid = livePid(clusterSettings(), name);
  if (pid === null) throw new Error(`cluster process ${name} is not running`);
  process.kill(pid, 'SIGKILL');
  return pid;
}

/** The pid of a cluster process, or null when it is not running. */
export function clusterPid(name: string): number | null {
  return livePid(clusterSettings(), name);
}
