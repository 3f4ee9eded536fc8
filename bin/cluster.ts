/**
 * Assay's production topology on this machine, without Docker (docs/cluster.md):
 * a real Temporal server (every service in one `temporal-server start` process, on PostgreSQL,
 * configured by deploy/temporal/config.yaml), the Temporal Web UI server when it could be built,
 * and Assay as separate processes: the API, N workers (`ASSAY_WORKERS`, default 2) and the bundler,
 * on MariaDB/MySQL.
 *
 *   node dist/bin/cluster.js up                starts what is not running, waits until it is ready,
 *                                              prints the URLs and the dev API key (idempotent)
 *   node dist/bin/cluster.js down              stops everything (SIGTERM, then SIGKILL after a grace period)
 *   node dist/bin/cluster.js status            one line per process: pid, running or not, address
 *   node dist/bin/cluster.js restart <name>    stops one process (temporal, temporal-ui, api,
 *                                              bundler, worker-<i>) and brings the cluster up again
 *
 * Pid files, logs and `state.json` (URLs and the dev key, mode 0600) live in `.assay/cluster/`
 * (`CLUSTER_DIR`). Settings (environment; defaults in brackets): `CLUSTER_TEMPORAL_PORT` [7233],
 * `CLUSTER_PORT_OFFSET` [0: added to every default port, the Temporal server's included],
 * `CLUSTER_TEMPORAL_UI_PORT` [8233], `CLUSTER_TEMPORAL_METRICS_PORT` [8000], `CLUSTER_API_PORT`
 * [8080], `CLUSTER_BUNDLER_PORT` [8081], `CLUSTER_MOCK_PORT` [8082: the API's mocks on a port of
 * their own, ASSAY_MOCK_PORT], `CLUSTER_WORKER_HTTP_PORT_BASE` [9463: worker i gets
 * base + i], `CLUSTER_DATABASE_URL` [mysql://root@127.0.0.1:3306/assay_cluster], `ASSAY_WORKERS`
 * [2], `TEMPORAL_NAMESPACE` [default], `ASSAY_CACHE` [~/.cache/assay], and the `TEMPORAL_SERVER_*`
 * variables of deploy/temporal/config.yaml (PostgreSQL address and user, the other Temporal ports).
 * Exit status: 0 on success; 1 with a message on stderr when something could not be started.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { pollerPids } from '../src/temporal/pollers';
import mysql from 'mysql2/promise';
import { loadConfig, withLocalDevelopmentEgress } from '../src/config';
import { openDataSource } from '../src/store/data-source';
import { ensureDevKey } from './processes';

/** The repository this file was compiled in (dist/bin/cluster.js → ../..). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
const SERVER_VERSION = '1.30.8';
const UI_VERSION = '2.42.1';

/** A process of the cluster, as `status` and `state.json` describe it. */
export interface ClusterProcess {
  /** `temporal`, `temporal-ui`, `api`, `bundler`, `worker-1`, … */
  name: string;
  pid: number | null;
  running: boolean;
  /** What it serves, when it serves something (`http://127.0.0.1:8080`, `127.0.0.1:7233`). */
  address?: string;
  log: string;
}

/** `.assay/cluster/state.json`: what the cluster tests (test/helpers/cluster.ts) read. */
export interface ClusterState {
  apiUrl: string;
  bundlerUrl: string;
  /** The mocks' own port (ASSAY_MOCK_PORT of the API): `{mockUrl}/mock/{workspaceId}{path}`. */
  mockUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | null;
  temporalMetricsUrl: string;
  namespace: string;
  taskQueue: string;
  databaseUrl: string;
  apiKey: string;
  workers: Array<{ name: string; httpPort: number }>;
  dir: string;
}

