/**
 * Assay configuration, read once from environment variables.
 *
 * Every setting has a default that works on a developer machine with nothing but Node 24 and the
 * Temporal dev server. README.md ("Configuration") lists the same variables for users.
 *
 * Units: every `*Ms` field is milliseconds, every `*Seconds` field is seconds, sizes are bytes.
 * A variable that is set but malformed stops start-up with a {@link ConfigError} naming it.
 */
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { parseSecretKeys } from './secrets/keyring';
import { parseRules, type EgressRule, type PrivateAccess } from './net/address-policy';
import { RUN_SETTING_NAMES, type RunSettings } from './domain/types';
import { ROLES, type Role } from './teams/roles';

/** Which store the service uses: MySQL/MariaDB when `DATABASE_URL` is set, else an embedded SQLite file. */
export type DatabaseConfig = { type: 'mysql'; url: string } | { type: 'sqlite'; file: string };

/**
 * How long a request of the API (and its `/readyz` store check) waits on a MySQL/MariaDB store
 * before it is answered 503 `database-unavailable` (src/store/bounds.ts; docs/operations.md
 * "When the database is away"). Migrations, background sweeps, the bundler's requests and the
 * worker's activities are not bounded: they wait for the database. SQLite ignores both.
 */
export interface DatabaseTimeouts {
  /**
   * Wait for a pool connection, ms (`ASSAY_DATABASE_ACQUIRE_TIMEOUT_MS`, default 1000): the pool is
   * busy, or a new connection gets no greeting from the server.
   */
  acquireTimeoutMs: number;
  /**
   * Wait for one statement's answer, ms (`ASSAY_DATABASE_QUERY_TIMEOUT_MS`, default 1000), from the
   * moment it is issued; past it the connection is closed and taken out of the pool. A statement
   * that legitimately runs longer is answered 503 too: raise it for such a store.
   */
  queryTimeoutMs: number;
}

