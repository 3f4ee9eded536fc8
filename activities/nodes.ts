/**
 * The activities of flow nodes that touch the outside world.
 *
 * `executeApiNode` is one durable step for an API node (docs/architecture.md "The interpreter and its two ports"): its
 * `beforeRequest` hook (which may change `$request`), the request with its retries, and its
 * `afterResponse` hook (which may set variables); reported as one execution with its attempts.
 * `runScript` runs a Script node. Neither throws for what the user's request or script does: a
 * failure comes back as data and fails the node, not the run. Both are plain functions first
 * ({@link createNodeIO}, which the in-process port activities/direct-port.ts uses too), then
 * activities that add the activity's execution id, cancellation and sleep ({@link createNodeActivities}).
 * Their input and output types are the interpreter's contract (src/domain/node-io.ts).
 */
import { CancelledFailure, Context } from '@temporalio/activity';
import type { Sandbox, ScriptResponse } from '../src/sandbox/sandbox';
import { sharedExpressionPool, type ExpressionPool, type PoolResult } from '../src/expression-pool/pool';
import type {
  AttemptResult,
  HttpExchange,
  ResolvedRequest,
  RetryPolicy,
  ScriptConfig,
  ScriptLogLine,
} from '../src/domain/types';
import type {
  ApiNodeInput,
  ApiNodeOutput,
  OuterHook,
  ScriptCheck,
  ScriptNodeInput,
  ScriptNodeOutput,
  ScriptResult,
} from '../src/domain/node-io';
import type { Agent } from 'undici';
import { ADDRESS_NOT_ALLOWED } from '../src/net/address-policy';
import { capLogs, cutToBytes, jsonBytes, overCapMessage, PAYLOAD_LIMITS } from '../src/domain/limits';
import { sendHttpRequest } from './api-request';
import { maskOutput, sendWithProfile } from './auth-request';
import type { AuthProfiles } from '../src/auth/apply';
import { observeApiNode } from '../src/observability/metrics';
import { tracingEnabled } from '../src/observability/tracing';
import type { NodeExecutionRecords } from '../src/store/node-executions';
import { recordedExecution } from './recorded';
import { FILE_NOT_FOUND, prepareUpload, type FileSource, type PreparedUpload } from './files';
import { runsWithoutResponse } from '../src/domain/postman-parameters';
import { ORIGIN_LIMIT_TIMEOUT, requestGate, type OriginGate, type RequestGate } from '../src/net/origin-gate';

export type {
  ApiNodeInput,
  ApiNodeOutput,
  ScriptNodeInput,
  ScriptNodeOutput,
  ScriptScope,
} from '../src/domain/node-io';

/**
 * A script's result within the payload caps (src/domain/limits.ts): logs cut to
 * `PAYLOAD_LIMITS.logBytes`; variables over `variablesBytes` (and grown past what they were
 * before the script), a `generateValue` result or `$request` over `valueBytes`, or a whole result
 * over `activityResultBytes` fail the script (`kind: 'limit'`) and are dropped: the variables go
 * back to `before`. An error the script itself raised is kept as the reason.
 */
export function capScriptResult(result: ScriptResult, before: Record<string, unknown>): ScriptResult {
  const out: ScriptResult = { ...result };
  const failures: string[] = [];
  const { logs, cutFrom } = capLogs(out.logs);
  out.logs = logs;
  if (cutFrom !== undefined) failures.push(overCapMessage('script logs', cutFrom, PAYLOAD_LIMITS.logBytes, 'exceed'));
  const variableBytes = jsonBytes(out.variables);
  if (variableBytes > PAYLOAD_LIMITS.variablesBytes && variableBytes > jsonBytes(before)) {
    failures.push(overCapMessage('script variables', variableBytes, PAYLOAD_LIMITS.variablesBytes, 'exceed'));
    out.variables = before;
  }
  const valueBytes = jsonBytes(out.value);
  if (valueBytes > PAYLOAD_LIMITS.valueBytes) {
    failures.push(overCapMessage('the generateValue result', valueBytes, PAYLOAD_LIMITS.valueBytes));
    out.value = undefined;
  }
  const requestBytes = jsonBytes(out.request);
  if (requestBytes > PAYLOAD_LIMITS.valueBytes) {
    failures.push(overCapMessage('$request', requestBytes, PAYLOAD_LIMITS.valueBytes));
    out.request = undefined;
  }
  if (failures.length === 0) {
    const total = jsonBytes(out);
    if (total <= PAYLOAD_LIMITS.activityResultBytes) return out;
    failures.push(overCapMessage('the script result', total, PAYLOAD_LIMITS.activityResultBytes));
    out.value = undefined;
    out.request = undefined;
    out.variables = before;
  }
  if (out.ok) {
    out.ok = false;
    out.error = { kind: 'limit', message: failures.join('; ') };
  }
  // Never more than the variables that came in, the logs and a bounded message: within the cap.
  if (jsonBytes(out) > PAYLOAD_LIMITS.activityResultBytes) out.logs = capLogs(out.logs, 16 * 1024).logs;
  return out;
}