/** The cluster's settings, from the environment (see the file's docstring). */
export interface ClusterSettings {
  dir: string;
  cache: string;
  temporalPort: number;
  temporalUiPort: number;
  temporalMetricsPort: number;
  apiPort: number;
  bundlerPort: number;
  mockPort: number;
  workerHttpPortBase: number;
  /**
   * The Temporal server's other ports (deploy/temporal/config.yaml `TEMPORAL_SERVER_*_PORT`: the
   * frontend's HTTP port, history, matching and worker services and their membership ports), moved
   * by `CLUSTER_PORT_OFFSET` like the rest; a `TEMPORAL_SERVER_*` variable set in the environment wins.
   */
  temporalServerPorts: Record<string, number>;
  workers: number;
  namespace: string;
  taskQueue: string;
  databaseUrl: string;
}

function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = 65_535): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** The Temporal server's ports besides the frontend's gRPC port, with deploy/temporal/config.yaml's defaults. */
const TEMPORAL_SERVER_PORTS: Record<string, number> = {
  TEMPORAL_SERVER_FRONTEND_HTTP_PORT: 7243,
  TEMPORAL_SERVER_HISTORY_PORT: 7234,
  TEMPORAL_SERVER_MATCHING_PORT: 7235,
  TEMPORAL_SERVER_WORKER_PORT: 7239,
  TEMPORAL_SERVER_FRONTEND_MEMBERSHIP_PORT: 6933,
  TEMPORAL_SERVER_HISTORY_MEMBERSHIP_PORT: 6934,
  TEMPORAL_SERVER_MATCHING_MEMBERSHIP_PORT: 6935,
  TEMPORAL_SERVER_WORKER_MEMBERSHIP_PORT: 6939,
};

/** Reads the settings; throws on a malformed number. */
export function clusterSettings(env: NodeJS.ProcessEnv = process.env): ClusterSettings {
  // Every default port moves by the offset (CI runs its cluster beside a developer's `make dev`).
  const offset = intEnv(env, 'CLUSTER_PORT_OFFSET', 0, 0, 50_000);
  const port = (name: string, fallback: number) => intEnv(env, name, fallback + offset, 1);
  const temporalServerPorts = Object.fromEntries(
    Object.entries(TEMPORAL_SERVER_PORTS).map(([name, fallback]) => [name, port(name, fallback)]),
  );
  return {
    dir: path.resolve(REPO_ROOT, env.CLUSTER_DIR || '.assay/cluster'),
    cache: env.ASSAY_CACHE || path.join(os.homedir(), '.cache', 'assay'),
    temporalPort: port('CLUSTER_TEMPORAL_PORT', 7233),
    temporalUiPort: port('CLUSTER_TEMPORAL_UI_PORT', 8233),
    temporalMetricsPort: port('CLUSTER_TEMPORAL_METRICS_PORT', 8000),
    apiPort: port('CLUSTER_API_PORT', 8080),
    bundlerPort: port('CLUSTER_BUNDLER_PORT', 8081),
    mockPort: port('CLUSTER_MOCK_PORT', 8082),
    workerHttpPortBase: port('CLUSTER_WORKER_HTTP_PORT_BASE', 9463),
    temporalServerPorts,
    workers: intEnv(env, 'ASSAY_WORKERS', 2, 1, 64),
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.ASSAY_TASK_QUEUE || 'assay-runs',
    databaseUrl: env.CLUSTER_DATABASE_URL || 'mysql://root@127.0.0.1:3306/assay_cluster',
  };
}

function binaries(s: ClusterSettings) {
  const server = path.join(s.cache, `temporal-server-${SERVER_VERSION}`, 'bin');
  return {
    server: path.join(server, 'temporal-server'),
    sqlTool: path.join(server, 'temporal-sql-tool'),
    ui: path.join(s.cache, `temporal-ui-server-${UI_VERSION}`, 'bin', 'temporal-ui-server'),
    cli: process.env.TEMPORAL_CLI_PATH || 'temporal',
  };
}

