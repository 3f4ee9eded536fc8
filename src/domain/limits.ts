/**
 * Size caps on every value that crosses into a run's Temporal history.
 *
 * Temporal refuses a gRPC message over 4 MB (`GrpcMessageTooLarge`: the workflow task fails and is
 * retried until the run's timeout) and warns about payloads over 2 MB; a workflow whose history
 * outgrows its limits is terminated by Temporal. So what an activity returns to a run workflow
 * (`executeApiNode`, `runScript`, `evaluateExpression` in activities/nodes.ts) and what the
 * workflow hands to the store activities (`recordTestCaseResult`, `finishRun` in
 * activities/runs.ts) is kept well under that:
 *
 * | value                                                        | cap      |
 * |--------------------------------------------------------------|----------|
 * | one activity result, whole (JSON, UTF-8 bytes)               | 512 KiB  |
 * | script logs of one node (all lines, hooks together)          | 128 KiB  |
 * | variables after a script or hook                             | 256 KiB  |
 * | a `generateValue` result, an expression result, `$request`   | 256 KiB  |
 * | one test case result as recorded                             | 512 KiB  |
 * | a run's plan as `startRun` returns it: a performance run's   | 1.5 MiB  |
 * |   whole; a functional run's all but its test cases, with its |          |
 * |   largest test case                                          |          |
 * | one page of a plan's test cases (`loadPlanTestCases`)        | 256 KiB  |
 * | a functional run's whole plan as stored (`storedJsonBytes`)  | 12 MiB   |
 * | a normal activity's input (variables, earlier nodes)         | 1.5 MiB  |
 *
 * When a cap bites on a node's own output the node fails with a message naming the value and the
 * cap (e.g. "script variables exceed 256 KiB (4.0 MiB)"); what is over the cap is not kept (the
 * variables stay as they were before the script, logs keep their first lines). A test case result
 * over its cap is recorded with logs, then variable values, then node details left out, flagged
 * in its `error`. Nothing here throws.
 *
 * Pure and deterministic: also used inside workflow code (workflows/run.ts).
 */
import type { NodeResult, ScriptLogLine, TestCaseResult } from './types';

const KiB = 1024;

/** The caps, bytes of JSON in UTF-8 (docs/security.md, "Payload caps"). */
export const PAYLOAD_LIMITS = {
  activityResultBytes: 512 * KiB,
  logBytes: 128 * KiB,
  variablesBytes: 256 * KiB,
  valueBytes: 256 * KiB,
  testCaseResultBytes: 512 * KiB,
  /**
   * The input of a normal (not local) node activity, written to history with its scheduling:
   * variables and, for scripts, earlier nodes' requests and responses. Over it the node fails.
   */
  activityInputBytes: 1536 * KiB,
  /**
   * The frozen plan `startRun` returns (and continue-as-new carries): a performance run's whole
   * plan, a functional run's plan without its test cases together with its largest test case
   * (activities/runs.ts `startRun` with `outline`). Over it the run fails to start.
   */
  planBytes: 1536 * KiB,
  /**
   * A functional run's whole frozen plan as kept in its row (`runs.plan`), which never crosses into
   * history whole: the workflow loads its test cases a page at a time (activities/runs.ts
   * `loadPlanTestCases`). Counted as {@link storedJsonBytes} (as the store's write carries it),
   * so that the UPDATE that stores it stays under MariaDB's default `max_allowed_packet` of 16 MiB
   * (a statement over it is refused and its connection closed); bounded also because a worker
   * reads and parses the plan. Over it the run fails to start.
   */
  storedPlanBytes: 12 * 1024 * KiB,
} as const;

/**
 * JSON bytes of one page of a functional plan's test cases (activities/runs.ts: the first page
 * `startRun` returns with `outline`, and `loadPlanTestCases`' default): at most this, unless the
 * page's one test case alone is larger.
 */
export const OUTLINE_PAGE_BYTES = 256 * KiB;