export interface AssayConfig {
  /** Folder for the embedded database, the dev API key and other local state (`ASSAY_DATA_DIR`, default `.assay`). */
  dataDir: string;
  /**
   * The secret key ring (`ASSAY_SECRET_KEYS`: `id:key,…`, the first encrypts; src/secrets/keyring.ts).
   * Undefined: a key generated into `<dataDir>/secret-keys`.
   */
  secretKeys?: string;
  database: DatabaseConfig;
  /** Bounded waits of requests on the store ({@link DatabaseTimeouts}). */
  databaseTimeouts: DatabaseTimeouts;
  temporal: {
    /** gRPC address of the Temporal frontend (`TEMPORAL_ADDRESS`, default `127.0.0.1:7233`). */
    address: string;
    /** Temporal namespace (`TEMPORAL_NAMESPACE`, default `default`). */
    namespace: string;
    /** Task queue of run workflows and their activities (`ASSAY_TASK_QUEUE`, default `assay-runs`). */
    taskQueue: string;
    /** Base URL of the Temporal Web UI, used for links in run documents (`TEMPORAL_UI_URL`). */
    uiUrl: string;
    /**
     * Workflow task timeout of run workflows (`ASSAY_WORKFLOW_TASK_TIMEOUT_MS`, default 2000; Temporal's
     * own default is 10 s). A task held by a worker that was killed is handed to another worker after
     * this long, so it bounds what a worker crash costs a run (docs/benchmarks.md, "Worker kills").
     */
    workflowTaskTimeoutMs: number;
    /**
     * How long a workflow task waits on a worker's sticky queue before any worker may take it
     * (`ASSAY_STICKY_TIMEOUT_MS`, default 1000; the SDK's default is 10 s).
     */
    stickyTimeoutMs: number;
    /**
     * Activities (per-node activities, test case segments, bookkeeping) one worker runs at once
     * (`ASSAY_WORKER_ACTIVITY_SLOTS`, default 100, the SDK's). Local activities are not counted.
     */
    activitySlots: number;
    /**
     * Per-call V8 watchdog on workflow code (`ASSAY_WORKFLOW_ISOLATE_TIMEOUT_MS`, ms; unset or 0: none,
     * the default). Node starts a thread for every watched call (about 1 ms each, several per workflow
     * activation), which capped a worker's throughput; Assay's workflow code meters user expressions
     * itself (src/temporal/workflow-worker.ts, docs/benchmarks.md "Scaling").
     */
    isolateTimeoutMs: number | undefined;
    /**
     * Origins besides the Web UI's (`TEMPORAL_UI_URL`) allowed to call the codec server from a
     * browser (`ASSAY_CODEC_CORS_ORIGINS`, comma-separated, e.g. `https://temporal.example.com`;
     * api/routes/codec.ts, docs/codec.md).
     */
    codecCorsOrigins: string[];
    /**
     * The codec server's operator credential (`ASSAY_CODEC_OPERATOR_TOKEN`, at least 32
     * characters; unset: none): a Bearer token (or a codec session signed in with it) that decodes
     * every workspace's payloads and those of no workspace (written before per-workspace keys),
     * secret values still shown as `***` (docs/codec.md "Who reads what").
     */
    codecOperatorToken: string | undefined;
  };
  /** The worker process's own HTTP server: GET /metrics, /healthz, /readyz (docs/operations.md). */
  workerHttp: {
    /** Interface it binds to (`ASSAY_HOST`, default `127.0.0.1`). */
    host: string;
    /**
     * Its port (`ASSAY_WORKER_HTTP_PORT`, default 9464; `0`: any free port). A port already taken is
     * logged as a warning and the worker runs on without the server.
     */
    port: number;
  };
  /** Performance runs' load generation (docs/performance.md). */
  load: {
    /**
     * Load shards one worker process runs at once (`ASSAY_LOAD_SHARDS_PER_WORKER`, default 2); 0: the
     * process does not poll the load task queue (`<ASSAY_TASK_QUEUE>-load`) at all.
     */
    shardsPerWorker: number;
    /**
     * A load host (`ASSAY_LOAD_ONLY`, default false): the worker process polls the load task queue only,
     * not the main one, so run workflows, functional runs' activities and the threshold watcher run
     * elsewhere and never take the load's CPU (docs/performance.md "Load from many hosts"). Needs
     * `ASSAY_LOAD_SHARDS_PER_WORKER` ≥ 1 (a process that polls nothing is refused at start-up).
     */
    only: boolean;
    /**
     * Threads one load shard runs on (`ASSAY_LOAD_THREADS`, default: the host's available
     * parallelism, `os.availableParallelism()`): each a part of the shard's VUs or rate, so one
     * worker process makes load on every core. Memory: each thread commits its own V8 heap (~175 MB
     * for ~35 MB live) and glibc gives it a malloc arena; `MALLOC_ARENA_MAX=2` (set by the image,
     * and by the Makefile for `make dev`, `make run` and the load bench) keeps RSS flat over an hour (docs/benchmarks.md "Load threads'
     * memory"). 1: the shard runs on the activity's own thread.
     */
    threads: number;
    /**
     * How load tests send API nodes (`ASSAY_LOAD_REQUEST_PATH`): `prepared` (default) sends nodes
     * that need no hooks, retries, auth or files with undici's `dispatch` and a handler of their own
     * (activities/prepared-request.ts), the same results for less CPU; `general` sends every node as
     * a functional run does (for comparison).
     */
    requestPath: 'prepared' | 'general';
  };
  api: {
    /** Interface the HTTP server binds to (`ASSAY_HOST`, default `127.0.0.1`). */
    host: string;
    /** Port of the REST API, incoming webhooks and mocks (`ASSAY_PORT`, default 8080). */
    port: number;
    /** Address users reach the API at, used in links (`ASSAY_PUBLIC_URL`). */
    publicUrl: string;
    /** Requests per minute allowed per API key before 429 (`ASSAY_RATE_LIMIT_PER_MINUTE`, default 1200). */
    rateLimitPerMinute: number;
    /**
     * How often the API looks for `queued` runs whose workflow was never started (an API process
     * killed between storing the row and starting the workflow) and starts them
     * (`ASSAY_RECOVERY_INTERVAL_MS`, default 5000). src/temporal/run-recovery.ts.
     */
    recoveryIntervalMs: number;
    /**
     * Believe `X-Forwarded-For` and `X-Forwarded-Proto` (Koa's `app.proxy`) for the client address of
     * per-address limits and for links (`ASSAY_TRUST_PROXY`, default false: set it only behind a
     * reverse proxy that overwrites those headers).
     */
    trustProxy: boolean;
    /** Largest accepted request body (`ASSAY_MAX_BODY_BYTES`, default 1 MiB). */
    maxBodyBytes: number;
    /**
     * Longest a client may take to send a whole request, headers and body, to any of Assay's HTTP
     * servers (`ASSAY_RECEIVE_TIMEOUT_MS`, default 30 s; the headers a third of it, 10 s at most):
     * 408 `request-timeout` and the connection closed past it. src/net/server-bounds.ts.
     */
    receiveTimeoutMs: number;
    /**
     * Open connections allowed per client (TCP peer) address and server
     * (`ASSAY_MAX_CONNECTIONS_PER_ADDRESS`, default 256; 0: no bound): requests on connections
     * beyond it are answered 429 `too-many-connections`. src/net/server-bounds.ts.
     */
    maxConnectionsPerAddress: number;
    /**
     * Largest body of `POST /v1/designs/import` (`ASSAY_IMPORT_MAX_BYTES`, default 32 MiB): the
     * OpenAPI descriptions big APIs publish pass 1 MiB. Parsed and sampled on a worker thread
     * (src/mock/import-pool.ts), so it does not hold up other requests.
     */
    importMaxBytes: number;
    /**
     * Heap of each OpenAPI import thread, MiB (`ASSAY_IMPORT_MEMORY_MB`, default 1024; Node's worker
     * `resourceLimits`): a document that needs more fails 422 `import-too-large`, the process goes on.
     * src/mock/import-pool.ts.
     */
    importMemoryMb: number;
    /**
     * Largest set of designs one import may make, bytes of JSON (`ASSAY_IMPORT_MAX_RESULT_BYTES`,
     * default 128 MiB): past it 422 `import-too-large`, nothing stored. src/mock/import-pool.ts.
     */
    importMaxResultBytes: number;
    /** Longest one OpenAPI import may take, ms (`ASSAY_IMPORT_TIMEOUT_MS`, default 300 s): past it 422 `import-too-large`. */
    importTimeoutMs: number;
    /**
     * Largest workspace file, bytes (`ASSAY_FILE_MAX_BYTES`, default 10 MiB; 1 GiB at most): `PUT
     * /v1/files/{name}` reads the body as a stream and stops past it, 413 `file-too-large`
     * (api/routes/files.ts, docs/api.md "Files"). The API holds up to this much per upload in memory.
     */
    fileMaxBytes: number;
    /**
     * Failed authentications (401: no, malformed, unknown or revoked key) allowed per client
     * address (TCP peer) and minute; past it every keyed request from the address is answered 429
     * `auth-rate-limited` before its key is looked up (`ASSAY_AUTH_FAILURES_PER_MINUTE`, default
     * 30). api/auth.ts, docs/security.md "Failed authentication".
     */
    authFailuresPerMinute: number;
    /**
     * Folder of the built web console served under `/` (`ASSAY_CONSOLE_DIR`, default `dist/web`
     * beside the compiled code; `npm run build` writes it). api/console.ts, docs/console.md.
     */
    consoleDir: string;
    /**
     * Requests per minute and API key allowed through `POST /v1/relay`, the console's opt-in relay
     * for local requests the browser cannot send itself (`ASSAY_RELAY_PER_MINUTE`, default 60).
     * api/routes/relay.ts, docs/api.md "Relay".
     */
    relayPerMinute: number;
  };
  /** Run settings frozen into each run's plan ({@link RunSettings}, src/domain/types.ts) and the API's run limits. */
  runs: RunSettings & {
    /** Run timeout when POST /v1/runs gives none, seconds (spec: clients use 1800). */
    defaultTimeoutSeconds: number;
    /** Largest run timeout accepted, seconds (`ASSAY_MAX_RUN_TIMEOUT_SECONDS`, default 86400). */
    maxTimeoutSeconds: number;
    /**
     * Days an ended run is kept after its `completedAt` before the API's hourly sweep deletes it with
     * its results and webhook deliveries (`ASSAY_RUN_RETENTION_DAYS`, default 0 = keep forever;
     * src/store/retention.ts).
     */
    retentionDays: number;
    /**
     * Days a test case's history rows (docs/history.md) are kept from the run they record
     * (`ASSAY_HISTORY_DAYS`, default 90; 0 = keep forever), whatever `retentionDays` deletes of the
     * runs themselves (src/store/retention.ts `sweepExpiredHistory`).
     */
    historyDays: number;
    /** The flakiness rule's n: outcomes looked at per test case, runner and environment (`ASSAY_FLAKY_WINDOW`, default 10; src/history/flaky.ts). */
    flakyWindow: number;
    /** The flakiness rule's k: flips among them that make a test case flaky (`ASSAY_FLAKY_MIN_FLIPS`, default 3). */
    flakyMinFlips: number;
  };
  /**
   * Per-workspace quotas (docs/security.md, "Quotas"). Starting a run over a
   * quota answers 429 `quota-exceeded` with `Retry-After`; a flow expecting more loop iterations
   * than allowed is refused with 422 `loop-iterations-exceeded` when saved.
   */
  quotas: {
    /**
     * Runs of one workspace `queued` or `running` at once (`ASSAY_QUOTA_CONCURRENT_RUNS`, default 20).
     * Runs started by a deployment's schedule are counted but never refused.
     */
    concurrentRuns: number;
    /** Runs one workspace may start per rolling minute (`ASSAY_QUOTA_RUNS_PER_MINUTE`, default 120). */
    runsPerMinute: number;
    /**
     * Loop iterations a test case's flow (when saved) and a run's test cases together (when it
     * starts) may expect, totalled through nesting
     * (`ASSAY_QUOTA_LOOP_ITERATIONS`, default 100000): each Loop or Iteration node counts its
     * `count` (or `maxIterations`, or ASSAY_MAX_LOOP_ITERATIONS when unknown) times those of the
     * loops around it. src/validation/flow.ts `expectedLoopIterations`.
     */
    loopIterations: number;
    /**
     * Bytes of distinct file content one workspace may store (`ASSAY_QUOTA_FILE_BYTES`, default
     * 256 MiB): files with the same content count once. An upload of new content past it is refused
     * with 429 `quota-exceeded`, `quota: "file-bytes"` (src/store/files.ts `putFile`).
     */
    fileBytes: number;
  };
  /** The script sandbox (src/sandbox/sandbox.ts). */
  scripts: {
    /** Heap limit per isolate (`ASSAY_SCRIPT_MEMORY_MB`, default 64). */
    memoryLimitMb: number;
    /** Wall time one script may take (`ASSAY_SCRIPT_TIMEOUT_MS`, default 5000). */
    timeoutMs: number;
    /** Timeout of a script's `fetch` (`ASSAY_SCRIPT_FETCH_TIMEOUT_MS`, default 10000). */
    fetchTimeoutMs: number;
    /** Largest response a script's `fetch` reads (`ASSAY_SCRIPT_MAX_FETCH_BYTES`, default 1 MiB). */
    maxFetchBytes: number;
    /** Runs whose script contexts a worker keeps at once (`ASSAY_SCRIPT_MAX_CONTEXTS`, default 16). */
    maxContexts: number;
  };
  /** Deployments: schedules and webhooks (docs/deployments.md). */
  deployments: {
    /** How often the API brings Temporal Schedules in line with the store (`ASSAY_RECONCILE_INTERVAL_MS`, default 30000). */
    reconcileIntervalMs: number;
  };
  webhooks: {
    /** First retry of a failed outgoing delivery (`ASSAY_WEBHOOK_RETRY_INITIAL_MS`, default 1000); doubles each time. */
    retryInitialMs: number;
    /** Longest wait between attempts (`ASSAY_WEBHOOK_RETRY_MAX_MS`, default 300000). */
    retryMaximumMs: number;
    /** Attempts stop this long after the first (`ASSAY_WEBHOOK_GIVE_UP_AFTER_MS`, default 24 h). */
    giveUpAfterMs: number;
  };
  mocks: {
    /** How long a process trusts its cached designs before checking for changes (`ASSAY_MOCK_REVALIDATE_MS`, default 2000). */
    revalidateMs: number;
    /** Seed of random response choice and fake data (`ASSAY_MOCK_SEED`); random when unset. */
    seed?: number;
    /**
     * A port of their own for the mocks (`ASSAY_MOCK_PORT`; unset: none, the mocks answer on the
     * API's port only; `0`: any free port), on `ASSAY_HOST`. It serves `/mock/{workspaceId}{path}`
     * and nothing else, so it is not part of the service's infrastructure: runs, scripts and the
     * console's local requests may reach it where the address policy allows its address, while the
     * API's own port stays refused (docs/mocks.md "A port of their own"). `make dev` and
     * `make cluster` use 8082.
     */
    port: number | null;
    /**
     * The address the mocks' own port is reached at, used in designs' `mockUrl`
     * (`ASSAY_MOCK_PUBLIC_URL`; unset: the API's public URL with the mock port in place of its
     * own, e.g. `http://localhost:8082` under `make dev`). null when there is no mock port (the
     * mocks answer at the API's public URL) and, for port 0, until the port is known (the API sets
     * it once listening: bin/processes.ts `startApi`).
     */
    publicUrl: string | null;
    /** Journal entries kept per workspace (`ASSAY_MOCK_JOURNAL_MAX`, default 10,000; 0 = no journal); the oldest go first. */
    journalMax: number;
    /** Seconds a journal entry is kept (`ASSAY_MOCK_JOURNAL_TTL_SECONDS`, default 86,400). */
    journalTtlSeconds: number;
    /**
     * Mock state scopes (a run's, a user's) unused this long are deleted by the API's sweep
     * (`ASSAY_MOCK_SCOPE_TTL_SECONDS`, default 86400 = one day; 1 to 30 days): docs/mocks.md "State".
     */
    scopeTtlSeconds: number;
  };
  /** The bundler service (src/bundler, docs/bundler.md): ESM libraries from a URL to one IIFE script. */
  bundler: {
    /** Interface it binds to (`ASSAY_BUNDLER_HOST`, default ASSAY_HOST). */
    host: string;
    /** Its port (`ASSAY_BUNDLER_PORT`, default 8081). */
    port: number;
    /** Address scripts and browsers reach it at, used in `blobUrl` (`ASSAY_BUNDLER_PUBLIC_URL`). */
    publicUrl: string;
    /** Whether POST /api/bundle needs an API key (`ASSAY_BUNDLER_REQUIRE_KEY`, default true). */
    requireKey: boolean;
    /** Bundle requests per minute per API key, or per client address without a key (`ASSAY_BUNDLER_RATE_LIMIT_PER_MINUTE`, default 120). */
    rateLimitPerMinute: number;
    /** Fetch from private, loopback and link-local addresses too (`ASSAY_BUNDLER_ALLOW_PRIVATE`, default false). */
    allowPrivate: boolean;
    /** Hosts (`name` or `name:port`) fetched even when they are private (`ASSAY_BUNDLER_ALLOW_HOSTS`, comma-separated). */
    allowHosts: string[];
    /** Time one module fetch may take, redirects included (`ASSAY_BUNDLER_FETCH_TIMEOUT_MS`, default 10000). */
    fetchTimeoutMs: number;
    /** Time a whole bundle may take (`ASSAY_BUNDLER_BUILD_TIMEOUT_MS`, default 60000). */
    buildTimeoutMs: number;
    /** Largest module (`ASSAY_BUNDLER_MAX_MODULE_BYTES`, default 5 MiB). */
    maxModuleBytes: number;
    /** Largest sum of fetched modules (`ASSAY_BUNDLER_MAX_TOTAL_BYTES`, default 25 MiB). */
    maxTotalBytes: number;
    /** Largest bundle produced (`ASSAY_BUNDLER_MAX_OUTPUT_BYTES`, default 10 MiB). */
    maxOutputBytes: number;
    /** Most modules in one bundle (`ASSAY_BUNDLER_MAX_MODULES`, default 2000; lodash-es has 640). */
    maxModules: number;
    /** Redirects followed per module (`ASSAY_BUNDLER_MAX_REDIRECTS`, default 5). */
    maxRedirects: number;
    /** How long a bundle of a URL that pins no version is reused before it is built again (`ASSAY_BUNDLER_UNPINNED_TTL_SECONDS`, default 3600). */
    unpinnedTtlSeconds: number;
  };
  /**
   * The address policy of user-controlled outgoing requests (src/net/address-policy.ts,
   * docs/security.md "Address policy (outgoing requests)"). The service's own infrastructure and
   * cloud metadata addresses are refused whatever these say.
   */
  egress: {
    /** Rules (`host`, `host:port`, `*.suffix`, `cidr`, `cidr:port`) always allowed (`ASSAY_EGRESS_ALLOW`, comma-separated). */
    allow: EgressRule[];
    /** Rules always refused, before the allow list (`ASSAY_EGRESS_DENY`, comma-separated). */
    deny: EgressRule[];
    /**
     * Which non-public addresses each kind may reach: `none` (false), `loopback`, or `all` (true:
     * loopback, private, link-local). `ASSAY_EGRESS_PRIVATE_FOR_NODES`, `_SCRIPTS`, `_LIBRARIES`,
     * `_WEBHOOKS`; default `none` for all ({@link LOCAL_DEVELOPMENT_EGRESS} under `make dev`).
     */
    privateAccess: { node: PrivateAccess; script: PrivateAccess; library: PrivateAccess; webhook: PrivateAccess };
  };
  /** The optional AI sample generator: an OpenAI-compatible API; null unless ASSAY_AI_BASE_URL and ASSAY_AI_MODEL are set. */
  ai: { baseUrl: string; model: string; apiKey?: string; timeoutMs: number } | null;
  /** pino log level (`ASSAY_LOG_LEVEL`, default `info`). */
  logLevel: string;
  /** People, sessions and the audit trail (docs/teams.md). */
  teams: TeamsConfig;
}

