/**
 * Poll nodes (docs/async.md "Polling"): the node's request is sent again and again until the
 * JSONata `until` holds on the response, with a delay between attempts (fixed or exponential
 * backoff, capped, with optional jitter), at most `maxAttempts` times within `timeout`; then the
 * node's assertions are evaluated on the last response.
 *
 * Each attempt is one `executeApiNode` of the port (an activity in a run, with the same request
 * building, hooks, auth profile and address policy as API nodes) and each delay one `port.sleep`
 * (a durable timer in a run): a worker or Temporal server restart between attempts resumes the
 * wait and sends no extra request. The awaits below are, in this order, the workflow's commands:
 * attempt, `until` (an expression that may need the heavy-expression activity), sleep, …, then the
 * assertions.
 *
 * Each attempt's result keeps the delay the node's settings gave (`plannedDelayMs`) and the one
 * that really passed (`delayMs`): `port.now()` before and after the sleep. A durable timer fires
 * no earlier than asked but can fire later (docs/async.md "Timer resolution": about 1 s on a
 * Temporal server with its default dynamic config). In a workflow that clock is the workflow's
 * (the activities' readings, then the time of the workflow task that follows the timer), recorded
 * in history, so a replay computes the same numbers; reading it adds no command.
 */
import type { ExpressionError } from '../domain/expressions';
import { truthy } from '../domain/expressions';
import type { AttemptResult, HttpExchange, NodeResult, PollNode, ResolvedRequest } from '../domain/types';
import type { FlowBase } from './flow-base';
import {
  resolveRequest,
  responseContext,
  responseResult,
  sentFilesResult,
  withFilesWorkspace,
  withMockScope,
} from './api-node';
import { where } from './script-node';
import { UnknownServerError } from './servers';
import { apiNodeAuthProfile, profileInResults } from '../domain/auth-profiles';
import { maskedAuth } from '../domain/request-auth';
import { evaluateAssertion } from '../domain/assertions';
import { formatDuration, nodeDurationMs } from '../domain/duration';
import type { RunWaiting } from '../domain/run-workflow';
import { debugExchange } from './debug';

/** Defaults of a Poll node's fields (src/domain/types.ts `PollNode`). */
export const POLL_DEFAULTS = {
  intervalMs: 1000,
  factor: 2,
  maxIntervalMs: 60_000,
  jitter: 0,
  maxAttempts: 30,
} as const;
/** Largest `maxAttempts` (the schema's bound, src/validation/flow-schemas.ts). */
export const POLL_MAX_ATTEMPTS = 1000;
/** Attempts listed in a result: the first and the last half of this many (every attempt keeps its number). */
export const POLL_KEPT_ATTEMPTS = 100;

/**
 * Error codes of an attempt that no later attempt can change (the request is refused, cannot be
 * built or was cancelled): the node fails at once instead of polling on.
 */
const PERMANENT_ERRORS = new Set([
  'ADDRESS_NOT_ALLOWED',
  'INPUT_TOO_LARGE',
  'INVALID_URL',
  'CANCELLED',
  'FILE_NOT_FOUND',
]);

/** A Poll node's delays, in ms (its `interval`, `backoff`, `factor`, `maxInterval`, `jitter` read). */
export interface PollDelays {
  intervalMs: number;
  backoff: 'fixed' | 'exponential';
  factor: number;
  maxIntervalMs: number;
  /** 0 to 1. */
  jitter: number;
}

/**
 * The delay after attempt number `attempt` (1 = the first), in whole ms: `intervalMs` each time
 * (`fixed`), or `intervalMs × factor^(attempt−1)` (`exponential`), never above `maxIntervalMs`;
 * then spread by `jitter` (a delay d becomes d × (1 + jitter × (2r − 1)) for r = `random()` in
 * [0, 1), as AWS's "equal jitter" spreads retries; `random` is only called when `jitter` > 0) and
 * capped again. Pure: `random` is the port's (deterministic in a workflow).
 */
export function pollDelayMs(attempt: number, delays: PollDelays, random: () => number = Math.random): number {
  const { intervalMs, maxIntervalMs } = delays;
  let ms =
    delays.backoff === 'exponential' ? intervalMs * Math.pow(delays.factor, Math.max(0, attempt - 1)) : intervalMs;
  ms = Math.min(ms, maxIntervalMs);
  if (delays.jitter > 0) ms = Math.min(maxIntervalMs, ms * (1 + delays.jitter * (2 * random() - 1)));
  return Math.max(0, Math.round(ms));
}