/**
 * An API node's output within `PAYLOAD_LIMITS.activityResultBytes` (hooks were capped on their
 * own by {@link capScriptResult}): first the response body is cut (as text, flagged `truncated`),
 * then the request body; if still over, the node fails with the reason as its network-level error.
 */
export function capApiNodeOutput(out: ApiNodeOutput, before: Record<string, unknown>): ApiNodeOutput {
  const cap = PAYLOAD_LIMITS.activityResultBytes;
  let total = jsonBytes(out);
  if (total <= cap) return out;
  const original = total;
  const capped: ApiNodeOutput = { ...out };
  const ex = capped.exchange;
  if (ex && ex.body !== undefined) {
    const bodyBytes = jsonBytes(ex.body);
    const room = Math.max(0, cap - (total - bodyBytes) - 1024);
    const text = typeof ex.body === 'string' ? ex.body : JSON.stringify(ex.body);
    capped.exchange = { ...ex, body: room > 0 ? cutToBytes(text, Math.floor(room / 2)) : undefined, truncated: true };
    total = jsonBytes(capped);
  }
  if (total > cap && capped.request.body !== undefined) {
    capped.request = { ...capped.request, body: undefined };
    total = jsonBytes(capped);
  }
  if (total <= cap) return capped;
  const message = overCapMessage('the node result', original, cap);
  return {
    request: { method: capped.request.method, url: cutToBytes(capped.request.url, 8192), headers: {} },
    exchange: capped.exchange
      ? { ...capped.exchange, headers: {}, body: undefined, error: message, errorCode: 'RESULT_TOO_LARGE' }
      : undefined,
    attempts: capped.attempts,
    variables: before,
    logs: capLogs(capped.logs, 16 * 1024).logs,
    scriptError: capped.exchange ? capped.scriptError : { hook: 'beforeRequest', message },
    finishedAtMs: capped.finishedAtMs,
  };
}

