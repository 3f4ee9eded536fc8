/**
 * The interpreter's direct port: runs flows in-process with plain async calls, no workflow. The
 * same interpreter (src/flow/) and the same node implementation as the activities
 * (activities/nodes.ts `createNodeIO`: hooks, request with retries through the address
 * policy's agent, payload caps; the sandbox for scripts), so a flow behaves as it does in a run.
 *
 * Differences from the workflow port (workflows/workflow-port.ts), by design:
 * - time is the real clock (`Date.now()`), a Wait node a real timer;
 * - the deadline is checked before each node (and a wait or request cut by it throws
 *   DeadlineReached), not enforced by a cancellation scope;
 * - expressions are evaluated here with the workflow's step budget (WORKFLOW_LIMITS), and one that
 *   needs more goes to the heavy-expression pool, as the `evaluateExpression` activity does;
 * - `historyLength` is 0: a loop always runs inline, never in a child workflow;
 * - `$uuid` and `$random…` come from node:crypto;
 * - a plain field path (`response.status`) is read directly when JSONata would give the same value
 *   ({@link simplePathValue});
 * - no node execution ids (`X-Assay-Execution`) unless the caller asks for them (`executionIds`).
 *
 * Made for the load generator (many virtual users running flows inside one activity): the shared
 * resources (sandbox, agent, expression pool) are given once to {@link directPorts}, and each
 * port it makes is a few closures, with no timer left behind.
 */
import type { OriginLimits } from '../src/domain/node-io';
import { randomUUID, webcrypto } from 'node:crypto';
import type { Agent } from 'undici';
import { BUDGET_CODE, evaluateExpression, ExpressionError, WORKFLOW_LIMITS } from '../src/domain/expressions';
import type { RunSettings } from '../src/domain/types';
import type { Sandbox } from '../src/sandbox/sandbox';
import { DeadlineReached, type InterpreterPort } from '../src/flow';
import { sharedExpressionPool, type ExpressionPool } from '../src/expression-pool/pool';
import { createNodeIO, evaluateHeavyExpression } from './nodes';
import type { AuthProfiles } from '../src/auth/apply';
import type { AddressPolicy } from '../src/net/address-policy';
import { createStreamIO } from './streams';
import { createGrpcCaller } from './grpc';
import type { DataSource } from 'typeorm';
import type { MockVerifyInput } from '../src/domain/mock-verify-io';
import { verifyJournal } from '../src/mock/journal';
import type { CallbackPort } from '../src/domain/callbacks';
import type { FileSource } from './files';
import { ORIGIN_LIMIT_TIMEOUT, type OriginGate } from '../src/net/origin-gate';
import { createPreparedSender, sendsPrepared, type PreparedOptions, type PreparedSender } from './prepared-request';

/** What every port of one {@link directPorts} factory shares. */
export interface DirectPortResources {
  /** Runs Script nodes and API node hooks; contexts are per run id and test case (release them with `sandbox.releaseRun`). */
  sandbox: Sandbox;
  /** The agent API nodes send through: the address policy's `agent('node')` (src/net/address-policy.ts). */
  agent: Agent;
  /** Evaluates expressions over the step budget (default: the process's shared pool). */
  expressionPool?: ExpressionPool;
  /** Applies API nodes' auth profiles (src/auth/apply.ts); without it a node with one fails. */
  auth?: AuthProfiles;
  /** The address policy WebSocket, SSE and gRPC nodes connect through (activities/streams.ts, activities/grpc.ts); without it they fail saying so. */
  policy?: AddressPolicy;
  /** The store mockVerify nodes read the mock journal from (src/mock/journal.ts); without it they fail saying so. */
  dataSource?: DataSource;
  /**
   * Where requests' `multipart` and `file` refs are read (activities/files.ts, the worker's cache);
   * a port's {@link DirectPortOptions.files} overrides it. Without either, such a request fails
   * `FILE_NOT_FOUND` unsent.
   */
  files?: FileSource;
  /**
   * The worker's origin gate (src/net/origin-gate.ts): API nodes whose input has `originLimits`
   * send under the run's per-origin limits; without it such limits are not applied.
   */
  gate?: OriginGate;
}