/** Thrown at start-up when an environment variable is set to something unusable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `expected an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function hostList(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = env[name];
  if (!raw) return [];
  const hosts = raw
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const h of hosts) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(h))
      throw new ConfigError(name, `"${h}" is not a host or host:port`);
  }
  return hosts;
}

function rules(env: NodeJS.ProcessEnv, name: string): EgressRule[] {
  try {
    return parseRules(env[name]);
  } catch (err) {
    throw new ConfigError(name, (err as Error).message);
  }
}

/** `ASSAY_LOAD_ONLY`; refused beside `ASSAY_LOAD_SHARDS_PER_WORKER=0` (the process would poll nothing). */
function loadOnly(env: NodeJS.ProcessEnv, shardsPerWorker: number): boolean {
  const only = boolean(env, 'ASSAY_LOAD_ONLY', false);
  if (only && shardsPerWorker === 0)
    throw new ConfigError('ASSAY_LOAD_ONLY', 'a load host needs ASSAY_LOAD_SHARDS_PER_WORKER of 1 or more, got 0');
  return only;
}

/** An http(s) URL variable without its trailing slash. @throws ConfigError when it is not one */
function httpUrl(env: NodeJS.ProcessEnv, name: string): string {
  const raw = env[name] ?? '';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected an http(s) URL, got "${raw}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ConfigError(name, `expected an http(s) URL, got "${raw}"`);
  return raw.replace(/\/$/, '');
}