/** The process names of a cluster with these settings, in start order. */
export function processNames(s: ClusterSettings): string[] {
  return [
    'temporal',
    'temporal-ui',
    'api',
    'bundler',
    ...Array.from({ length: s.workers }, (_, i) => `worker-${i + 1}`),
  ];
}

const pidFile = (s: ClusterSettings, name: string) => path.join(s.dir, `${name}.pid`);
const logFile = (s: ClusterSettings, name: string) => path.join(s.dir, `${name}.log`);
/** The state file's path. */
export const stateFile = (s: ClusterSettings) => path.join(s.dir, 'state.json');

/** A marker on each process's command line, so that a recycled pid is never taken for ours. */
function marker(s: ClusterSettings, name: string): string {
  return name.startsWith('temporal') ? binaries(s)[name === 'temporal' ? 'server' : 'ui'] : `dist/bin/main.js`;
}

/** The pid in `<name>.pid` when that process still runs (and is the one we started), else null. */
export function livePid(s: ClusterSettings, name: string): number | null {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(pidFile(s, name), 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // A zombie (state Z, killed but not yet reaped by its parent) is not running.
    if (/^\d+ \(.*\) Z/.test(stat)) return null;
    return cmdline.includes(marker(s, name)) ? pid : null;
  } catch {
    return null;
  }
}