/** What one port is made for. */
export interface DirectPortOptions {
  /** Scripts' contexts are kept per run id and test case. */
  runId: string;
  /** The run's per-origin limits (RunPlan `parallel.originLimits`): every API node's input carries them. Absent: none. */
  originLimits?: OriginLimits;
  settings: RunSettings;
  /** Epoch ms by which the flow must end. */
  deadlineMs: number;
  /** The run's servers (RunPlan `servers`; src/flow/servers.ts); absent for a plan without them. */
  servers?: Readonly<Record<string, string>>;
  /** The run's mock scope and workspace (RunPlan `mockScope`); absent for a plan without it. */
  mockScope?: { workspaceId: string; scope: string };
  /**
   * True: nodes' inputs carry their node execution id and API requests send it as
   * `X-Assay-Execution` (InterpreterPort `executionIds`; src/flow/execution-id.ts): test case
   * segments. Absent: no id, no header (load tests).
   */
  executionIds?: boolean;
  /**
   * True: a debug run's port (InterpreterPort `debug`): node results get their capture
   * (src/flow/debug.ts); a `testCase`-mode segment of a debug run. Absent: none (load tests).
   */
  debug?: boolean;
  /** Called after each node. */
  onNodeDone?: () => void;
  /** Where this port's requests read files (a load shard's cache, read once per shard); default the resources'. */
  files?: FileSource;
  /** The run's workspace (InterpreterPort `workspaceId`), whose files requests name; absent: `mockScope`'s. */
  workspaceId?: string;
  /**
   * Aborts requests under way (they end as `CANCELLED`) and, once aborted, stops the flow before
   * its next node with {@link DirectPortOptions.stopped}'s error (a test case segment's activity
   * cancellation, activities/test-case.ts). Absent: nothing aborts.
   */
  signal?: AbortSignal;
  /** The error thrown before a node once {@link signal} is aborted (default: the signal's reason). */
  stopped?: () => Error;
  /**
   * True: API nodes' outputs are held to Temporal's payload cap as the per-node activity holds them
   * (activities/nodes.ts `capApiNodeOutput`), so a flow sees what it sees in the `node` durability
   * mode (test case segments). Default false: load tests' outputs never become payloads.
   */
  capOutput?: boolean;
  /**
   * Load tests: API nodes that need nothing of the general path (no hooks, retries, auth, files,
   * limits: activities/prepared-request.ts `sendsPrepared`) are sent on the prepared path, the same
   * results for less work; `discardBody`: nothing of the flow reads response bodies (they are
   * counted, not kept). Absent: every node takes the general path.
   */
  prepared?: PreparedOptions;
  /** Finished steps as lines for people (InterpreterPort.recordStep); absent: none are made. */
  recordStep?: (line: string) => void;
  /**
   * Callback nodes' addresses (InterpreterPort `callbacks`), for templates (`{{callback.url}}`) of
   * nodes run here; waiting for a callback stays in the workflow (src/flow/segments.ts), so `wait`
   * is never called. Absent: the port has none.
   */
  callbacks?: CallbackPort;
}

/** A number in [0, 1) from 53 random bits of node:crypto. */
function cryptoRandom(): number {
  const [high, low] = webcrypto.getRandomValues(new Uint32Array(2));
  return (high! * 2 ** 21 + (low! >>> 11)) / 2 ** 53;
}

/** JSONata words that are not field names in a path. */
const JSONATA_WORDS = new Set(['and', 'or', 'in', 'true', 'false', 'null', 'function']);
const SIMPLE_PATH = /^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*$/;

/**
 * The value of a plain field path (`response.status`, `response.body.user.id`) read directly, when
 * JSONata would give the same: every step an object (not an array, which JSONata maps over), the
 * value not an array. `undefined` means "not simple: ask JSONata". Load tests evaluate such
 * assertion targets thousands of times a second; the workflow port never takes this path (its
 * JSONata step counts pace workflow tasks and must stay as recorded).
 */
export function simplePathValue(expression: string, input: unknown): { value: unknown } | undefined {
  if (!SIMPLE_PATH.test(expression)) return undefined;
  let value: unknown = input;
  for (const name of expression.split('.')) {
    if (JSONATA_WORDS.has(name) || value === null || typeof value !== 'object' || Array.isArray(value))
      return undefined;
    value = Object.prototype.hasOwnProperty.call(value, name) ? (value as Record<string, unknown>)[name] : undefined;
    if (value === undefined) return { value: undefined };
  }
  return Array.isArray(value) || (typeof value === 'number' && !Number.isFinite(value)) ? undefined : { value };
}

/**
 * Waits `ms` on a real timer, at least `ms` by the port's clock (`Date.now()`): Node's timers count
 * from the event loop's cached time, which may lag the wall clock by a millisecond, so a 20 ms timer
 * alone can be seen as 19 ms by `now()` (what a Poll node's `delayMs` reports, src/flow/poll-node.ts).
 */
async function delay(ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (let left = ms; left > 0; left = until - Date.now()) await new Promise((resolve) => setTimeout(resolve, left));
}