function privateAccess(env: NodeJS.ProcessEnv, name: string, fallback: PrivateAccess): PrivateAccess {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on|all)$/i.test(raw)) return 'all';
  if (/^(0|false|no|off|none)$/i.test(raw)) return 'none';
  if (/^loopback$/i.test(raw)) return 'loopback';
  throw new ConfigError(name, `expected true (all private ranges), loopback or false, got "${raw}"`);
}

function databaseFrom(env: NodeJS.ProcessEnv, dataDir: string): DatabaseConfig {
  const url = env.DATABASE_URL;
  if (url === undefined || url === '') return { type: 'sqlite', file: path.join(dataDir, 'assay.db') };
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!file) throw new ConfigError('DATABASE_URL', 'sqlite: URL needs a file path, e.g. sqlite://.assay/assay.db');
    return { type: 'sqlite', file };
  }
  if (!/^(mysql|mariadb):\/\//.test(url)) {
    throw new ConfigError('DATABASE_URL', 'expected mysql://user:password@host:port/database or sqlite://path');
  }
  return { type: 'mysql', url: url.replace(/^mariadb:/, 'mysql:') };
}

/** A comma-separated list of web origins (`scheme://host[:port]`); @throws ConfigError for another value. */
/** A credential of at least 32 characters without spaces, or undefined when unset. @throws ConfigError naming the variable (never its value). */
function operatorToken(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (raw.length < 32 || /\s/.test(raw))
    throw new ConfigError(
      name,
      "expected at least 32 characters without spaces (e.g. node -e \"console.log(require('crypto').randomBytes(32).toString('base64url'))\")",
    );
  return raw;
}