function log(message: string): void {
  process.stderr.write(`[cluster] ${message}\n`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every `everyMs` until it returns true; throws `what` after `timeoutMs`. */
async function waitFor(
  what: string,
  timeoutMs: number,
  check: () => Promise<boolean> | boolean,
  everyMs = 500,
  alive?: () => boolean,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    if (alive && !alive()) throw new Error(`${what}: the process exited`);
    await sleep(everyMs);
  }
  throw new Error(`${what}: not ready after ${Math.round(timeoutMs / 1000)} s`);
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** Starts `command` detached (it outlives this program), output appended to `<name>.log`, pid in `<name>.pid`. */
function launch(s: ClusterSettings, name: string, command: string, args: string[], env: NodeJS.ProcessEnv): number {
  const out = fs.openSync(logFile(s, name), 'a');
  fs.writeSync(out, `\n--- ${new Date().toISOString()} starting ${name}: ${command} ${args.join(' ')}\n`);
  const child = spawn(command, args, { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  if (!child.pid) throw new Error(`could not start ${name} (${command})`);
  child.unref();
  fs.writeFileSync(pidFile(s, name), `${child.pid}\n`);
  return child.pid;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): { ok: boolean; out: string } {
  const r = spawnSync(command, args, { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 120_000 });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/** The environment deploy/temporal/config.yaml is rendered with. */
function temporalEnv(s: ClusterSettings): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...Object.fromEntries(Object.entries(s.temporalServerPorts).map(([name, port]) => [name, String(port)])),
    TEMPORAL_SERVER_FRONTEND_PORT: String(s.temporalPort),
    TEMPORAL_SERVER_METRICS_ADDRESS: `127.0.0.1:${s.temporalMetricsPort}`,
    TEMPORAL_SERVER_DYNAMIC_CONFIG: path.join(REPO_ROOT, 'deploy', 'temporal', 'dynamicconfig.yaml'),
  };
}

/**
 * Creates the two PostgreSQL databases when missing and brings their schemas up to date
 * (deploy/temporal/setup-schema.sh, which docker-compose.yml runs too); idempotent.
 */
function setupTemporalSchema(s: ClusterSettings): void {
  const r = run(path.join(REPO_ROOT, 'deploy', 'temporal', 'setup-schema.sh'), [], {
    ...process.env,
    TEMPORAL_SQL_TOOL: binaries(s).sqlTool,
  });
  if (!r.ok) throw new Error(`Temporal's schema could not be set up on PostgreSQL:\n${r.out}`);
}

function temporalHealthy(s: ClusterSettings): boolean {
  const r = run(binaries(s).cli, [
    'operator',
    'cluster',
    'health',
    '--address',
    `127.0.0.1:${s.temporalPort}`,
    '--command-timeout',
    '3s',
  ]);
  return r.ok && /SERVING/.test(r.out);
}

/** Registers the namespace when missing (deploy/temporal/register-namespace.sh, which docker-compose.yml runs too). */
function ensureNamespace(s: ClusterSettings): void {
  const r = run(path.join(REPO_ROOT, 'deploy', 'temporal', 'register-namespace.sh'), [], {
    ...process.env,
    TEMPORAL_CLI: binaries(s).cli,
    TEMPORAL_ADDRESS: `127.0.0.1:${s.temporalPort}`,
    TEMPORAL_NAMESPACE: s.namespace,
  });
  if (!r.ok) throw new Error(`namespace ${s.namespace} could not be registered:\n${r.out}`);
}

async function startTemporal(s: ClusterSettings): Promise<void> {
  if (livePid(s, 'temporal')) {
    log(`temporal: running (pid ${livePid(s, 'temporal')})`);
    return;
  }
  if (!(await portFree(s.temporalPort)))
    throw new Error(`port ${s.temporalPort} (CLUSTER_TEMPORAL_PORT) is taken by another program`);
  log('temporal: schema (PostgreSQL)');
  setupTemporalSchema(s);
  const config = path.join(REPO_ROOT, 'deploy', 'temporal', 'config.yaml');
  const pid = launch(
    s,
    'temporal',
    binaries(s).server,
    ['--config-file', config, '--allow-no-auth', 'start'],
    temporalEnv(s),
  );
  log(`temporal: started (pid ${pid}), waiting for 127.0.0.1:${s.temporalPort}`);
  await waitFor(
    'the Temporal server',
    180_000,
    () => temporalHealthy(s),
    1000,
    () => livePid(s, 'temporal') !== null,
  );
}

async function startUi(s: ClusterSettings): Promise<string | null> {
  const { ui } = binaries(s);
  if (!fs.existsSync(ui)) {
    log('temporal-ui: not built (scripts/ensure-temporal-server.sh), running without the Web UI');
    return null;
  }
  const url = `http://127.0.0.1:${s.temporalUiPort}`;
  if (!livePid(s, 'temporal-ui')) {
    if (!(await portFree(s.temporalUiPort)))
      throw new Error(`port ${s.temporalUiPort} (CLUSTER_TEMPORAL_UI_PORT) is taken by another program`);
    const root = path.join(s.dir, 'ui');
    fs.mkdirSync(path.join(root, 'config'), { recursive: true });
    // The UI server reads <root>/config/<env>.yaml (github.com/temporalio/ui-server config/development.yaml).
    fs.writeFileSync(
      path.join(root, 'config', 'cluster.yaml'),
      [
        `temporalGrpcAddress: 127.0.0.1:${s.temporalPort}`,
        'host: 127.0.0.1',
        `port: ${s.temporalUiPort}`,
        'enableUi: true',
        `defaultNamespace: ${s.namespace}`,
        'cors:',
        '  cookieInsecure: true',
        '  allowOrigins:',
        `    - ${url}`,
        'auth:',
        '  enabled: false',
        '',
      ].join('\n'),
    );
    const pid = launch(
      s,
      'temporal-ui',
      ui,
      ['--root', root, '--config', 'config', '--env', 'cluster', 'start'],
      process.env,
    );
    log(`temporal-ui: started (pid ${pid})`);
  }
  await waitFor(
    'the Temporal UI server',
    60_000,
    () => httpOk(url),
    500,
    () => livePid(s, 'temporal-ui') !== null,
  );
  return url;
}

/** Creates the Assay database named in the URL when it does not exist (MySQL/MariaDB). */
async function ensureAssayDatabase(s: ClusterSettings): Promise<void> {
  const url = new URL(s.databaseUrl);
  const db = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!db) throw new Error('CLUSTER_DATABASE_URL must name a database (mysql://user@host:port/name)');
  if (!/^[A-Za-z0-9_]+$/.test(db)) throw new Error(`database name "${db}" must be letters, digits and _`);
  const server = new URL(s.databaseUrl);
  server.pathname = '/';
  const conn = await mysql.createConnection({ uri: server.toString(), connectTimeout: 5000 });
  try {
    await conn.query(`CREATE DATABASE IF NOT EXISTS \`${db}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await conn.end();
  }
}

/** The environment of the Assay processes (API, workers, bundler). */
function assayEnv(s: ClusterSettings, uiUrl: string | null, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: s.databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${s.temporalPort}`,
    TEMPORAL_NAMESPACE: s.namespace,
    ASSAY_TASK_QUEUE: s.taskQueue,
    ASSAY_HOST: '127.0.0.1',
    ASSAY_PORT: String(s.apiPort),
    ASSAY_PUBLIC_URL: `http://127.0.0.1:${s.apiPort}`,
    ASSAY_BUNDLER_PORT: String(s.bundlerPort),
    ASSAY_BUNDLER_PUBLIC_URL: `http://127.0.0.1:${s.bundlerPort}`,
    ASSAY_DATA_DIR: path.join(s.dir, 'data'),
    ...extra,
  };
  if (uiUrl) env.TEMPORAL_UI_URL = uiUrl;
  // As `main.js dev`: local development egress (loopback, where local services and the cluster
  // tests' targets listen) unless the environment says otherwise.
  return withLocalDevelopmentEgress(env);
}

const NODE_ARGS = ['--no-node-snapshot', '--enable-source-maps', 'dist/bin/main.js'];

async function startAssayHttp(
  s: ClusterSettings,
  name: 'api' | 'bundler',
  port: number,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const url = `http://127.0.0.1:${port}`;
  if (!livePid(s, name)) {
    if (!(await portFree(port)))
      throw new Error(`port ${port} (CLUSTER_${name.toUpperCase()}_PORT) is taken by another program`);
    const pid = launch(s, name, process.execPath, [...NODE_ARGS, name], env);
    log(`${name}: started (pid ${pid})`);
  }
  // Ready: /readyz answers 200 (its store, and for the API Temporal, reachable; docs/operations.md).
  await waitFor(
    name,
    120_000,
    () => httpOk(`${url}/readyz`),
    500,
    () => livePid(s, name) !== null,
  );
  return url;
}

/** Pids of the processes polling the run task queue for activity tasks (src/temporal/pollers.ts). */
async function runQueuePollers(s: ClusterSettings): Promise<Set<number>> {
  const connection = await Connection.connect({ address: `127.0.0.1:${s.temporalPort}`, connectTimeout: '3 seconds' });
  try {
    return await pollerPids(connection.workflowService, { namespace: s.namespace, taskQueue: s.taskQueue });
  } finally {
    await connection.close();
  }
}

async function startWorkers(
  s: ClusterSettings,
  uiUrl: string | null,
): Promise<Array<{ name: string; httpPort: number }>> {
  const workers: Array<{ name: string; httpPort: number }> = [];
  for (let i = 1; i <= s.workers; i += 1) {
    const name = `worker-${i}`;
    const httpPort = s.workerHttpPortBase + i;
    workers.push({ name, httpPort });
    if (livePid(s, name)) continue;
    const pid = launch(
      s,
      name,
      process.execPath,
      [...NODE_ARGS, 'worker'],
      assayEnv(s, uiUrl, { ASSAY_WORKER_HTTP_PORT: String(httpPort) }),
    );
    log(`${name}: started (pid ${pid})`);
  }
  // Ready: Temporal lists the worker's pid among the task queue's pollers, and its /readyz answers 200.
  await waitFor(
    'the workers polling the task queue',
    120_000,
    async () => {
      const polling = await runQueuePollers(s).catch(() => new Set<number>());
      for (const w of workers) {
        const pid = livePid(s, w.name);
        if (pid === null || !polling.has(pid) || !(await httpOk(`http://127.0.0.1:${w.httpPort}/readyz`))) return false;
      }
      return true;
    },
    1000,
    () => workers.every((w) => livePid(s, w.name) !== null),
  );
  return workers;
}

/** The dev key of workspace `default` (bin/processes.ts ensureDevKey), kept in the cluster's data folder. */
async function devKey(s: ClusterSettings): Promise<string> {
  const config = loadConfig(assayEnv(s, null));
  const ds = await openDataSource(config.database);
  try {
    return await ensureDevKey(config, ds);
  } finally {
    await ds.destroy();
  }
}

/** `up`: starts what is not running, waits for each part to be ready, writes state.json. */
export async function up(s: ClusterSettings = clusterSettings()): Promise<ClusterState> {
  fs.mkdirSync(s.dir, { recursive: true, mode: 0o700 });
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'bin', 'main.js')))
    throw new Error('dist/ is missing: run `make build` first');
  const { server, sqlTool } = binaries(s);
  if (!fs.existsSync(server) || !fs.existsSync(sqlTool)) {
    log('building the Temporal server and its SQL tool (scripts/ensure-temporal-server.sh)');
    const r = spawnSync(path.join(REPO_ROOT, 'scripts', 'ensure-temporal-server.sh'), {
      stdio: 'inherit',
      env: { ...process.env, ASSAY_CACHE: s.cache },
    });
    if (r.status !== 0) throw new Error('the Temporal server could not be built');
  }
  await startTemporal(s);
  ensureNamespace(s);
  const uiUrl = await startUi(s).catch((err: Error) => {
    log(`temporal-ui: ${err.message}; going on without the Web UI (log: ${logFile(s, 'temporal-ui')})`);
    return null;
  });
  await ensureAssayDatabase(s);
  const apiUrl = await startAssayHttp(s, 'api', s.apiPort, assayEnv(s, uiUrl, { ASSAY_MOCK_PORT: String(s.mockPort) }));
  const bundlerUrl = await startAssayHttp(s, 'bundler', s.bundlerPort, assayEnv(s, uiUrl));
  const workers = await startWorkers(s, uiUrl);
  const apiKey = await devKey(s);
  const state: ClusterState = {
    apiUrl,
    bundlerUrl,
    mockUrl: `http://127.0.0.1:${s.mockPort}`,
    temporalAddress: `127.0.0.1:${s.temporalPort}`,
    temporalUiUrl: uiUrl,
    temporalMetricsUrl: `http://127.0.0.1:${s.temporalMetricsPort}/metrics`,
    namespace: s.namespace,
    taskQueue: s.taskQueue,
    databaseUrl: s.databaseUrl,
    apiKey,
    workers,
    dir: s.dir,
  };
  fs.writeFileSync(stateFile(s), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  return state;
}

/** Stops one process: SIGTERM to its process group, SIGKILL after `graceMs`. */
export async function stop(s: ClusterSettings, name: string, graceMs = 20_000): Promise<boolean> {
  const pid = livePid(s, name);
  if (pid === null) {
    fs.rmSync(pidFile(s, name), { force: true });
    return false;
  }
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        /* already gone */
      }
    }
  };
  signal('SIGTERM');
  const until = Date.now() + graceMs;
  while (Date.now() < until && livePid(s, name) !== null) await sleep(200);
  if (livePid(s, name) !== null) {
    log(`${name}: still running ${graceMs / 1000} s after SIGTERM, SIGKILL`);
    signal('SIGKILL');
    await waitFor(`${name} to end`, 10_000, () => livePid(s, name) === null, 100);
  }
  fs.rmSync(pidFile(s, name), { force: true });
  return true;
}