/**
 * A factory of direct ports over shared resources: call it once (per activity, per worker), then
 * once per flow run or virtual user with its {@link DirectPortOptions}.
 */
export function directPorts(resources: DirectPortResources): (options: DirectPortOptions) => InterpreterPort {
  const nodes = createNodeIO(resources.sandbox, resources.agent, resources.auth, resources.files, resources.gate);
  let preparedSender: PreparedSender | undefined;
  const pool = () => resources.expressionPool ?? sharedExpressionPool();
  const dynamic = { uuid: randomUUID, now: Date.now, random: cryptoRandom };
  const grpc = resources.policy ? createGrpcCaller(resources.policy) : undefined;

  /** The guarded evaluator: the small step budget here, the pool past it. Throws ExpressionError. */
  const evaluate = async (expression: string, input: unknown): Promise<unknown> => {
    const simple = simplePathValue(expression, input);
    if (simple) return simple.value;
    try {
      return await evaluateExpression(expression, input, {}, WORKFLOW_LIMITS);
    } catch (err) {
      if (!(err instanceof ExpressionError) || err.code !== BUDGET_CODE) throw err;
    }
    const out = await evaluateHeavyExpression(pool(), expression, input);
    if (out.error) throw new ExpressionError(out.error.message, expression, out.error.code);
    return out.value;
  };

  const streams = resources.policy
    ? createStreamIO({ policy: resources.policy, evaluate, auth: resources.auth, agent: resources.agent })
    : undefined;

  return (options) => {
    const { runId, settings, deadlineMs } = options;
    return {
      runId,
      settings,
      deadlineMs,
      ...(options.servers ? { servers: options.servers } : {}),
      ...(options.mockScope ? { mockScope: options.mockScope } : {}),
      ...(options.workspaceId ? { workspaceId: options.workspaceId } : {}),
      ...(options.executionIds ? { executionIds: true } : {}),
      ...(options.debug ? { debug: true } : {}),
      dynamic: options.mockScope ? { ...dynamic, runId: options.mockScope.scope } : dynamic,
      now: Date.now,
      async executeApiNode(given) {
        const input = options.originLimits ? { ...given, originLimits: options.originLimits } : given;
        const out =
          options.prepared && !options.signal && !options.capOutput && sendsPrepared(input)
            ? await (preparedSender ??= createPreparedSender(resources.agent))(input, options.prepared)
            : // Not a Temporal payload unless asked (`capOutput`): no payload cap (the request and hooks keep theirs).
              await nodes.executeApiNode(input, {
                ...(input.execution ? { executionId: input.execution } : {}),
                capOutput: options.capOutput ?? false,
                ...(options.signal ? { signal: options.signal } : {}),
                ...(options.files ? { files: options.files } : {}),
              });
        // Each attempt's timeout is cut to the time left (activities/nodes.ts): a timeout at the
        // deadline interrupts the test case, as does a wait for the origin gate that reached it.
        const code = out.exchange?.errorCode;
        if ((code === 'TIMEOUT' || code === ORIGIN_LIMIT_TIMEOUT) && Date.now() >= deadlineMs)
          throw new DeadlineReached();
        return out;
      },
      runScript: (input) => nodes.runScript(input),
      ...(streams ? { runStream: (input) => streams.runStream(input) } : {}),
      ...(grpc
        ? {
            async callGrpc(input) {
              // The call's deadline cut to the time left: a deadline exceeded at the flow's deadline interrupts the test case.
              const out = await grpc({
                ...input,
                deadlineMs: Math.min(input.deadlineMs, Math.max(1, deadlineMs - Date.now())),
              });
              if (out.code === 4 && Date.now() >= deadlineMs) throw new DeadlineReached();
              return out;
            },
          }
        : {}),
      ...(resources.dataSource
        ? { verifyMocks: (input: MockVerifyInput) => verifyJournal(resources.dataSource!, input) }
        : {}),
      evaluate,
      sleep: (ms) => delay(ms),
      historyLength: () => 0,
      runLoopSegment() {
        return Promise.reject(new Error('the direct port runs every loop inline (historyLength is 0)'));
      },
      beforeNode() {
        if (options.signal?.aborted) throw options.stopped?.() ?? options.signal.reason;
        if (Date.now() >= deadlineMs) throw new DeadlineReached();
      },
      ...(options.recordStep ? { recordStep: options.recordStep } : {}),
      ...(options.callbacks ? { callbacks: options.callbacks } : {}),
      async afterNode() {
        options.onNodeDone?.();
      },
    };
  };
}
