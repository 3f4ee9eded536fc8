/**
 * Callback nodes' side of the interpreter's port (docs/async.md "Callbacks"): the address of a
 * Callback node and the durable wait for the requests sent to it. Implemented by the workflow port
 * (a signal handler and a buffer in the workflow: workflows/workflow-port.ts); the direct port has
 * none (a Callback node fails there, saying so).
 */
import type { ReceivedCallback } from './types';

/** What a wait at a Callback node's address gave. */
export interface CallbackWaitOutcome {
  /** The matching callbacks consumed, in arrival order (at most `count`). */
  accepted: ReceivedCallback[];
  /** Callbacks looked at that did not match (they stay for later waits at the same address). */
  unmatched: number;
  /** Whether the wait ended by its timeout (or the run's deadline) before `count` matched. */
  timedOut: boolean;
  /** The callback id (`cb_…`). */
  id: string;
  /** Epoch ms: the wait began, and when it would end at the latest. */
  sinceMs: number;
  untilMs: number;
  /** Callbacks at this address dropped unread because the buffer was full (100 per address). */
  dropped: number;
}

/** What the interpreter asks of the port for Callback nodes. */
export interface CallbackPort {
  /** The address of the Callback node `key` identifies (test case, Ref chain, node id). */
  url(key: string): string;
  /**
   * Waits until `count` callbacks at `key` are accepted by `accept` (callbacks already received
   * first, in arrival order), or `timeoutMs` passes (never past the run's deadline).
   */
  wait(request: {
    key: string;
    nodeId: string;
    count: number;
    timeoutMs: number;
    summary: string;
    /** The node's `match`, for the live state and the Web UI's details. */
    match?: string;
    accept: (callback: ReceivedCallback) => Promise<boolean>;
  }): Promise<CallbackWaitOutcome>;
}