/** Every process name with a pid file (also workers beyond today's ASSAY_WORKERS). */
function knownNames(s: ClusterSettings): string[] {
  const names = new Set(processNames(s));
  if (fs.existsSync(s.dir)) for (const f of fs.readdirSync(s.dir)) if (f.endsWith('.pid')) names.add(f.slice(0, -4));
  return [...names];
}

/** `down`: stops the Assay processes first (workers, bundler, API), then the UI and Temporal. */
export async function down(s: ClusterSettings = clusterSettings()): Promise<void> {
  const names = knownNames(s);
  const order = [...names.filter((n) => n.startsWith('worker-')), 'bundler', 'api', 'temporal-ui', 'temporal'];
  await Promise.all(order.filter((n) => n.startsWith('worker-')).map((n) => stop(s, n)));
  for (const name of order.filter((n) => !n.startsWith('worker-'))) await stop(s, name);
  fs.rmSync(stateFile(s), { force: true });
}

/** `status`: every process with its pid and whether it runs. */
export function status(s: ClusterSettings = clusterSettings()): ClusterProcess[] {
  const address: Record<string, string> = {
    temporal: `127.0.0.1:${s.temporalPort}`,
    'temporal-ui': `http://127.0.0.1:${s.temporalUiPort}`,
    api: `http://127.0.0.1:${s.apiPort}`,
    bundler: `http://127.0.0.1:${s.bundlerPort}`,
  };
  return knownNames(s).map((name) => {
    const pid = livePid(s, name);
    const worker = /^worker-(\d+)$/.exec(name);
    return {
      name,
      pid,
      running: pid !== null,
      address: address[name] ?? (worker ? `http://127.0.0.1:${s.workerHttpPortBase + Number(worker[1])}` : undefined),
      log: logFile(s, name),
    };
  });
}

