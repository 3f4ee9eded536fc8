/**
 * Debug capture (RunPlan `debug`, InterpreterPort `debug`; docs/console.md "The designer"): what a
 * debug run records of each node besides its result, NodeResult `debug` (src/domain/types.ts
 * `NodeDebugCapture`):
 *
 * - API and Poll nodes: the last attempt's request as sent (method, URL, headers, body, after the
 *   `beforeRequest` hooks and the auth profile; a request with files shows their metadata, `parts`
 *   or `file` as in NodeResult `request`, instead of a body) and its response (status, headers, body as the
 *   flow sees it, `nodes.<id>.response`: parsed when JSON; time);
 * - every node that ran: the flow's variables after it.
 *
 * Bounded three ways, so that a debug run's payloads stay within Temporal's (src/domain/limits.ts):
 * each body at most {@link DEBUG_BODY_LIMIT} characters (a text body: its characters; a parsed
 * body: its JSON text's; past it, the start of that text and `bodyTruncated`), the variables at
 * most {@link DEBUG_VARIABLES_LIMIT} characters of JSON (the largest values left out first,
 * `variablesTruncated`), a test case's captures together at most {@link DEBUG_TEST_CASE_LIMIT}
 * bytes (later captures `omitted`), and the test case's whole result within
 * `PAYLOAD_LIMITS.testCaseResultBytes` ({@link fitDebugCaptures}).
 *
 * Secrets: the captures hold the values the flow used; the store masks the run's secrets in the
 * whole result (activities/runs.ts, src/secrets/mask.ts), captures included, as it masks URLs and
 * errors. Pure and synchronous (no workflow command): workflow code calls it.
 */
import {
  DEBUG_BODY_LIMIT,
  DEBUG_TEST_CASE_LIMIT,
  DEBUG_VARIABLES_LIMIT,
  type HttpExchange,
  type NodeDebugCapture,
  type NodeResult,
  type TestCaseResult,
} from '../domain/types';
import { jsonBytes, PAYLOAD_LIMITS } from '../domain/limits';
import type { FlowState } from './types';

