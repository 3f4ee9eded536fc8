/**
 * The input and output of the activity that runs a WebSocket or SSE node (docs/async.md
 * "WebSocket and SSE"): activities/streams.ts `runStreamNode`, called by the node handler
 * (src/flow/stream-node.ts) through the workflow port (an activity) or the direct port (in-process).
 * The handler fills the templates; the activity connects through the address policy, receives,
 * evaluates `until` after each message and returns what it kept, bounded (first and last
 * {@link KEPT_STREAM_MESSAGES} messages, each message's data cut to {@link STREAM_DATA_PREVIEW_CHARS}).
 */
import type { ApiNodeAuthProfile } from './auth-profiles';
import type { StreamMessage, StreamOutcome } from './types';

/** Messages kept at each end of a stream (`first`, `last`). */
export const KEPT_STREAM_MESSAGES = 20;
/** Characters of one kept message's data (longer data is cut by `preview`, src/domain/assertions.ts). */
export const STREAM_DATA_PREVIEW_CHARS = 4000;
/** The latest messages' data `until` sees as `messages`. */
export const UNTIL_WINDOW_MESSAGES = 1000;
/** Largest WebSocket message or SSE event accepted, bytes: a larger one ends the stream with an error. */
export const MAX_STREAM_MESSAGE_BYTES = 1024 * 1024;
/** Default and largest `maxMessages`, and the default `timeout` (docs/async.md). */
export const STREAM_DEFAULTS = { maxMessages: 100, maxMessagesCap: 10_000, timeout: '10s' } as const;

/** What the stream activity is given: everything resolved (templates filled, server joined). */
export interface StreamNodeInput {
  kind: 'websocket' | 'sse';
  /** The node id (logs, errors). */
  label: string;
  /** `ws://`/`wss://` for a WebSocket (`http(s)://` is taken as `ws(s)://`), `http(s)://` for SSE. */
  url: string;
  /** SSE: GET (default) or POST; a WebSocket handshake is always GET. */
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  /** SSE POST: a string is sent as it is, anything else as JSON. */
  body?: unknown;
  /** WebSocket: `Sec-WebSocket-Protocol` values offered (RFC 6455 §1.9). */
  subprotocols?: string[];
  /** WebSocket: text frames to send after the connection opened, in order, each after its delay. */
  send?: Array<{ text: string; delayMs?: number }>;
  /** JSONata evaluated after each message over {@link UntilInput}: receiving stops when it holds. */
  until?: string;
  maxMessages: number;
  /** Connecting and receiving together, ms. */
  timeoutMs: number;
  /** The auth profile whose headers (or query parameter) are added; `variables` fill its templates. */
  authProfile?: ApiNodeAuthProfile;
  variables?: Record<string, unknown>;
  /**
   * The node execution id (src/flow/execution-id.ts; docs/durability.md "Node execution ids"): the
   * `X-Assay-Execution` header of API requests, and the key of the execution's recorded outcome
   * (src/store/node-executions.ts). Absent where no id is made (load tests) and in inputs recorded
   * before it.
   */
  execution?: string;
}

/**
 * What `until` sees after each message: the data of the latest {@link UNTIL_WINDOW_MESSAGES}
 * messages in order, how many arrived, the first and the latest message's data, and the latest
 * message whole (`event`, `id` for SSE; `atMs`).
 */
export interface UntilInput {
  messages: unknown[];
  count: number;
  first: unknown;
  last: unknown;
  message: StreamMessage;
}

/** What the stream activity answers. Failures come back as data (`error`, `errorCode`), never thrown. */
export interface StreamNodeOutput {
  /** The request as sent (credentials of an auth profile masked). */
  request: { method: string; url: string; headers: Record<string, string> };
  /** What was received; `first`/`last` are the kept messages (see {@link KEPT_STREAM_MESSAGES}). */
  outcome: StreamOutcome;
  /** The handshake's response headers (lower-case names); empty when there was no answer. */
  headers: Record<string, string>;
  /** True when `until` held on a message; absent without `until`. */
  untilMet?: boolean;
  /** Bytes of message data received. */
  size: number;
  /** Connecting and receiving, ms. */
  timeMs: number;
  /**
   * Why the stream could not be used (connection refused, handshake answered 403, `until` failed
   * to evaluate…); absent when it was. Codes: `ADDRESS_NOT_ALLOWED`, `INVALID_URL`, `TIMEOUT`
   * (nothing connected in time), `HANDSHAKE_FAILED` (status in `outcome.status`), `NOT_EVENT_STREAM`,
   * `UNTIL_FAILED`, `MESSAGE_TOO_LARGE`, `AUTH_PROFILE_FAILED`, `CANCELLED`, the system's network
   * codes (`ECONNREFUSED`, `ENOTFOUND`, …) or `NETWORK_ERROR`. The node's result carries it
   * (NodeResult `errorCode`, docs/flows.md "Error codes").
   */
  error?: string;
  errorCode?: string;
  /** Epoch ms when it ended (moves the workflow's clock, as other activities' readings do). */
  finishedAtMs: number;
}