/** The settings of `node` read from its fields with their defaults. @throws DurationError with the field's name in front */
export function pollSettings(node: PollNode): PollDelays & { maxAttempts: number; timeoutMs?: number } {
  const duration = (field: 'interval' | 'maxInterval' | 'timeout', unit: 'ms' | 'seconds') => {
    const value = node[field];
    if (value === undefined) return undefined;
    try {
      return nodeDurationMs(value, unit);
    } catch (err) {
      throw new Error(`${field}: ${(err as Error).message}`, { cause: err });
    }
  };
  const intervalMs = duration('interval', 'ms') ?? POLL_DEFAULTS.intervalMs;
  return {
    intervalMs,
    backoff: node.backoff ?? 'fixed',
    factor: node.factor ?? POLL_DEFAULTS.factor,
    maxIntervalMs: Math.max(intervalMs, duration('maxInterval', 'ms') ?? POLL_DEFAULTS.maxIntervalMs),
    jitter: Math.min(1, Math.max(0, node.jitter ?? POLL_DEFAULTS.jitter)),
    maxAttempts: Math.min(POLL_MAX_ATTEMPTS, Math.max(1, Math.floor(node.maxAttempts ?? POLL_DEFAULTS.maxAttempts))),
    ...(node.timeout !== undefined ? { timeoutMs: duration('timeout', 'seconds') } : {}),
  };
}

/** `attempts` cut to the first and last halves of {@link POLL_KEPT_ATTEMPTS} (each keeps its number). */
function keptAttempts(attempts: AttemptResult[]): AttemptResult[] {
  if (attempts.length <= POLL_KEPT_ATTEMPTS) return attempts;
  const half = POLL_KEPT_ATTEMPTS / 2;
  return [...attempts.slice(0, half), ...attempts.slice(-half)];
}