/** UTF-8 byte length of a string (without TextEncoder, which workflow code may lack). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Bytes of `value` as JSON in UTF-8 (0 for undefined). A value JSON cannot write (a cycle, a
 * BigInt) counts as infinitely large, so a cap always bites on it.
 */
export function jsonBytes(value: unknown): number {
  if (value === undefined) return 0;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : utf8Bytes(text);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * Bytes of `value` as JSON in UTF-8 as a MySQL/MariaDB statement carries it: {@link jsonBytes}
 * plus one for each `"`, `\` and `'`, which the driver's string escaping doubles (mysql2's
 * sqlstring; JSON text has no raw control characters for it to escape). Typical test cases count
 * about a fifth more than their JSON; text full of escaped quotes up to twice as much.
 */
export function storedJsonBytes(value: unknown): number {
  if (value === undefined) return 0;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
  if (text === undefined) return 0;
  let escaped = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x27) escaped += 1;
  }
  return utf8Bytes(text) + escaped;
}

/** `512 KiB`, `4.0 MiB`, `17 bytes`. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'an unmeasurable size';
  if (bytes < KiB) return `${bytes} bytes`;
  if (bytes < KiB * KiB) return `${Math.round((bytes / KiB) * 10) / 10} KiB`.replace('.0 KiB', ' KiB');
  return `${(bytes / (KiB * KiB)).toFixed(1)} MiB`;
}

/**
 * "<what> exceeds <cap> (<size>); <reason> (docs/security.md, …)": the message of a node that a
 * cap failed. `verb` is `exceed` for a plural subject ("script variables exceed 256 KiB (4.0 MiB)");
 * `reason` says why the cap exists (default: run histories).
 */
export function overCapMessage(
  what: string,
  bytes: number,
  cap: number,
  verb: 'exceeds' | 'exceed' = 'exceeds',
  reason = 'the limit keeps run histories small',
): string {
  // Just over the cap, both round alike: give the exact figure instead.
  const size = formatBytes(bytes) === formatBytes(cap) ? `${bytes} bytes` : formatBytes(bytes);
  return `${what} ${verb} ${formatBytes(cap)} (${size}); ${reason} (docs/security.md, "Payload caps")`;
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes (never inside a surrogate pair). */
export function cutToBytes(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3 || utf8Bytes(text) <= maxBytes) return text;
  let bytes = 0;
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    if (pair) i++;
  }
  return text.slice(0, i);
}

/**
 * Logs within `maxBytes` (JSON bytes of the lines): the first lines whole, the line that crosses
 * the cap cut, then one `warn` line saying how much was left out.
 * @returns the logs kept, and `bytes` (the size of all logs) when some were cut.
 */
export function capLogs(
  logs: ScriptLogLine[],
  maxBytes: number = PAYLOAD_LIMITS.logBytes,
): { logs: ScriptLogLine[]; cutFrom?: number } {
  const total = jsonBytes(logs);
  if (total <= maxBytes) return { logs };
  const kept: ScriptLogLine[] = [];
  // Room for the marker line and JSON punctuation.
  let room = maxBytes - 256;
  for (const line of logs) {
    const size = jsonBytes(line) + 1;
    if (size <= room) {
      kept.push(line);
      room -= size;
      continue;
    }
    if (room > 64)
      kept.push({ level: line.level, message: `${cutToBytes(line.message, Math.floor((room - 48) / 2))}…` });
    break;
  }
  kept.push({
    level: 'warn',
    message: `[logs cut: ${formatBytes(total)} logged, at most ${formatBytes(maxBytes)} are kept]`,
  });
  return { logs: kept, cutFrom: total };
}

/** A short stand-in for a value: JSON cut to `chars` characters. */
export function previewValue(value: unknown, chars = 200): unknown {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length <= chars ? value : `${text.slice(0, chars)}… [cut: ${formatBytes(jsonBytes(value))}]`;
}