/** True when `status` is listed in `onStatus` (numbers, or classes such as "5xx"). */
export function statusMatches(status: number, onStatus: Array<number | string>): boolean {
  return onStatus.some((s) =>
    typeof s === 'number' ? s === status : /^[1-5]xx$/.test(s) && Math.floor(status / 100) === Number(s[0]),
  );
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), if any. */
function retryAfterMs(headers: Record<string, string>): number | undefined {
  const value = headers['retry-after'];
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * What one API node execution gets from its caller besides its input; all optional. The activity
 * gives its own (see {@link activityCall}); a plain call (activities/direct-port.ts, benches) may
 * give none.
 */
export interface NodeCall {
  /** Value of the {@link EXECUTION_HEADER} header; none: the header is not sent. */
  executionId?: string;
  /** Aborts a request under way (it ends as `CANCELLED`). */
  signal?: AbortSignal;
  /** Waits between attempts, ms (default: a plain timer). May reject to stop the node. */
  sleep?(ms: number): Promise<void>;
  /**
   * False: the output is not held to Temporal's payload cap (`capApiNodeOutput`), because it never
   * becomes a payload (the direct port: load tests). Default true.
   */
  capOutput?: boolean;
  /**
   * True: each request is a client span of the active trace and carries its `traceparent`
   * (src/observability/tracing.ts `startClientSpan`; only when traces are on). Set for activities,
   * not for load tests' virtual users.
   */
  trace?: boolean;
  /**
   * Where files named by `multipart` and `file` are read (a load shard's own cache); default the
   * node IO's ({@link createNodeIO} `files`).
   */
  files?: FileSource;
}

/** The value of header `name` (any letter case) in `headers`, if set. */
function headerOf(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((h) => h.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

/** `headers` with `Content-Type: type`, replacing any spelling of it already there. */
function withContentType(headers: Record<string, string>, type: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() !== 'content-type') out[name] = value;
  out['content-type'] = type;
  return out;
}

async function pause(ms: number, call: NodeCall): Promise<void> {
  if (call.sleep) {
    try {
      await call.sleep(ms);
      return;
    } catch (err) {
      if (err instanceof CancelledFailure) throw err;
    }
  }
  await new Promise((r) => setTimeout(r, ms));
}

/**
 * Sends the request, retrying as the policy says, within the run's deadline; each send through
 * `gate` (the run's per-origin limits, src/net/origin-gate.ts) when given.
 */
async function sendWithRetries(
  request: ResolvedRequest,
  retry: RetryPolicy | undefined,
  deadlineMs: number,
  agent: Agent,
  call: NodeCall,
  upload?: PreparedUpload,
  gate?: RequestGate,
): Promise<{ exchange: HttpExchange; attempts: AttemptResult[] }> {
  const policy = {
    attempts: retry?.attempts ?? 1,
    delayMs: retry?.delayMs ?? 500,
    backoff: retry?.backoff ?? 2,
    maxDelayMs: retry?.maxDelayMs ?? 10_000,
    onStatus: retry?.onStatus ?? [429, '5xx'],
    onNetworkError: retry?.onNetworkError ?? true,
  };
  const attempts: AttemptResult[] = [];
  let delay = policy.delayMs;
  for (let attempt = 1; ; attempt++) {
    const timeLeft = deadlineMs - Date.now();
    const exchange = await sendHttpRequest(
      { ...request, timeoutMs: Math.max(1, Math.min(request.timeoutMs, timeLeft)) },
      agent,
      call.signal,
      call.trace,
      upload?.bytes,
      gate,
    );
    // Every attempt sends the same bytes (built once, before the first).
    if (upload) exchange.sentFiles = upload.sent;
    const record: AttemptResult = { attempt, status: exchange.status, error: exchange.error, timeMs: exchange.timeMs };
    attempts.push(record);
    if (attempt >= policy.attempts) return { exchange, attempts };
    const retryable = exchange.error
      ? policy.onNetworkError &&
        exchange.errorCode !== 'INVALID_URL' &&
        exchange.errorCode !== 'CANCELLED' &&
        exchange.errorCode !== ORIGIN_LIMIT_TIMEOUT &&
        exchange.errorCode !== ADDRESS_NOT_ALLOWED
      : exchange.status !== undefined && statusMatches(exchange.status, policy.onStatus);
    if (!retryable) return { exchange, attempts };
    const wait = Math.min(policy.maxDelayMs, retryAfterMs(exchange.headers) ?? delay);
    if (Date.now() + wait >= deadlineMs) return { exchange, attempts };
    record.delayMs = wait;
    await pause(wait, call);
    delay = Math.min(policy.maxDelayMs, delay * policy.backoff);
  }
}

/**
 * Header sent with every API node's request: an id of this node execution that stays the same when
 * the node is executed again after a worker crash (the activity runs again; Temporal delivers
 * requests at least once), and across the node's own retry attempts. A tested service may use it to
 * drop a repeated request. A header of that name set by the test case wins. docs/flows.md.
 */
export const EXECUTION_HEADER = 'x-assay-execution';

/**
 * The current activity's {@link NodeCall}: the node execution id (the input's `execution`,
 * src/flow/execution-id.ts; for an input recorded before those ids,
 * `<workflowId>/<workflow run id>/<activity id>`), its cancellation signal and its cancellable
 * sleep. Empty outside an activity (a bench calling the activity functions directly).
 */
function activityCall(execution: string | undefined): NodeCall {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return {};
  }
  const wf = context.info.workflowExecution;
  return {
    executionId: execution ?? (wf ? `${wf.workflowId}/${wf.runId}/${context.info.activityId}` : undefined),
    signal: context.cancellationSignal,
    sleep: (ms) => context.sleep(ms),
    trace: tracingEnabled(),
  };
}

/**
 * The heavy-expression fallback: evaluates on `pool` (a worker thread, {@link ACTIVITY_LIMITS}, a
 * wall-clock limit) an expression too heavy for the in-workflow step budget. The value is capped
 * at `PAYLOAD_LIMITS.valueBytes` (`RESULT_TOO_LARGE`). Errors come back as data, never thrown.
 */
export async function evaluateHeavyExpression(
  pool: ExpressionPool,
  expression: string,
  input: unknown,
): Promise<PoolResult> {
  const out = await pool.evaluate(expression, input);
  if (out.error) return out;
  const bytes = jsonBytes(out.value);
  if (bytes > PAYLOAD_LIMITS.valueBytes)
    return {
      error: {
        message: overCapMessage('the expression result', bytes, PAYLOAD_LIMITS.valueBytes),
        code: 'RESULT_TOO_LARGE',
      },
    };
  return out;
}

/**
 * What executes API and Script nodes over a sandbox and the agent API nodes send through (the
 * address policy's `agent('node')`, src/net/address-policy.ts): plain async functions, shared by
 * the activities ({@link createNodeActivities}) and the in-process port (activities/direct-port.ts).
 * Neither throws for what the user's request or script does. `files`: where requests' `multipart`
 * and `file` refs are read (activities/files.ts; a call's `NodeCall.files` overrides it); without
 * one, such a request fails `FILE_NOT_FOUND` unsent. `gate`: the worker's origin gate
 * (src/net/origin-gate.ts), which holds the requests of an input with `originLimits` to the run's
 * per-origin limits; without one, such limits are not applied. A store that cannot be read throws
 * (the activity is retried).
 */
export function createNodeIO(
  sandbox: Sandbox,
  httpAgent: Agent,
  auth?: AuthProfiles,
  files?: FileSource,
  gate?: OriginGate,
) {
  return {
    /** An API node: beforeRequest hook, the request (with retries), afterResponse hook. */
    async executeApiNode(input: ApiNodeInput, call: NodeCall = {}): Promise<ApiNodeOutput> {
      const scope = {
        runId: input.runId,
        variables: input.variables,
        nodes: input.nodes,
        loop: input.loop,
        loops: input.loops,
        testCase: input.testCase,
      };
      let variables = input.variables;
      const logs: ScriptLogLine[] = [];
      const checks: ScriptCheck[] = [];
      let request: ApiNodeOutput['request'] = {
        method: input.request.method,
        url: input.request.url,
        headers: input.request.headers,
        body: input.request.body,
      };
      const end = (out: Omit<ApiNodeOutput, 'finishedAtMs' | 'logs' | 'variables' | 'request'>): ApiNodeOutput => {
        const whole = {
          ...out,
          request,
          variables,
          logs: capLogs(logs).logs,
          ...(checks.length ? { tests: checks.slice(0, 200) } : {}),
          finishedAtMs: Date.now(),
        };
        return call.capOutput === false ? whole : capApiNodeOutput(whole, input.variables);
      };

      // Files (docs/flows.md "Files"): read and the body built before anything runs; a ref naming
      // no file fails the node with nothing sent (no hook either).
      const upload = await prepareUpload(
        input.request,
        call.files ?? files,
        input.runId,
        headerOf(input.request.headers, 'content-type'),
      );
      if (upload && 'missing' in upload) {
        const notSent: HttpExchange = {
          headers: {},
          size: 0,
          truncated: false,
          timeMs: 0,
          error: upload.message,
          errorCode: FILE_NOT_FOUND,
          finishedAtMs: Date.now(),
        };
        return end({ exchange: notSent, attempts: [] });
      }
      if (upload)
        request = { ...request, headers: withContentType(request.headers, upload.contentType), body: undefined };

      // The onion (docs/flows.md "Hooks"): outer hooks outermost first, then the node's own script.
      const layers: Array<{ level?: OuterHook['level']; script: ScriptConfig }> = [
        ...(input.outerHooks ?? []),
        ...(input.script ? [{ script: input.script }] : []),
      ];
      const runHook = async (
        layer: (typeof layers)[number],
        hook: 'beforeRequest' | 'afterResponse',
        response?: ScriptResponse,
        shown: ApiNodeOutput['request'] = request,
      ) => {
        const r = capScriptResult(
          await sandbox.execute({
            ...scope,
            script: layer.script,
            hook,
            // A request with files: hooks see its parts or file as results show them (docs/flows.md "Files").
            request: upload ? { ...shown, ...upload.sent } : shown,
            ...(response ? { response } : {}),
            label: layer.level ? `${input.label}.${layer.level.replace(' ', '')}.${hook}` : `${input.label}.${hook}`,
            variables,
          }),
          variables,
        );
        logs.push(...r.logs);
        checks.push(...(r.tests ?? []));
        variables = r.variables;
        return r;
      };
      const hookError = (layer: (typeof layers)[number], hook: 'beforeRequest' | 'afterResponse', r: ScriptResult) => ({
        hook,
        ...(layer.level ? { level: layer.level } : {}),
        message: r.error!.message,
        line: r.error!.line,
        column: r.error!.column,
      });

      for (const layer of layers) {
        if (!/\bbeforeRequest\b/.test(layer.script.code)) continue;
        const r = await runHook(layer, 'beforeRequest');
        if (!r.ok) return end({ attempts: [], scriptError: hookError(layer, 'beforeRequest', r) });
        if (r.request) {
          // `parts` and `file` are read-only: what is sent is always the files' bytes.
          const { parts: _parts, file: _file, ...changed } = r.request;
          request = { ...request, ...changed, headers: { ...(changed.headers ?? {}) } };
        }
      }

      // afterResponse in reverse order of the onion: the node's own, then the folders', then the test case's.
      // The scripts see the request as sent (`sentHeaders`: credentials and signatures, Host, …);
      // those headers stay in the worker: the result keeps the request as shown (secrets masked).
      const afterResponse = async (sent: HttpExchange, attempts: AttemptResult[]): Promise<ApiNodeOutput> => {
        const { sentHeaders, ...exchange } = sent;
        const asSent = sentHeaders ? { ...request, headers: sentHeaders } : request;
        if (exchange.error) {
          // No response: only an imported Postman request's test scripts run, with an empty
          // `pm.response`, as Newman runs them (src/domain/postman-parameters.ts `runsWithoutResponse`).
          for (const layer of [...layers].reverse()) {
            if (!runsWithoutResponse(layer.script.code)) continue;
            const r = await runHook(layer, 'afterResponse', undefined, asSent);
            if (!r.ok) return end({ exchange, attempts, scriptError: hookError(layer, 'afterResponse', r) });
          }
        } else {
          const response: ScriptResponse = {
            status: exchange.status,
            headers: exchange.headers,
            body: exchange.body,
            time: exchange.timeMs,
            ...(exchange.url ? { url: exchange.url } : {}),
            ...(exchange.redirectCookies ? { redirectCookies: exchange.redirectCookies } : {}),
          };
          for (const layer of [...layers].reverse()) {
            if (!/\bafterResponse\b/.test(layer.script.code)) continue;
            const r = await runHook(layer, 'afterResponse', response, asSent);
            if (!r.ok) return end({ exchange, attempts, scriptError: hookError(layer, 'afterResponse', r) });
          }
        }
        return end({ exchange, attempts });
      };

      // The files are the body (a hook's `$request.body` is not sent); the multipart boundary is the
      // encoder's: a hook's Content-Type cannot replace it.
      if (upload)
        request = {
          ...request,
          body: undefined,
          ...(input.request.multipart ? { headers: withContentType(request.headers, upload.contentType) } : {}),
        };
      const execution = call.executionId;
      if (execution && !Object.keys(request.headers).some((h) => h.toLowerCase() === EXECUTION_HEADER)) {
        request = { ...request, headers: { ...request.headers, [EXECUTION_HEADER]: execution } };
      }
      const resolved: ResolvedRequest = {
        ...input.request,
        method: request.method.toUpperCase() as ResolvedRequest['method'],
        url: request.url,
        headers: request.headers,
        body: request.body,
      };
      let exchange: HttpExchange;
      let attempts: AttemptResult[];
      // The run's per-origin limits (docs/parallel.md "Protecting the target"); none: no gate, no store access.
      const gated = requestGate(gate, {
        runId: input.runId,
        limits: input.originLimits,
        deadlineMs: input.deadlineMs,
        ...(call.signal ? { signal: call.signal } : {}),
      });
      if (input.authProfile) {
        // An auth profile (src/auth/apply.ts): its credential added, a 401 renewing an OAuth 2.0 token once.
        const sent = await sendWithProfile(input, resolved, auth, (r) =>
          sendWithRetries(r, input.retry, input.deadlineMs, httpAgent, call, upload, gated),
        );
        if ('error' in sent) return maskOutput(end({ exchange: sent.error, attempts: [] }), sent, input.variables);
        ({ exchange, attempts } = sent);
        request = { ...request, url: sent.shownUrl, headers: { ...request.headers, ...sent.shownHeaders } };
        const out = await afterResponse(exchange, attempts);
        return maskOutput(out, sent, input.variables);
      }
      ({ exchange, attempts } = await sendWithRetries(
        resolved,
        input.retry,
        input.deadlineMs,
        httpAgent,
        call,
        upload,
        gated,
      ));
      return afterResponse(exchange, attempts);
    },

    /** A Script node: the code's top level, and `generateValue` when asked. */
    async runScript(input: ScriptNodeInput): Promise<ScriptNodeOutput> {
      const raw = await sandbox.execute({
        runId: input.runId,
        script: input.script,
        hook: input.generateValue ? 'generateValue' : undefined,
        variables: input.variables,
        nodes: input.nodes,
        loop: input.loop,
        loops: input.loops,
        testCase: input.testCase,
        label: input.label,
      });
      return { ...capScriptResult(raw, input.variables), finishedAtMs: Date.now() };
    },
  };
}

/**
 * The node activities: {@link createNodeIO}'s functions in the activity's context, the
 * heavy-expression fallback and the no-op that ends a workflow task. API and Script nodes run
 * through `records` (the worker's node execution records, activities/recorded.ts) when given;
 * API requests through `gate` (the run's per-origin limits, src/net/origin-gate.ts) when given.
 */
export function createNodeActivities(
  sandbox: Sandbox,
  httpAgent: Agent,
  auth?: AuthProfiles,
  records?: NodeExecutionRecords,
  files?: FileSource,
  gate?: OriginGate,
) {
  const nodes = createNodeIO(sandbox, httpAgent, auth, files, gate);
  return {
    /**
     * An API node: beforeRequest hook, the request (with retries), afterResponse hook; at most once
     * across crashes (activities/recorded.ts). Its duration goes to `assay_node_duration_seconds`
     * by outcome (src/observability/metrics.ts).
     */
    async executeApiNode(input: ApiNodeInput): Promise<ApiNodeOutput> {
      return recordedExecution(records, input, async () => {
        const started = performance.now();
        const out = await nodes.executeApiNode(input, activityCall(input.execution));
        observeApiNode(out, performance.now() - started);
        return out;
      });
    },

    /** A Script node: the code's top level, and `generateValue` when asked; at most once across crashes (activities/recorded.ts). */
    runScript(input: ScriptNodeInput): Promise<ScriptNodeOutput> {
      return recordedExecution(records, input, () => nodes.runScript(input));
    },

    /**
     * Evaluates an expression too heavy for the workflow's step budget, with a larger budget, on a
     * worker thread that is terminated past its time limit (src/expression-pool/pool.ts), never
     * on the worker's main thread. Errors come back as data.
     */
    evaluateExpression(input: {
      expression: string;
      input: unknown;
    }): Promise<{ value?: unknown; error?: { message: string; code: string } }> {
      return evaluateHeavyExpression(sharedExpressionPool(), input.expression, input.input);
    },

    /** Does nothing: a normal activity that ends a workflow task (see workflows/workflow-port.ts). */
    async endWorkflowTask(): Promise<void> {},

    /** `endWorkflowTask`'s old name, for runs started before the rename (workflows/workflow-port.ts `END_WORKFLOW_TASK_PATCH`). */
    async checkpoint(): Promise<void> {},
  };
}