function origins(env: NodeJS.ProcessEnv, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((o) => o.trim().replace(/\/$/, ''))
    .filter(Boolean)
    .map((o) => {
      let origin: string | undefined;
      try {
        origin = new URL(o).origin;
      } catch {
        /* reported below */
      }
      if (!origin || origin === 'null' || origin !== o.toLowerCase())
        throw new ConfigError(
          name,
          `"${o}" is not an origin (scheme://host[:port], e.g. https://temporal.example.com)`,
        );
      return origin;
    });
}

/** Reads the configuration from `env` (default `process.env`). Throws {@link ConfigError} on a malformed value. */
/**
 * `url`'s scheme and host with `port` instead of its own (no path): the address of another port of
 * the same host, e.g. the mocks' port beside the API's public URL.
 */
export function withPort(url: string, port: number): string {
  const u = new URL(url);
  u.port = String(port);
  return u.origin;
}

/**
 * Local development egress: what `make dev` (`main.js dev`), `make cluster`, the local stack of
 * `make demo`/`make bench` and the test apps let user requests reach. API nodes, scripts' `fetch`,
 * libraries loaded by URL and outgoing webhooks may reach loopback, where a developer's own
 * services, library files and webhook receivers listen; the service's own ports stay refused
 * (src/net/address-policy.ts; docs/security.md "Address policy (outgoing requests)"). The one
 * definition all of them use, through {@link withLocalDevelopmentEgress}.
 */
export const LOCAL_DEVELOPMENT_EGRESS: Readonly<Record<string, string>> = Object.freeze({
  ASSAY_EGRESS_PRIVATE_FOR_NODES: 'loopback',
  ASSAY_EGRESS_PRIVATE_FOR_SCRIPTS: 'loopback',
  ASSAY_EGRESS_PRIVATE_FOR_LIBRARIES: 'loopback',
  ASSAY_EGRESS_PRIVATE_FOR_WEBHOOKS: 'loopback',
});

/**
 * `env` with {@link LOCAL_DEVELOPMENT_EGRESS} for every switch it leaves unset or empty: a switch
 * the operator sets (`none`, `all`) wins. Returns a new object; `env` is not changed.
 */