function mapNodes(
  nodes: NodeResult[],
  fn: (node: NodeResult) => NodeResult,
  item: (value: unknown) => unknown = (v) => v,
): NodeResult[] {
  return nodes.map((node) => {
    const out = fn({ ...node });
    if (out.children) out.children = mapNodes(out.children, fn, item);
    if (out.iterationResults) {
      out.iterationResults = out.iterationResults.map((it) => ({
        ...it,
        ...(it.item !== undefined ? { item: item(it.item) } : {}),
        nodes: mapNodes(it.nodes, fn, item),
      }));
    }
    return out;
  });
}

/**
 * A test case result within `maxBytes` as JSON (the input of `recordTestCaseResult`, stored and
 * returned under `details.testCases`). Over the cap, in order until it fits: node logs are
 * replaced by one line saying so; `variablesSet`, `condition` and failures' `expected`/`actual`
 * become short previews; the node tree is left out (failures kept, at most 50). `error` says
 * what was left out. Unchanged when it fits.
 */
export function capTestCaseResult(
  result: TestCaseResult,
  maxBytes: number = PAYLOAD_LIMITS.testCaseResultBytes,
): TestCaseResult {
  const size = jsonBytes(result);
  if (size <= maxBytes) return result;
  const note = (what: string) =>
    `Result cut to fit ${formatBytes(maxBytes)} (it had ${formatBytes(size)}): ${what} left out.`;
  const withError = (r: TestCaseResult, what: string): TestCaseResult => ({
    ...r,
    error: [result.error && cutToBytes(result.error, 4096), note(what)].filter(Boolean).join(' '),
  });

  const logLine: ScriptLogLine = {
    level: 'warn',
    message: `[logs left out: the test case result exceeded ${formatBytes(maxBytes)}]`,
  };
  let r = withError(
    { ...result, nodes: mapNodes(result.nodes, (n) => (n.logs ? { ...n, logs: [logLine] } : n)) },
    'script logs',
  );
  if (jsonBytes(r) <= maxBytes) return r;

  const previews = (n: NodeResult): NodeResult => {
    if (n.variablesSet)
      n.variablesSet = Object.fromEntries(Object.entries(n.variablesSet).map(([k, v]) => [k, previewValue(v)]));
    if (n.condition !== undefined) n.condition = previewValue(n.condition);
    if (n.error) n.error = cutToBytes(n.error, 4096);
    return n;
  };
  const failures = (list: TestCaseResult['failures']) =>
    list.slice(0, 50).map((f) => ({
      ...f,
      expected: previewValue(f.expected),
      actual: previewValue(f.actual),
      message: cutToBytes(f.message, 2048),
    }));
  r = withError(
    { ...r, nodes: mapNodes(r.nodes, previews, previewValue), failures: failures(result.failures) },
    'script logs and large values',
  );
  if (jsonBytes(r) <= maxBytes) return r;

  return withError({ ...r, nodes: [] }, 'script logs, large values and node details');
}

/**
 * Deepest nesting a JSON document may have where it is stored in a JSON column. MariaDB's JSON
 * columns refuse documents nested 32 levels or more (a CHECK constraint with JSON_VALID), so a
 * result that carries a response body nested that deep would never be stored; the API refuses
 * request bodies beyond 31 levels for the same reason (src/validation/json-limits.ts).
 */
export const STORED_JSON_MAX_DEPTH = 30;

/**
 * `value` with every array or object nested deeper than `maxDepth` (the top level is depth 1)
 * replaced by the string `"…(cut: nested deeper than N levels)"`. Returns `value` itself when
 * nothing is that deep. Pure; never throws.
 */
export function capDepth<T>(value: T, maxDepth: number = STORED_JSON_MAX_DEPTH): T {
  const marker = `…(cut: nested deeper than ${maxDepth} levels)`;
  let cut = false;
  const walk = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (depth > maxDepth) {
      cut = true;
      return marker;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = walk(x, depth + 1);
    return out;
  };
  const result = walk(value, 1);
  return (cut ? result : value) as T;
}