/** `text` cut to at most `limit` characters, never between the halves of a surrogate pair. */
function cutText(text: string, limit: number): string {
  let end = Math.min(limit, text.length);
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/**
 * A body as a capture keeps it: the body itself when its text is at most `limit` characters (a
 * string: its own characters; anything else: its JSON text's), else the start of that text and
 * `bodyTruncated: true`. `{}` for no body (undefined).
 */
export function debugBody(body: unknown, limit: number = DEBUG_BODY_LIMIT): { body?: unknown; bodyTruncated?: true } {
  if (body === undefined) return {};
  let text: string | undefined;
  try {
    text = typeof body === 'string' ? body : JSON.stringify(body);
  } catch {
    text = String(body);
  }
  if (text === undefined) return {};
  if (text.length <= limit) return { body };
  return { body: cutText(text, limit), bodyTruncated: true };
}

/**
 * Variables as a capture keeps them: a shallow copy when their JSON text is at most `limit`
 * characters; else without the largest values (by their JSON text, ties by name), left out one by
 * one until the rest fits, and `variablesTruncated: true`. Names keep their order.
 */
export function debugVariables(
  variables: Record<string, unknown>,
  limit: number = DEBUG_VARIABLES_LIMIT,
): { variables: Record<string, unknown>; variablesTruncated?: true } {
  const entries: Array<{ name: string; value: unknown; size: number }> = [];
  let total = 2;
  for (const [name, value] of Object.entries(variables)) {
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch {
      text = undefined;
    }
    // JSON leaves out an undefined value (and a function): so does the capture.
    if (text === undefined) continue;
    const size = JSON.stringify(name).length + 2 + text.length;
    entries.push({ name, value, size });
    total += size;
  }
  if (total <= limit) return { variables: Object.fromEntries(entries.map((e) => [e.name, e.value])) };
  const dropped = new Set<string>();
  const largest = [...entries].sort((a, b) => b.size - a.size || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of largest) {
    if (total <= limit) break;
    dropped.add(entry.name);
    total -= entry.size;
  }
  return {
    variables: Object.fromEntries(entries.filter((e) => !dropped.has(e.name)).map((e) => [e.name, e.value])),
    variablesTruncated: true,
  };
}

/**
 * The request and response parts of an API or Poll node's capture, from its last attempt: the
 * request as the node activity answered it sent (ApiNodeOutput `request`), the response from its
 * exchange (absent when none came: nothing sent, or a network error). `truncated` responses (over
 * `maxResponseBytes`) are flagged `bodyTruncated` too.
 */
export function debugExchange(
  request: { method: string; url: string; headers?: Record<string, string>; body?: unknown } | undefined,
  exchange: HttpExchange | undefined,
): NodeDebugCapture {
  const capture: NodeDebugCapture = {};
  // A request with files (docs/flows.md "Files"): their metadata, never their bytes, instead of a body.
  const files = exchange?.sentFiles;
  if (request)
    capture.request = {
      method: request.method,
      url: request.url,
      headers: { ...(request.headers ?? {}) },
      ...(files
        ? { ...(files.parts ? { parts: files.parts } : {}), ...(files.file ? { file: files.file } : {}) }
        : debugBody(request.body)),
    };
  if (exchange && exchange.status !== undefined) {
    const body = debugBody(exchange.body);
    capture.response = {
      status: exchange.status,
      headers: { ...exchange.headers },
      ...body,
      ...(exchange.truncated ? { bodyTruncated: true } : {}),
      timeMs: exchange.timeMs,
    };
  }
  return capture;
}

/** `capture` without bodies and variables (flagged as cut), `omitted`. */
function leanCapture(capture: NodeDebugCapture): NodeDebugCapture {
  const lean: NodeDebugCapture = {};
  if (capture.request) {
    const { body: _body, bodyTruncated, ...rest } = capture.request;
    lean.request = { ...rest, ...(bodyTruncated || _body !== undefined ? { bodyTruncated: true } : {}) };
  }
  if (capture.response) {
    const { body: _body, bodyTruncated, ...rest } = capture.response;
    lean.response = { ...rest, ...(bodyTruncated || _body !== undefined ? { bodyTruncated: true } : {}) };
  }
  if (capture.variables) lean.variablesTruncated = true;
  lean.omitted = true;
  return lean;
}

/**
 * `capture` as the test case's budget ({@link DEBUG_TEST_CASE_LIMIT}, counted in
 * `state.debugBytes`) allows it: whole when it fits what is left, else its lean form (no bodies,
 * no variables, `omitted`), else `{omitted: true}`. Adds what it keeps to `state.debugBytes`.
 */
export function withinDebugBudget(capture: NodeDebugCapture, state: FlowState): NodeDebugCapture {
  const used = state.debugBytes ?? 0;
  const whole = jsonBytes(capture);
  if (used + whole <= DEBUG_TEST_CASE_LIMIT) {
    state.debugBytes = used + whole;
    return capture;
  }
  const lean = leanCapture(capture);
  const leanBytes = jsonBytes(lean);
  const kept: NodeDebugCapture = used + leanBytes <= DEBUG_TEST_CASE_LIMIT ? lean : { omitted: true };
  state.debugBytes = used + (kept === lean ? leanBytes : jsonBytes(kept));
  return kept;
}

/**
 * Completes the capture of a node that ran (its request and response already put in by an API
 * or Poll node, src/flow/api-node.ts, poll-node.ts) with the variables after it, bounded, and
 * holds it to the test case's budget ({@link withinDebugBudget}). Called by the interpreter after
 * each node when capturing (FlowBase `capturing`).
 */
export function captureNode(result: NodeResult, state: FlowState): void {
  const capture: NodeDebugCapture = { ...(result.debug ?? {}), ...debugVariables(state.variables) };
  result.debug = withinDebugBudget(capture, state);
}

/** Every node result of `nodes` with its descendants (children, iterations), depth first, a node before its descendants. */
function allNodes(nodes: NodeResult[], out: NodeResult[] = []): NodeResult[] {
  for (const node of nodes) {
    out.push(node);
    if (node.children) allNodes(node.children, out);
    for (const it of node.iterationResults ?? []) allNodes(it.nodes, out);
  }
  return out;
}

/**
 * `result` with its captures held to `maxBytes` for the whole result (default
 * `PAYLOAD_LIMITS.testCaseResultBytes`: what the run records; src/domain/limits.ts
 * `capTestCaseResult` would otherwise leave out the whole node tree): over it, captures become
 * `{omitted: true}` from the last node backwards until it fits, or none is left. Unchanged (the
 * same object) when it fits. Changes the node results in place.
 */
export function fitDebugCaptures(
  result: TestCaseResult,
  maxBytes: number = PAYLOAD_LIMITS.testCaseResultBytes,
): TestCaseResult {
  let size = jsonBytes(result);
  if (size <= maxBytes) return result;
  const omitted: NodeDebugCapture = { omitted: true };
  const omittedBytes = jsonBytes(omitted);
  const nodes = allNodes(result.nodes).filter((n) => n.debug && jsonBytes(n.debug) > omittedBytes);
  for (let i = nodes.length - 1; i >= 0 && size > maxBytes; i--) {
    const node = nodes[i]!;
    size -= jsonBytes(node.debug) - omittedBytes;
    node.debug = { ...omitted };
  }
  return result;
}