export function withLocalDevelopmentEgress(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const [name, value] of Object.entries(LOCAL_DEVELOPMENT_EGRESS)) if (!out[name]) out[name] = value;
  return out;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AssayConfig {
  const dataDir = path.resolve(env.ASSAY_DATA_DIR || '.assay');
  const port = integer(env, 'ASSAY_PORT', 8080, 0, 65535);
  const bundlerPort = integer(env, 'ASSAY_BUNDLER_PORT', 8081, 0, 65535);
  const mockPort = env.ASSAY_MOCK_PORT ? integer(env, 'ASSAY_MOCK_PORT', 0, 0, 65535) : null;
  const shardsPerWorker = integer(env, 'ASSAY_LOAD_SHARDS_PER_WORKER', 2, 0, 64);
  const apiPublicUrl = (env.ASSAY_PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, '');
  if (env.ASSAY_SECRET_KEYS) {
    try {
      parseSecretKeys(env.ASSAY_SECRET_KEYS);
    } catch (err) {
      throw new ConfigError('ASSAY_SECRET_KEYS', (err as Error).message.replace(/^ASSAY_SECRET_KEYS:? ?/, ''));
    }
  }
  return {
    dataDir,
    secretKeys: env.ASSAY_SECRET_KEYS || undefined,
    database: databaseFrom(env, dataDir),
    databaseTimeouts: {
      acquireTimeoutMs: integer(env, 'ASSAY_DATABASE_ACQUIRE_TIMEOUT_MS', 1000, 50, 600_000),
      queryTimeoutMs: integer(env, 'ASSAY_DATABASE_QUERY_TIMEOUT_MS', 1000, 50, 600_000),
    },
    temporal: {
      address: env.TEMPORAL_ADDRESS || '127.0.0.1:7233',
      namespace: env.TEMPORAL_NAMESPACE || 'default',
      taskQueue: env.ASSAY_TASK_QUEUE || 'assay-runs',
      uiUrl: (env.TEMPORAL_UI_URL || 'http://localhost:8233').replace(/\/$/, ''),
      workflowTaskTimeoutMs: integer(env, 'ASSAY_WORKFLOW_TASK_TIMEOUT_MS', 2000, 1000, 60_000),
      stickyTimeoutMs: integer(env, 'ASSAY_STICKY_TIMEOUT_MS', 1000, 100, 60_000),
      activitySlots: integer(env, 'ASSAY_WORKER_ACTIVITY_SLOTS', 100, 1, 10_000),
      isolateTimeoutMs: integer(env, 'ASSAY_WORKFLOW_ISOLATE_TIMEOUT_MS', 0, 0, 600_000) || undefined,
      codecCorsOrigins: origins(env, 'ASSAY_CODEC_CORS_ORIGINS'),
      codecOperatorToken: operatorToken(env, 'ASSAY_CODEC_OPERATOR_TOKEN'),
    },
    workerHttp: {
      host: env.ASSAY_HOST || '127.0.0.1',
      port: integer(env, 'ASSAY_WORKER_HTTP_PORT', 9464, 0, 65535),
    },
    load: {
      shardsPerWorker,
      only: loadOnly(env, shardsPerWorker),
      threads: integer(env, 'ASSAY_LOAD_THREADS', Math.min(64, availableParallelism()), 1, 64),
      requestPath: oneOf(env, 'ASSAY_LOAD_REQUEST_PATH', ['prepared', 'general'] as const, 'prepared'),
    },
    api: {
      host: env.ASSAY_HOST || '127.0.0.1',
      port,
      publicUrl: apiPublicUrl,
      rateLimitPerMinute: integer(env, 'ASSAY_RATE_LIMIT_PER_MINUTE', 1200, 1, 10_000_000),
      recoveryIntervalMs: integer(env, 'ASSAY_RECOVERY_INTERVAL_MS', 5000, 100, 3_600_000),
      trustProxy: boolean(env, 'ASSAY_TRUST_PROXY', false),
      maxBodyBytes: integer(env, 'ASSAY_MAX_BODY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      importMaxBytes: integer(env, 'ASSAY_IMPORT_MAX_BYTES', 32 * 1024 * 1024, 1024, 256 * 1024 * 1024),
      importMemoryMb: integer(env, 'ASSAY_IMPORT_MEMORY_MB', 1024, 64, 65_536),
      importTimeoutMs: integer(env, 'ASSAY_IMPORT_TIMEOUT_MS', 300_000, 1000, 3_600_000),
      fileMaxBytes: integer(env, 'ASSAY_FILE_MAX_BYTES', 10 * 1024 * 1024, 1, 1024 * 1024 * 1024),
      importMaxResultBytes: integer(
        env,
        'ASSAY_IMPORT_MAX_RESULT_BYTES',
        128 * 1024 * 1024,
        64 * 1024,
        512 * 1024 * 1024,
      ),
      receiveTimeoutMs: integer(env, 'ASSAY_RECEIVE_TIMEOUT_MS', 30_000, 1000, 3_600_000),
      maxConnectionsPerAddress: integer(env, 'ASSAY_MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
      authFailuresPerMinute: integer(env, 'ASSAY_AUTH_FAILURES_PER_MINUTE', 30, 1, 10_000_000),
      consoleDir: path.resolve(env.ASSAY_CONSOLE_DIR || path.join(__dirname, '..', 'web')),
      relayPerMinute: integer(env, 'ASSAY_RELAY_PER_MINUTE', 60, 1, 1_000_000),
    },
    runs: {
      defaultTimeoutSeconds: 1800,
      maxTimeoutSeconds: integer(env, 'ASSAY_MAX_RUN_TIMEOUT_SECONDS', 86_400, 1, 30 * 86_400),
      apiNodeActivity: oneOf(env, 'ASSAY_API_NODE_ACTIVITY', ['local', 'normal'] as const, 'local'),
      requestTimeoutMs: integer(env, 'ASSAY_REQUEST_TIMEOUT_MS', 30_000, 1, 3_600_000),
      maxResponseBytes: integer(env, 'ASSAY_MAX_RESPONSE_BYTES', 256 * 1024, 1024, 1024 * 1024),
      testCasesPerExecution: integer(env, 'ASSAY_TEST_CASES_PER_EXECUTION', 200, 1, 2000),
      maxLoopIterations: integer(env, 'ASSAY_MAX_LOOP_ITERATIONS', 1000, 1, 1_000_000),
      segmentHistoryEvents: integer(env, 'ASSAY_SEGMENT_HISTORY_EVENTS', 2500, 20, 40_000),
      checkpointMs: integer(env, 'ASSAY_CHECKPOINT_MS', 1000, 200, 60_000),
      retentionDays: integer(env, 'ASSAY_RUN_RETENTION_DAYS', 0, 0, 36_500),
      historyDays: integer(env, 'ASSAY_HISTORY_DAYS', 90, 0, 36_500),
      flakyWindow: integer(env, 'ASSAY_FLAKY_WINDOW', 10, 2, 100),
      flakyMinFlips: integer(env, 'ASSAY_FLAKY_MIN_FLIPS', 3, 1, 99),
    },
    quotas: {
      concurrentRuns: integer(env, 'ASSAY_QUOTA_CONCURRENT_RUNS', 20, 1, 1_000_000),
      runsPerMinute: integer(env, 'ASSAY_QUOTA_RUNS_PER_MINUTE', 120, 1, 10_000_000),
      loopIterations: integer(env, 'ASSAY_QUOTA_LOOP_ITERATIONS', 100_000, 1, 1_000_000_000),
      fileBytes: integer(env, 'ASSAY_QUOTA_FILE_BYTES', 256 * 1024 * 1024, 0, 2 ** 50),
    },
    scripts: {
      memoryLimitMb: integer(env, 'ASSAY_SCRIPT_MEMORY_MB', 64, 8, 4096),
      timeoutMs: integer(env, 'ASSAY_SCRIPT_TIMEOUT_MS', 5000, 10, 600_000),
      fetchTimeoutMs: integer(env, 'ASSAY_SCRIPT_FETCH_TIMEOUT_MS', 10_000, 10, 600_000),
      maxFetchBytes: integer(env, 'ASSAY_SCRIPT_MAX_FETCH_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      maxContexts: integer(env, 'ASSAY_SCRIPT_MAX_CONTEXTS', 16, 1, 1000),
    },
    deployments: {
      reconcileIntervalMs: integer(env, 'ASSAY_RECONCILE_INTERVAL_MS', 30_000, 1000, 86_400_000),
    },
    webhooks: {
      retryInitialMs: integer(env, 'ASSAY_WEBHOOK_RETRY_INITIAL_MS', 1000, 10, 3_600_000),
      retryMaximumMs: integer(env, 'ASSAY_WEBHOOK_RETRY_MAX_MS', 300_000, 10, 86_400_000),
      giveUpAfterMs: integer(env, 'ASSAY_WEBHOOK_GIVE_UP_AFTER_MS', 86_400_000, 1000, 30 * 86_400_000),
    },
    mocks: {
      revalidateMs: integer(env, 'ASSAY_MOCK_REVALIDATE_MS', 2000, 0, 3_600_000),
      seed: env.ASSAY_MOCK_SEED ? integer(env, 'ASSAY_MOCK_SEED', 0, 0, 2 ** 31 - 1) : undefined,
      port: mockPort,
      publicUrl: env.ASSAY_MOCK_PUBLIC_URL
        ? httpUrl(env, 'ASSAY_MOCK_PUBLIC_URL')
        : mockPort
          ? withPort(apiPublicUrl, mockPort)
          : null,
      journalMax: integer(env, 'ASSAY_MOCK_JOURNAL_MAX', 10_000, 0, 10_000_000),
      journalTtlSeconds: integer(env, 'ASSAY_MOCK_JOURNAL_TTL_SECONDS', 86_400, 1, 365 * 86_400),
      scopeTtlSeconds: integer(env, 'ASSAY_MOCK_SCOPE_TTL_SECONDS', 86_400, 1, 30 * 86_400),
    },
    bundler: {
      host: env.ASSAY_BUNDLER_HOST || env.ASSAY_HOST || '127.0.0.1',
      port: bundlerPort,
      publicUrl: (env.ASSAY_BUNDLER_PUBLIC_URL || `http://localhost:${bundlerPort}`).replace(/\/$/, ''),
      requireKey: boolean(env, 'ASSAY_BUNDLER_REQUIRE_KEY', true),
      rateLimitPerMinute: integer(env, 'ASSAY_BUNDLER_RATE_LIMIT_PER_MINUTE', 120, 1, 10_000_000),
      allowPrivate: boolean(env, 'ASSAY_BUNDLER_ALLOW_PRIVATE', false),
      allowHosts: hostList(env, 'ASSAY_BUNDLER_ALLOW_HOSTS'),
      fetchTimeoutMs: integer(env, 'ASSAY_BUNDLER_FETCH_TIMEOUT_MS', 10_000, 10, 600_000),
      buildTimeoutMs: integer(env, 'ASSAY_BUNDLER_BUILD_TIMEOUT_MS', 60_000, 100, 3_600_000),
      maxModuleBytes: integer(env, 'ASSAY_BUNDLER_MAX_MODULE_BYTES', 5 * 1024 * 1024, 1024, 256 * 1024 * 1024),
      maxTotalBytes: integer(env, 'ASSAY_BUNDLER_MAX_TOTAL_BYTES', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxOutputBytes: integer(env, 'ASSAY_BUNDLER_MAX_OUTPUT_BYTES', 10 * 1024 * 1024, 1024, 256 * 1024 * 1024),
      maxModules: integer(env, 'ASSAY_BUNDLER_MAX_MODULES', 2000, 1, 100_000),
      maxRedirects: integer(env, 'ASSAY_BUNDLER_MAX_REDIRECTS', 5, 0, 20),
      unpinnedTtlSeconds: integer(env, 'ASSAY_BUNDLER_UNPINNED_TTL_SECONDS', 3600, 0, 365 * 86_400),
    },
    egress: {
      allow: rules(env, 'ASSAY_EGRESS_ALLOW'),
      deny: rules(env, 'ASSAY_EGRESS_DENY'),
      privateAccess: {
        node: privateAccess(env, 'ASSAY_EGRESS_PRIVATE_FOR_NODES', 'none'),
        script: privateAccess(env, 'ASSAY_EGRESS_PRIVATE_FOR_SCRIPTS', 'none'),
        library: privateAccess(env, 'ASSAY_EGRESS_PRIVATE_FOR_LIBRARIES', 'none'),
        webhook: privateAccess(env, 'ASSAY_EGRESS_PRIVATE_FOR_WEBHOOKS', 'none'),
      },
    },
    ai:
      env.ASSAY_AI_BASE_URL && env.ASSAY_AI_MODEL
        ? {
            baseUrl: env.ASSAY_AI_BASE_URL,
            model: env.ASSAY_AI_MODEL,
            apiKey: env.ASSAY_AI_API_KEY || undefined,
            timeoutMs: integer(env, 'ASSAY_AI_TIMEOUT_MS', 30_000, 100, 600_000),
          }
        : null,
    logLevel: env.ASSAY_LOG_LEVEL || 'info',
    teams: teamsFrom(env, apiPublicUrl),
  };
}

/**
 * The run settings a run freezes into its plan: exactly the {@link RunSettings} fields of the
 * configuration's `runs` section (src/domain/types.ts `RUN_SETTING_NAMES`).
 */
export function runSettingsOf(config: Pick<AssayConfig, 'runs'>): RunSettings {
  return Object.fromEntries(RUN_SETTING_NAMES.map((name) => [name, config.runs[name]])) as unknown as RunSettings;
}

/** One mapping of an identity provider group to a role in a workspace (`ASSAY_OIDC_GROUP_ROLES`). */
export interface GroupRole {
  group: string;
  /** The workspace's name (created at the first sign-in that needs it). */
  workspace: string;
  role: Role;
}

/** Console sign-in through OpenID Connect (docs/teams.md "Configuring sign-in"). */
export interface OidcConfig {
  /** The issuer URL (`ASSAY_OIDC_ISSUER`); its `/.well-known/openid-configuration` is read at start. HTTPS, or http on loopback only. */
  issuer: string;
  /** `ASSAY_OIDC_CLIENT_ID`. */
  clientId: string;
  /** `ASSAY_OIDC_CLIENT_SECRET` (client_secret_basic); unset: a public client (PKCE only). */
  clientSecret: string | undefined;
  /** Where the provider sends the browser back (`ASSAY_OIDC_REDIRECT_URL`, default `<ASSAY_PUBLIC_URL>/auth/callback`). */
  redirectUrl: string;
  /** Scopes asked for (`ASSAY_OIDC_SCOPES`, default `openid profile email`). */
  scopes: string;
  /** The ID token claim holding the user's groups (`ASSAY_OIDC_GROUPS_CLAIM`, default `groups`). */
  groupsClaim: string;
  /** `ASSAY_OIDC_GROUP_ROLES`: `group=workspace:role` entries, comma-separated. */
  groupRoles: GroupRole[];
  /** What the console's sign-in button says (`ASSAY_OIDC_DISPLAY_NAME`, default `single sign-on`). */
  displayName: string;
}

/** People, sessions and the audit trail (docs/teams.md). */
export interface TeamsConfig {
  /** Sign-in through OpenID Connect, or null when `ASSAY_OIDC_ISSUER` is unset (the console signs in with an API key only). */
  oidc: OidcConfig | null;
  /** A session ends this long after sign-in, whatever its use (`ASSAY_SESSION_HOURS`, default 12). */
  sessionHours: number;
  /** A session ends after this long without a request (`ASSAY_SESSION_IDLE_MINUTES`, default 120). */
  sessionIdleMinutes: number;
  /** Audit events are deleted this many days after they happened (`ASSAY_AUDIT_RETENTION_DAYS`, default 400; 0 keeps them forever). */
  auditRetentionDays: number;
}

/** Parses `group=workspace:role,…` (whitespace around entries ignored). */
function groupRoles(env: NodeJS.ProcessEnv, name: string): GroupRole[] {
  const raw = env[name]?.trim();
  if (!raw) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^(.+?)=([^:=]+):([a-z]+)$/.exec(entry);
      if (!match || !(ROLES as readonly string[]).includes(match[3]!))
        throw new ConfigError(name, `"${entry}" is not \`group=workspace:role\` with role one of ${ROLES.join(', ')}`);
      return { group: match[1]!.trim(), workspace: match[2]!.trim(), role: match[3] as Role };
    });
}

function teamsFrom(env: NodeJS.ProcessEnv, publicUrl: string): TeamsConfig {
  let oidc: OidcConfig | null = null;
  if (env.ASSAY_OIDC_ISSUER) {
    const issuer = httpUrl(env, 'ASSAY_OIDC_ISSUER').replace(/\/$/, '');
    const host = new URL(issuer).hostname;
    if (!issuer.startsWith('https:') && !['127.0.0.1', 'localhost', '[::1]'].includes(host))
      throw new ConfigError('ASSAY_OIDC_ISSUER', 'must be an https URL (http only on loopback)');
    if (!env.ASSAY_OIDC_CLIENT_ID) throw new ConfigError('ASSAY_OIDC_CLIENT_ID', 'is required with ASSAY_OIDC_ISSUER');
    oidc = {
      issuer,
      clientId: env.ASSAY_OIDC_CLIENT_ID,
      clientSecret: env.ASSAY_OIDC_CLIENT_SECRET || undefined,
      redirectUrl: env.ASSAY_OIDC_REDIRECT_URL ? httpUrl(env, 'ASSAY_OIDC_REDIRECT_URL') : `${publicUrl}/auth/callback`,
      scopes: env.ASSAY_OIDC_SCOPES || 'openid profile email',
      groupsClaim: env.ASSAY_OIDC_GROUPS_CLAIM || 'groups',
      groupRoles: groupRoles(env, 'ASSAY_OIDC_GROUP_ROLES'),
      displayName: env.ASSAY_OIDC_DISPLAY_NAME || 'single sign-on',
    };
  }
  return {
    oidc,
    sessionHours: integer(env, 'ASSAY_SESSION_HOURS', 12, 1, 24 * 90),
    sessionIdleMinutes: integer(env, 'ASSAY_SESSION_IDLE_MINUTES', 120, 1, 60 * 24 * 90),
    auditRetentionDays: integer(env, 'ASSAY_AUDIT_RETENTION_DAYS', 400, 0, 36_500),
  };
}
