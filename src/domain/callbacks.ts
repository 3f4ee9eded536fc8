/**
 * Callback nodes' side of the interpreter's port (docs/async.md "Callbacks"): the address of a
 * Callback node and the durable wait for the requests sent to it. Implemented by the workflow port
 * (a signal handler and a buffer in the workflow); the direct port has none (a Callback node fails
 * there, saying so).
 */
import type { ReceivedCallback } from './types';

/** What the interpreter asks of the port for Callback nodes. */
export interface CallbackPort {
  /** The address of the Callback node `key` identifies (test case, Ref chain, node id). */
  url(key: string): string;
  /** Waits until `count` callbacks at `key` are accepted by `accept`, or `timeoutMs` passes. */
  wait(request: {
    key: string;
    count: number;
    timeoutMs: number;
    summary: string;
    accept: (callback: ReceivedCallback) => Promise<boolean>;
  }): Promise<{ accepted: ReceivedCallback[]; unmatched: number; timedOut: boolean }>;
}
