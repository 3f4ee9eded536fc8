/**
 * The contract between the flow interpreter (src/flow/) and what executes its API and
 * Script nodes: the inputs and outputs of the `executeApiNode` and `runScript` activities
 * (activities/nodes.ts), which the in-process port (activities/direct-port.ts) uses too.
 *
 * Pure type declarations (imported by workflow code).
 */
import type { AttemptResult, HttpExchange, ResolvedRequest, RetryPolicy, ScriptConfig, ScriptLogLine } from './types';
import type { ScriptResult, ScriptTest } from '../sandbox/sandbox';

/** Context a script sees besides the request: variables, earlier nodes, the loop, the test case. */
export interface ScriptScope {
  runId: string;
  /** Node id, names the script in stack traces. */
  label: string;
  variables: Record<string, unknown>;
  nodes?: Record<string, unknown>;
  loop?: unknown;
  testCase: { id: string; name: string };
}

/** Input of an API node: the resolved request, its hooks and retries, and the run's deadline. */
export interface ApiNodeInput extends ScriptScope {
  request: ResolvedRequest;
  script?: ScriptConfig;
  retry?: RetryPolicy;
  /** Epoch ms of the run's deadline: no attempt or delay runs past it. */
  deadlineMs: number;
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
  tests?: ScriptTest[];
  /**
   * A failed hook: the sandbox's message (whole, at most 4096 characters then a cut marker) and the
   * line and column of the user's code, when known.
   */
  scriptError?: { hook: 'beforeRequest' | 'afterResponse'; message: string; line?: number; column?: number };
  /** Epoch ms when the node ended (see HttpExchange.finishedAtMs). */
  finishedAtMs: number;
}

/** Input of a Script node. */
export interface ScriptNodeInput extends ScriptScope {
  script: ScriptConfig;
  /** Call the script's `generateValue` and return its value. */
  generateValue: boolean;
}

/** A Script node's result (the sandbox's, within the payload caps) and when it ended (epoch ms). */
export type ScriptNodeOutput = ScriptResult & { finishedAtMs: number };
