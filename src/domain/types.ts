/**
 * Domain types shared by the API, the workflows and the activities.
 *
 * Pure type declarations: this module is imported by workflow code, so it may not import Node
 * built-ins or anything with I/O (DESIGN.md, "Layout").
 */

/** A variable value: spec "Run creation input" allows strings, numbers and booleans. */
export type VariableValue = string | number | boolean;
export type Variables = Record<string, VariableValue>;

/** HTTP methods an API node may send. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/**
 * Assertion operators. `target` is a JSONata expression evaluated against
 * `{ response: { status, headers, body, time } , variables }`.
 *
 * - equals / notEquals: deep equality with `expected`
 * - exists / notExists: the target yields a value (not `undefined`)
 * - contains / notContains: substring of a string, element of an array, or key of an object
 * - greaterThan, greaterThanOrEqual, lessThan, lessThanOrEqual: numeric comparison
 * - inRange: `expected` is `[min, max]`, both inclusive
 * - oneOf: `expected` is an array; the target equals one of its elements
 * - matches: `expected` is a regular expression source (optionally `/source/flags`)
 * - matchesSchema: `expected` is a JSON Schema (draft 2020-12 or draft-07) checked with ajv
 * - isType: `expected` is one of string, number, integer, boolean, object, array, null
 */
export const ASSERTION_OPERATORS = [
  'equals',
  'notEquals',
  'exists',
  'notExists',
  'contains',
  'notContains',
  'greaterThan',
  'greaterThanOrEqual',
  'lessThan',
  'lessThanOrEqual',
  'inRange',
  'oneOf',
  'matches',
  'matchesSchema',
  'isType',
] as const;
export type AssertionOperator = (typeof ASSERTION_OPERATORS)[number];

export interface Assertion {
  /** JSONata expression, e.g. `response.status` or `response.body.items[0].id`. */
  target: string;
  operator: AssertionOperator;
  /** Compared value; absent for exists/notExists. */
  expected?: unknown;
  /** Optional label shown in results. */
  name?: string;
}

/** The request an API node sends; strings may hold `{{variable}}` placeholders. */
export interface RequestSpec {
  method: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  /** A JSON value sent as `application/json`, or a string sent as-is. */
  body?: unknown;
  /** Per-request timeout in milliseconds (default: ASSAY_REQUEST_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Follow 3xx redirects (default true). */
  followRedirects?: boolean;
}

export interface ApiNode {
  type: 'api';
  /** Identifier unique within the test case; later expressions read `nodes.<id>.response`. */
  id: string;
  name?: string;
  request: RequestSpec;
  assertions?: Assertion[];
}

/** A node of a test flow. Issue 2 knows API nodes; the interpreter rejects others with a clear error. */
export type FlowNode = ApiNode;

export interface TestCaseDefinition {
  id: string;
  name: string;
  folder: string;
  tags: string[];
  flow: FlowNode[];
}

/** What an API node's request turned into, as sent (after templating). */
export interface ResolvedRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  followRedirects: boolean;
  maxResponseBytes: number;
}

/** The response an activity observed. `error` is set instead of `status` when no response arrived. */
export interface HttpExchange {
  status?: number;
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, else the text; undefined for an empty body. */
  body?: unknown;
  /** Bytes received (before any cut). */
  size: number;
  /** True when the body was longer than the kept limit and was cut. */
  truncated: boolean;
  /** Elapsed time from sending to the end of the body, milliseconds. */
  timeMs: number;
  /** Network-level failure (connection refused, DNS, timeout), human readable. */
  error?: string;
  /** Stable code of a network failure, e.g. ECONNREFUSED, TIMEOUT. */
  errorCode?: string;
  /**
   * Epoch ms (worker clock) when the exchange ended. Recorded in history with the result, so the
   * workflow can read time deterministically between local activities, whose results arrive within
   * one workflow task where the workflow clock does not move.
   */
  finishedAtMs: number;
}

export interface AssertionResult {
  name?: string;
  target: string;
  operator: AssertionOperator;
  expected?: unknown;
  /** The value the target evaluated to (cut to a readable size). */
  actual?: unknown;
  passed: boolean;
  /** Why it failed, in words. */
  message?: string;
}

/** Test case status values (spec: `passed`; the rest are documented in docs/spec-choices.md). */
export type TestCaseStatus = 'passed' | 'failed' | 'skipped';

export interface NodeResult {
  id: string;
  name?: string;
  type: FlowNode['type'];
  status: 'passed' | 'failed' | 'skipped';
  /** Milliseconds spent in the node (request time for API nodes). */
  duration: number;
  request?: { method: string; url: string };
  response?: { status?: number; timeMs: number; size: number; truncated: boolean };
  error?: string;
  assertions?: AssertionResult[];
}

/** One test case's outcome as stored and returned under `details.testCases`. */
export interface TestCaseResult {
  testCaseId: string;
  name: string;
  status: TestCaseStatus;
  /** Milliseconds spent executing the test case's nodes. */
  duration: number;
  /** Number of assertions evaluated (spec: an integer). */
  assertions: number;
  passedAssertions: number;
  /** The assertions and node errors that failed, each with expected and actual values. */
  failures: Array<{ node: string; assertion?: string; operator?: string; expected?: unknown; actual?: unknown; message: string }>;
  nodes: NodeResult[];
  error?: string;
}

/** Spec "Run": summary object. */
export interface RunSummary {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
}

/** Spec "Run": progress object. `percentage` is 0 to 100. */
export interface RunProgress {
  completed: number;
  total: number;
  percentage: number;
}

/** Run status values (spec "States and transitions"). */
export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type RunResultValue = 'passed' | 'failed';

/** How a run was started. */
export type RunTrigger = 'api' | 'schedule' | 'webhook';

/** The frozen input of a run: written once when the run starts, replayed from history afterwards. */
export interface RunPlan {
  runId: string;
  workspaceId: string;
  runner: string;
  environment: string;
  timeoutSeconds: number;
  /** Epoch milliseconds when the run started (first time only). */
  startedAtMs: number;
  variables: Variables;
  testCases: TestCaseDefinition[];
  /** Worker settings frozen into history so that replay takes the same path. */
  settings: {
    apiNodeActivity: 'local' | 'normal';
    requestTimeoutMs: number;
    maxResponseBytes: number;
    /** Test cases per workflow execution before continuing as new. */
    testCasesPerExecution: number;
  };
}
