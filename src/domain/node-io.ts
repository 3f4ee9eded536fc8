/**
 * The contract between the flow interpreter (src/flow/) and what executes its API and
 * Script nodes: the inputs and outputs of the `executeApiNode` and `runScript` activities
 * (activities/nodes.ts), which the in-process port (activities/direct-port.ts) uses too, and
 * what the script sandbox gives back ({@link ScriptResult}, a Script node's output).
 *
 * Pure type declarations (imported by workflow code).
 */
import type { ApiNodeAuthProfile } from './auth-profiles';
import type {
  AttemptResult,
  OriginLimits,
  HttpExchange,
  ResolvedRequest,
  RetryPolicy,
  ScriptConfig,
  ScriptLogLine,
  SentFiles,
} from './types';

/** Context a script sees besides the request: variables, earlier nodes, the loop, the test case. */
export interface ScriptScope {
  runId: string;
  /** Node id, names the script in stack traces. */
  label: string;
  variables: Record<string, unknown>;
  nodes?: Record<string, unknown>;
  loop?: unknown;
  /** Every enclosing loop frame, outermost first, when there is more than one (`$context.loops`). */
  loops?: unknown[];
  testCase: { id: string; name: string };
}

/**
 * A hook script around an API node besides the node's own `script` (docs/flows.md "Hooks"): the
 * test case's (`level: 'test case'`) or a folder's (`level: 'folder'`).
 */
export interface OuterHook {
  level: 'test case' | 'folder';
  script: ScriptConfig;
}

/** Per-origin limits of the run: src/domain/types.ts `OriginLimits`. */
export type { OriginLimits };

/** Input of an API node: the resolved request, its hooks and retries, and the run's deadline. */
export interface ApiNodeInput extends ScriptScope {
  request: ResolvedRequest;
  script?: ScriptConfig;
  /**
   * The test case's and its folders' hooks, outermost first: `beforeRequest` runs them in this
   * order before the node's own, `afterResponse` after the node's own in reverse (the onion order).
   * Absent when there are none (inputs in recorded histories have no such field).
   */
  outerHooks?: OuterHook[];
  retry?: RetryPolicy;
  /** Epoch ms of the run's deadline: no attempt or delay runs past it. */
  deadlineMs: number;
  /** The auth profile that applies to the request (src/domain/auth-profiles.ts); absent when none does. */
  authProfile?: ApiNodeAuthProfile;
  /**
   * The node execution id (src/flow/execution-id.ts; docs/durability.md "Node execution ids"): the
   * `X-Assay-Execution` header of API requests, and the key of the execution's recorded outcome
   * (src/store/node-executions.ts). Absent where no id is made (load tests) and in inputs recorded
   * before it.
   */
  execution?: string;
  /**
   * The run's per-origin limits (RunPlan `parallel.originLimits`; docs/parallel.md "Protecting the target"): each request the node
   * sends (each attempt, each redirect hop, per its own origin) waits for a slot of its origin
   * across the run's workers (src/net/origin-gate.ts). Absent: no limit, no store access.
   */
  originLimits?: OriginLimits;
}

/** What an API node did: the request as sent, the last exchange, every attempt, the hooks' effects. */
export interface ApiNodeOutput {
  /** The request as sent (after `beforeRequest`). */
  request: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  /** The last attempt's exchange; absent when `beforeRequest` failed and nothing was sent. */
  exchange?: HttpExchange;
  attempts: AttemptResult[];
  /** Variables after the hooks. */
  variables: Record<string, unknown>;
  logs: ScriptLogLine[];
  /** Checks the hooks recorded with `$test` (beforeRequest's first), absent when none. */
  tests?: ScriptCheck[];
  /**
   * A failed hook: the sandbox's message (whole, at most 4096 characters then a cut marker) and the
   * line and column of the user's code, when known.
   */
  scriptError?: {
    hook: 'beforeRequest' | 'afterResponse';
    /** Whose hook failed when it was not the node's own: the test case's or a folder's. */
    level?: OuterHook['level'];
    message: string;
    line?: number;
    column?: number;
  };
  /** Epoch ms when the node ended (see HttpExchange.finishedAtMs). */
  finishedAtMs: number;
}

/**
 * `$request` as a script sees and leaves it (a beforeRequest hook may change `method`, `url`,
 * `headers` and `body`). A request with files (docs/flows.md "Files") has no `body`; hooks see what
 * its body is made of instead, read-only, as results show it (`parts`: each part's name, file name,
 * type, size and SHA-256; `file`: the binary body's), never the bytes.
 */
export interface ScriptRequest extends Partial<SentFiles> {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** Why a script failed. */
export interface ScriptError {
  /** `limit`: the script's output was over a payload cap (src/domain/limits.ts), set by activities/nodes.ts. */
  kind: 'error' | 'syntax' | 'timeout' | 'memory' | 'library' | 'limit';
  /**
   * `name: message` of what the script threw, the whole message (a ZodError's JSON list of issues
   * included; a thrown non-Error value as `Uncaught <value>`), at most 4096 characters
   * (`MAX_ERROR_MESSAGE_CHARS`, src/sandbox/sandbox.ts), then `… [cut: N more characters]`.
   */
  message: string;
  /**
   * Line and column in the user's code (its innermost frame, below any library's frames), when
   * known: not for a thrown non-Error value, which carries no stack.
   */
  line?: number;
  column?: number;
}

/**
 * One check a script recorded with `$test(name, fn)` (docs/flows.md "Scripts"): `message` is what
 * `fn` threw (`AssertionError: expected 404 to equal 200`), at most 2,000 characters.
 */
export interface ScriptCheck {
  name: string;
  passed: boolean;
  message?: string;
}

/**
 * What one execution of a script in the sandbox (src/sandbox/sandbox.ts `Sandbox.execute`) gives
 * back. Its field names are a Script node's output in the workflow's history: they stay as they are.
 */
export interface ScriptResult {
  ok: boolean;
  /** `$request` after the script (a beforeRequest hook may change it). */
  request?: ScriptRequest;
  /** The variables after the script (`$context.set`/`unset`). */
  variables: Record<string, unknown>;
  /** What `generateValue` returned. */
  value?: unknown;
  /** Lines logged; for a script that threw, those logged before it threw. */
  logs: ScriptLogLine[];
  /** Checks recorded with `$test` (absent when none), also those recorded before a throw. */
  tests?: ScriptCheck[];
  error?: ScriptError;
  durationMs: number;
}

/** Input of a Script node. */
export interface ScriptNodeInput extends ScriptScope {
  script: ScriptConfig;
  /** Call the script's `generateValue` and return its value. */
  generateValue: boolean;
  /**
   * The node execution id (src/flow/execution-id.ts; docs/durability.md "Node execution ids"): the
   * `X-Assay-Execution` header of API requests, and the key of the execution's recorded outcome
   * (src/store/node-executions.ts). Absent where no id is made (load tests) and in inputs recorded
   * before it.
   */
  execution?: string;
}

/** A Script node's result (the sandbox's, within the payload caps) and when it ended (epoch ms). */
export type ScriptNodeOutput = ScriptResult & { finishedAtMs: number };