function printState(state: ClusterState): void {
  process.stdout.write(
    [
      '',
      'The Assay cluster is running (docs/cluster.md).',
      `  Console:          ${state.apiUrl}/   (sign in with the dev API key below)`,
      `  API:              ${state.apiUrl}/v1   (health: ${state.apiUrl}/healthz)`,
      `  Bundler:          ${state.bundlerUrl}/api/bundle`,
      `  Mocks:            ${state.mockUrl}/mock/{workspaceId}/…   (their own port: runs may call them)`,
      `  Workers:          ${state.workers.map((w) => `${w.name} (http 127.0.0.1:${w.httpPort})`).join(', ')}`,
      `  Temporal:         ${state.temporalAddress} (namespace ${state.namespace}; metrics ${state.temporalMetricsUrl})`,
      `  Temporal Web UI:  ${state.temporalUiUrl ?? 'not running (the UI server did not build)'}`,
      `  Store:            ${state.databaseUrl}`,
      `  Dev API key:      ${state.apiKey}`,
      `  Logs, pids:       ${state.dir}`,
      '',
      `  Try: curl -H "Authorization: Bearer ${state.apiKey}" ${state.apiUrl}/v1/workspaces`,
      '  Stop with: make cluster-down',
      '',
    ].join('\n'),
  );
}

async function main(argv: string[]): Promise<number> {
  const [command, arg] = argv;
  const s = clusterSettings();
  switch (command) {
    case 'up':
      printState(await up(s));
      return 0;
    case 'down':
      await down(s);
      log('stopped');
      return 0;
    case 'status': {
      const rows = status(s);
      for (const p of rows)
        process.stdout.write(
          `${p.name.padEnd(12)} ${p.running ? `running  pid ${String(p.pid).padEnd(8)}` : 'stopped           '} ${p.address ?? ''}\n`,
        );
      return rows.every((p) => p.running || p.name === 'temporal-ui') ? 0 : 3;
    }
    case 'restart': {
      if (!arg || !knownNames(s).includes(arg)) throw new Error(`usage: cluster restart <${knownNames(s).join('|')}>`);
      await stop(s, arg);
      printState(await up(s));
      return 0;
    }
    default:
      throw new Error('usage: cluster up | down | status | restart <process>');
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      log(err.message);
      process.exit(1);
    },
  );
}