/** `expr` on one line, at most 80 characters, for messages. */
function shortExpression(expr: string): string {
  const line = expr.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** What the last attempt gave, for messages: `last status 202` or `last error: connect ECONNREFUSED …`. */
function lastOutcome(ex: HttpExchange | undefined): string {
  if (!ex) return 'nothing sent';
  if (ex.error) return `last error: ${ex.error}`;
  return `last status ${ex.status}`;
}

/**
 * Runs a Poll node at `path` (see the module comment; each attempt's execution id is
 * `<path>#<attempt>`, execution-id.ts). Fails, as data, when the request cannot be built,
 * an attempt is refused (address policy) or its hooks fail, `until` cannot be evaluated, the
 * condition never held (`condition \`…\` did not hold after 30 attempts (last status 202)` or
 * `… within 2m`), or an assertion on the last response fails. A refused or unsendable attempt's
 * `errorCode` is the result's (docs/flows.md "Error codes"); a condition that never held has none,
 * whatever the last attempt's error was. Throws DeadlineReached only as API nodes do (an attempt
 * cut short by the run's deadline).
 */
export async function runPollNode(flow: FlowBase, node: PollNode, path: string): Promise<NodeResult> {
  const { port } = flow;
  const result = flow.base(node);
  const label = node.name ? `${node.name} (${node.id})` : node.id;
  let settings: ReturnType<typeof pollSettings>;
  try {
    settings = pollSettings(node);
  } catch (err) {
    return flow.fail(result, (err as Error).message);
  }
  const startedAt = port.now();
  // The run's deadline bounds the node's own timeout (never past it).
  const endAt = Math.min(port.deadlineMs, settings.timeoutMs === undefined ? Infinity : startedAt + settings.timeoutMs);
  const byDeadline = settings.timeoutMs === undefined || startedAt + settings.timeoutMs > port.deadlineMs;
  const condition = shortExpression(node.until);
  const outerHooks = flow.testCase.outerHooks;
  const authProfile = apiNodeAuthProfile(node.authProfile, flow.testCase.auth);
  const attempts: AttemptResult[] = [];
  let request: ResolvedRequest | undefined;
  let ex: HttpExchange | undefined;
  /** The last attempt's request as sent (a debug run's capture). */
  let sentRequest: { method: string; url: string; headers: Record<string, string>; body?: unknown } | undefined;
  let met = false;
  let failure: string | undefined;
  /** The errorCode of an attempt that failed the node at once (PERMANENT_ERRORS). */
  let failureCode: string | undefined;

  for (let attempt = 1; ; attempt++) {
    try {
      request = withFilesWorkspace(
        withMockScope(
          resolveRequest(node, flow.templateVariables(), port.dynamic, port.settings, port.servers),
          port.mockScope,
        ),
        port.workspaceId ?? port.mockScope?.workspaceId,
      );
    } catch (err) {
      if (!(err instanceof UnknownServerError)) throw err;
      flow.step(`${label}: not sent ✗ (${err.message})`);
      return flow.fail(result, err.message);
    }
    // An attempt never runs past the node's end.
    request = { ...request, timeoutMs: Math.max(1, Math.min(request.timeoutMs, endAt - port.now())) };
    // Each attempt is a node execution of its own: `<path>#<attempt>`.
    const execution = flow.executionId(`${path}#${attempt}`);
    const out = await port.executeApiNode(
      {
        ...flow.scope(),
        label: node.id,
        request,
        ...(outerHooks ? { outerHooks } : {}),
        variables: flow.state.variables,
        nodes: outerHooks ? flow.state.nodes : undefined,
        deadlineMs: port.deadlineMs,
        ...(authProfile ? { authProfile } : {}),
        ...(execution ? { execution } : {}),
      },
      flow.summary(`poll ${label} attempt ${attempt}/${settings.maxAttempts}: ${request.method} ${request.url}`),
    );
    flow.state.variables = out.variables;
    if (out.logs.length) result.logs = [...(result.logs ?? []), ...out.logs].slice(-100);
    result.request = {
      method: out.request.method,
      url: out.request.url,
      ...(request.auth ? { auth: maskedAuth(request.auth) } : {}),
      ...(authProfile ? { auth: profileInResults(authProfile) } : {}),
      ...sentFilesResult(out.exchange),
    };
    ex = out.exchange;
    sentRequest = out.request;
    const entry: AttemptResult = {
      attempt,
      ...(ex?.status !== undefined ? { status: ex.status } : {}),
      ...(ex?.error ? { error: ex.error } : {}),
      timeMs: ex?.timeMs ?? 0,
      conditionMet: false,
    };
    attempts.push(entry);
    if (out.scriptError) {
      result.line = out.scriptError.line;
      const whose = out.scriptError.level ? `${out.scriptError.level} ` : '';
      failure = `${whose}${out.scriptError.hook} failed${where(out.scriptError)}: ${out.scriptError.message}`;
      break;
    }
    if (ex && !ex.error) {
      const response = responseContext(ex);
      flow.state.nodes[node.id] = { request: out.request, response, attempts: attempt };
      let value: unknown;
      try {
        value = await port.evaluate(node.until, flow.expressionInput({ response, attempt }));
      } catch (err) {
        failure = `until: ${(err as ExpressionError).message}`;
        break;
      }
      if (truthy(value)) {
        entry.conditionMet = true;
        met = true;
        break;
      }
    } else if (ex?.errorCode && PERMANENT_ERRORS.has(ex.errorCode)) {
      failure = ex.error ?? ex.errorCode;
      failureCode = ex.errorCode;
      break;
    }
    if (attempt >= settings.maxAttempts) {
      failure = `condition \`${condition}\` did not hold after ${attempt} attempt${attempt === 1 ? '' : 's'} (${lastOutcome(ex)})`;
      break;
    }
    const delay = pollDelayMs(attempt, settings, port.dynamic.random);
    const now = port.now();
    if (now + delay >= endAt) {
      const within = formatDuration(Math.max(0, endAt - startedAt));
      failure = `condition \`${condition}\` did not hold within ${within}${byDeadline ? " (the run's deadline)" : ''} after ${attempt} attempt${attempt === 1 ? '' : 's'} (${lastOutcome(ex)})`;
      break;
    }
    entry.plannedDelayMs = delay;
    const waiting: RunWaiting = {
      nodeId: node.id,
      kind: 'poll',
      since: new Date(startedAt).toISOString(),
      until: new Date(endAt === Infinity ? now + delay : endAt).toISOString(),
      match: condition,
      attempt,
      maxAttempts: settings.maxAttempts,
      nextAttemptAt: new Date(now + delay).toISOString(),
    };
    port.setWaiting?.(waiting);
    await port.sleep(
      delay,
      flow.summary(
        `poll ${label}: attempt ${attempt + 1}/${settings.maxAttempts} in ${formatDuration(delay)} (${lastOutcome(ex)})`,
      ),
    );
    port.setWaiting?.(undefined);
    // What really passed, on the port's clock (deterministic in a workflow: see the module comment).
    entry.delayMs = Math.max(0, port.now() - now);
  }

  result.attempts = keptAttempts(attempts);
  result.duration = Math.max(0, port.now() - startedAt);
  if (ex) {
    result.response = responseResult(ex);
  }
  // A debug run: the last attempt's request and response (src/flow/debug.ts).
  if (flow.capturing && sentRequest) result.debug = debugExchange(sentRequest, ex);
  const sent = request ? `${request.method} ${request.url}` : 'not sent';
  const count = `${attempts.length} attempt${attempts.length === 1 ? '' : 's'}`;
  if (!met) {
    flow.step(`${label}: poll ${sent} → ${count}, ${lastOutcome(ex)} ✗`);
    return flow.failWithCode(result, failure ?? `condition \`${condition}\` did not hold`, failureCode);
  }
  const state = flow.state.nodes[node.id]!;
  const input = flow.expressionInput({ response: state.response, attempt: attempts.length });
  result.assertions = [];
  for (const assertion of node.assertions ?? [])
    flow.recordAssertion(result, assertion, await evaluateAssertion(assertion, input as never, port.evaluate));
  flow.step(
    `${label}: poll ${sent} → ${ex?.status} after ${count} (condition met)${result.status === 'failed' ? ' ✗' : ''}`,
  );
  return result;
}
