/**
 * Domain types shared by the API, the workflows and the activities.
 *
 * Pure type declarations: this module is imported by workflow code, so it may not import Node
 * built-ins or anything with I/O (eslint.config.mjs, the block for src/domain and src/flow).
 */

/** A variable value: spec "Run creation input" allows strings, numbers and booleans. */
import type { PerformancePlan } from '../perf/profile';
import type { FrozenAuthProfile } from './auth-profiles';
import type { MockVerifyEntry } from './mock-verify-io';
import type { MockViolation } from './mocks';

export type VariableValue = string | number | boolean;

/**
 * A secret variable at rest (docs/secrets.md; src/secrets/variables.ts `StoredSecret`): its value
 * sealed with the key ring (`v1.<keyId>.<iv>.<ciphertext>`), never the plain value.
 */
export interface SealedVariable {
  secret: true;
  sealed: string;
}

/** Plain variables only: names to strings, numbers or booleans (what templates and scripts get once secrets are opened). */
export type PlainVariables = Record<string, VariableValue>;

/**
 * Variables as stored on environment and run rows (and carried in a run's plan): plain values as
 * they are, secret ones sealed ({@link SealedVariable}). Open them with src/secrets/variables.ts
 * `openVariables` before use.
 */
export type Variables = Record<string, VariableValue | SealedVariable>;

/** The HTTP methods known by name: the console's, mocks' and the relay's list. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/**
 * A method an API node may send: a known one ({@link HTTP_METHODS}) or any other token RFC 9110
 * allows (§9.1, the `token` of §5.6.2: `PURGE`, `PROPFIND`, `MY-METHOD`); `CONNECT` excepted
 * (it opens a tunnel, not a request). Checked with {@link METHOD_TOKEN_PATTERN}.
 */
export type RequestMethod = HttpMethod | (string & {});

/** RFC 9110 §5.6.2 `token`, the syntax of a method (as a regular expression source). */
export const METHOD_TOKEN_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$";

/**
 * Methods whose request body an API node drops unless `alwaysSendBody` (Newman's list: a body on
 * them has no defined meaning, RFC 9110 §9.3.1, §9.3.2, and many servers refuse it).
 */
export const BODYLESS_METHODS: readonly string[] = ['GET', 'HEAD', 'COPY', 'PURGE', 'UNLOCK'];

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
 * - isEmail, isUrl, isUuid, isIso8601, isJson (no `expected`): the target is a string in that
 *   format (src/domain/formats.ts names the standard each follows)
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
  'isEmail',
  'isUrl',
  'isUuid',
  'isIso8601',
  'isJson',
] as const;
export type AssertionOperator = (typeof ASSERTION_OPERATORS)[number];

export interface Assertion {
  /** JSONata expression, e.g. `response.status` or `response.body.items[0].id`. */
  target: string;
  operator: AssertionOperator;
  /** Compared value; absent for exists/notExists and the format operators (isEmail, …). */
  expected?: unknown;
  /** Optional label shown in results. */
  name?: string;
}

/**
 * Credentials an API node signs its request with (docs/flows.md "Auth"), chosen by `type`. Strings
 * may hold `{{variable}}` placeholders (secret variables too); the signature is made when the
 * request is sent, and results show the secrets as `***`.
 */
export type RequestAuth = DigestAuth | OAuth1Auth | HawkAuth | AwsSigV4Auth;
export type RequestAuthType = RequestAuth['type'];

/** HTTP Digest (RFC 7616): the first answer's `401` challenge is answered by sending the request again. */
export interface DigestAuth {
  type: 'digest';
  username: string;
  password: string;
}

/** OAuth 1.0 (RFC 5849 §3): the request signed with the consumer's and token's secrets. */
export interface OAuth1Auth {
  type: 'oauth1';
  consumerKey: string;
  consumerSecret?: string;
  token?: string;
  tokenSecret?: string;
  /** Default `HMAC-SHA1`. */
  signatureMethod?: 'HMAC-SHA1' | 'HMAC-SHA256' | 'HMAC-SHA512' | 'PLAINTEXT';
  /** Where the protocol parameters go: the `Authorization` header (default) or the query. */
  placement?: 'header' | 'query';
  realm?: string;
  callback?: string;
  verifier?: string;
  /** Fixed `oauth_timestamp` (default: now) and `oauth_nonce` (default: random), for replaying a known signature. */
  timestamp?: string;
  nonce?: string;
  /** Send `oauth_version="1.0"` (default true). */
  includeVersion?: boolean;
}

/** Hawk (the `hawk` scheme, https://github.com/mozilla/hawk): a MAC of the request with a shared key. */
export interface HawkAuth {
  type: 'hawk';
  id: string;
  key: string;
  /** Default `sha256`. */
  algorithm?: 'sha256' | 'sha1';
  ext?: string;
  app?: string;
  dlg?: string;
  /** Also MAC the body and its Content-Type (Hawk's payload hash; default false). */
  includePayloadHash?: boolean;
  /** Fixed `ts` (seconds) and `nonce`, for replaying a known MAC. */
  timestamp?: string;
  nonce?: string;
}

/** AWS Signature Version 4 (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html). */
export interface AwsSigV4Auth {
  type: 'awsv4';
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** Default `us-east-1`. */
  region?: string;
  /** Default: the first label of the host name (as the `aws4` library guesses it). */
  service?: string;
  /** Where the signature goes: the `Authorization` header (default) or the query (a presigned URL). */
  placement?: 'header' | 'query';
}

/** The request an API node sends; strings may hold `{{variable}}` placeholders. */
export interface RequestSpec {
  method: RequestMethod;
  url: string;
  headers?: Record<string, string>;
  /** A JSON value sent as `application/json`, or a string sent as-is. */
  body?: unknown;
  /** Per-request timeout in milliseconds (default: ASSAY_REQUEST_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Follow 3xx redirects (default true). */
  followRedirects?: boolean;
  /** Redirects followed at most (default 10); one more fails the node with TOO_MANY_REDIRECTS. */
  maxRedirects?: number;
  /** Keep the method and body on a 301, 302 or 303 instead of switching to GET (default false). */
  followOriginalHttpMethod?: boolean;
  /** Keep `Authorization` on a redirect to another host name (default false: dropped). */
  followAuthorizationHeader?: boolean;
  /** Check the server's TLS certificate (default true); false accepts any certificate. */
  strictSSL?: boolean;
  /** Send the URL's path and query as written, not normalised and percent-encoded (default false). */
  disableUrlEncoding?: boolean;
  /** Send the body with GET, HEAD and the other {@link BODYLESS_METHODS} too (default false: dropped). */
  alwaysSendBody?: boolean;
  /**
   * Send `Referer: <the URL redirected from>` on each redirect hop followed, replacing a written
   * one (default false: no Referer added, a written one kept), as Newman does unless
   * `protocolProfileBehavior.removeRefererHeaderOnRedirect`.
   */
  refererOnRedirect?: boolean;
  /** Credentials the request is signed with when sent. */
  auth?: RequestAuth;
  /**
   * A `multipart/form-data` body (docs/flows.md "Files"): 1 to 100 parts in order, text parts
   * (`value`) and workspace files (`file`, its name or id); several parts may share a name.
   * Exclusive with `body` and `file` (src/validation/flow.ts).
   */
  multipart?: MultipartPart[];
  /**
   * A workspace file's bytes as the whole body (docs/flows.md "Files"): its name or id, or
   * `{file, contentType}`. Exclusive with `body` and `multipart`.
   */
  file?: string | FileBody;
}

/**
 * One part of a `multipart/form-data` request (RequestSpec `multipart`); strings may hold
 * `{{variable}}` placeholders. A text part has `value` (sent as UTF-8, without a Content-Type); a
 * file part has `file`: a workspace file's name (`fixtures/avatar.png`) or id (`file_…`), sent with
 * `filename` (default: the last `/`-separated segment of the file's name) and `contentType`
 * (default: the file's own, or `application/octet-stream` when it has none). Exactly one of
 * `value` and `file` (src/validation/flow.ts).
 */
export interface MultipartPart {
  /** The form field's name (several parts may share one: several files under one field). */
  name: string;
  value?: string;
  file?: string;
  filename?: string;
  contentType?: string;
}

/**
 * A binary body (RequestSpec `file`, as an object): the file's bytes as the whole body, sent with
 * `Content-Type` `contentType`, else the request's own `Content-Type` header, else the file's
 * type, else `application/octet-stream`.
 */
export interface FileBody {
  /** A workspace file's name or id. */
  file: string;
  contentType?: string;
}

/**
 * A multipart part as results show it (NodeResult `request.parts`; never its content): `size` in
 * bytes, `sha256` the hex SHA-256 of the bytes sent. Text parts: `name` and `size` only.
 */
export interface SentPart {
  name: string;
  filename?: string;
  contentType?: string;
  size: number;
  sha256?: string;
}

/**
 * A binary body as results show it (NodeResult `request.file`; never its content): the workspace
 * file's name, the Content-Type sent, its size in bytes and hex SHA-256.
 */
export interface SentFile {
  name: string;
  contentType: string;
  size: number;
  sha256: string;
}

/** What a request with files sent, as results show it: `parts` (multipart) or `file` (a binary body). */
export interface SentFiles {
  parts?: SentPart[];
  file?: SentFile;
}

/** A script configuration (spec "Scripts and libraries"): code and library URLs. */
export interface ScriptConfig {
  code: string;
  /** URLs of IIFE/UMD libraries (or `name@version` of a predefined one) loaded before the code. */
  libs?: string[];
}

/**
 * Retries of an API node's request, reported as one execution with its attempts. A retry happens
 * on a network error (when `onNetworkError`) or on a listed status; `"5xx"`-style entries match a
 * class. Delays grow by `backoff` up to `maxDelayMs`; a `Retry-After` header (seconds) is honoured.
 */
export interface RetryPolicy {
  /** Total attempts including the first, 1 to 10. */
  attempts: number;
  /** Milliseconds before the second attempt (default 500). */
  delayMs?: number;
  /** Multiplier of the delay after each attempt (default 2). */
  backoff?: number;
  /** Largest delay in ms (default 10000). */
  maxDelayMs?: number;
  /** Statuses that cause a retry (default `[429, "5xx"]`). */
  onStatus?: Array<number | string>;
  /** Retry when no response arrived (default true). */
  onNetworkError?: boolean;
}

interface NodeBase {
  /** Identifier unique within the test case; expressions read `nodes.<id>`. */
  id: string;
  name?: string;
  /**
   * Switched off (the designer's "disable", docs/flows.md "Disabled nodes"): the node is not run,
   * nor anything under it (IF branches, Loop and Iteration bodies, Parallel children); its result
   * is `status: 'skipped'`, `reason: 'disabled'`, without children, and `nodes.<id>` stays absent
   * for later expressions. It fails nothing and counts in no progress or estimate
   * (src/flow/estimate.ts). Absent or false: the node runs.
   */
  disabled?: boolean;
}

/** Sends a request; assertions on it decide pass or fail (spec "Test-flow nodes"). */
export interface ApiNode extends NodeBase {
  type: 'api';
  request: RequestSpec;
  assertions?: Assertion[];
  /** Hooks `beforeRequest` and `afterResponse` defined by this script run around the request. */
  script?: ScriptConfig;
  retry?: RetryPolicy;
  /**
   * A server of the run's environment (its `servers`, docs/reuse.md "Servers"): `request.url` is
   * then a path joined to that server's base URL with exactly one slash.
   */
  server?: string;
  /** An auth profile's name (src/domain/auth-profiles.ts), or `'none'`; wins over the test case's, folder's and runner's. */
  authProfile?: string;
  /**
   * Variables set from the response (docs/flows.md "Extracting variables"): variable name → JSONata
   * over what assertions see (`response`, `variables`, `nodes`, …), evaluated in order after the
   * response arrived and its hooks ran, before the assertions (which see the new values).
   */
  extract?: Record<string, string>;
}

/** Runs `then` when the JSONata `condition` holds, else `else` (spec: IF node). */
export interface IfNode extends NodeBase {
  type: 'if';
  condition: string;
  then: FlowNode[];
  else?: FlowNode[];
}

/** Repeats `body` `count` times, or while the JSONata `while` holds (checked before each iteration). */
export interface LoopNode extends NodeBase {
  type: 'loop';
  count?: number;
  while?: string;
  /** JSONata, evaluated after each iteration: when true the loop ends at once (spec). */
  breakCondition?: string;
  /** Iterations allowed at most (never above the worker's ASSAY_MAX_LOOP_ITERATIONS). */
  maxIterations?: number;
  body: FlowNode[];
}

/** Runs `body` once per item of an array: a JSONata `items` expression or a data set of the test case. */
export interface IterationNode extends NodeBase {
  type: 'iteration';
  items?: string;
  dataSet?: string;
  /** Name of the item in templates and expressions (default `item`). */
  as?: string;
  breakCondition?: string;
  maxIterations?: number;
  body: FlowNode[];
}

/** Runs script code; with `variable`, stores what its `generateValue` returns. */
export interface ScriptNode extends NodeBase {
  type: 'script';
  script: ScriptConfig;
  variable?: string;
}

/** Waits `ms` milliseconds, or the number a JSONata `expression` yields (a durable timer). */
export interface WaitNode extends NodeBase {
  type: 'wait';
  ms?: number;
  expression?: string;
}

/** Sets variables from JSONata expressions: `{"token": "nodes.login.response.body.token"}`. */
export interface ContextNode extends NodeBase {
  type: 'context';
  set: Record<string, string>;
}

/** Runs `children` concurrently, at most `concurrency` at a time (default: all). */
export interface ParallelNode extends NodeBase {
  type: 'parallel';
  concurrency?: number;
  children: FlowNode[];
}

/**
 * Assertions on the flow's context without a request (docs/flows.md "Assert node"): each target is
 * a JSONata expression over what every expression sees (`variables`, `nodes`, `loop`, `testCase`).
 * `skipIf` (JSONata): when truthy the node is skipped. A failed Assert node fails the test case and,
 * unless `continueOnFailure`, stops the test case's remaining nodes (listed as skipped).
 */
export interface AssertNode extends NodeBase {
  type: 'assert';
  assertions: Assertion[];
  skipIf?: string;
  continueOnFailure?: boolean;
}

/**
 * Runs another test case's flow inside this one (docs/reuse.md "Sub-flows"), as ReAPI's `$REF`:
 * `clone` copies the referenced flow into `flow` when the test case is saved (then edited freely);
 * `ref` is a live link, its `flow` (and `version`) filled only in a run's frozen plan. The sub-flow
 * starts from the caller's variables overlaid with `inputs` and has its own `nodes`; only `outputs`
 * come back.
 */
export interface RefNode extends NodeBase {
  type: 'ref';
  /** The referenced test case (same workspace). */
  testCaseId: string;
  mode: 'ref' | 'clone';
  /** Variable name in the sub-flow → JSONata expression evaluated in the caller. */
  inputs?: Record<string, string>;
  /** Caller variable name → variable name the sub-flow ended with. */
  outputs?: Record<string, string>;
  /** `clone`: the copy (edited freely); `ref`: filled only in a frozen plan. */
  flow?: FlowNode[];
  /** Frozen plan (`ref`): the referenced test case's `updatedAt`, ISO 8601. */
  version?: string;
}

/**
 * A k6-style duration (`"90s"`, `"1m30s"`, `"2h"`; src/domain/duration.ts `parseDuration`) or a
 * number: seconds for `timeout` fields, milliseconds for interval fields (each field says which).
 */
export type DurationValue = string | number;

/**
 * Waits durably for requests sent to this node's callback address (docs/async.md "Callbacks"):
 * `{{callback.url}}` (the first Callback node of the flow) or `{{callback.<nodeId>.url}}` in any
 * earlier template. Nothing is held while it waits: a Temporal signal ends the wait. A callback
 * that arrived before the node started waiting is kept; only callbacks for which `match` holds
 * count, until `count` have arrived or `timeout` passes (the node then fails naming the wait).
 */
export interface CallbackNode extends NodeBase {
  type: 'callback';
  /** How long to wait: a k6 duration or seconds (default `"5m"`); never past the run's deadline. */
  timeout?: DurationValue;
  /** JSONata over `{callback: {method, path, query, headers, body}, variables, nodes, …}`: only callbacks for which it holds count. */
  match?: string;
  /** Matching callbacks to receive before the node passes (default 1, at most 100). */
  count?: number;
  /**
   * A signature each callback must carry (checked by the API when it arrives; a callback without a
   * valid one is answered 401, not counted, and the node keeps waiting). `hmac`: the header
   * (default `X-Assay-Signature`) is `sha256=<hex HMAC-SHA256 of the body>` as Assay's outgoing
   * webhooks sign; `standard-webhooks`: `webhook-id`, `webhook-timestamp`, `webhook-signature`
   * (https://www.standardwebhooks.com). `secret`: text or a `{{variable}}` of the run's plan.
   */
  signature?: { scheme: 'hmac' | 'standard-webhooks'; secret: string; header?: string };
  /** The answer the caller gets (default 200 `{"received": true}`). */
  respond?: { status?: number; headers?: Record<string, string>; body?: unknown };
  /** Assertions on `callback` (the last matching one) and `callbacks` (all that matched). */
  assertions?: Assertion[];
}

/**
 * Repeats a request on a durable timer until the JSONata `until` holds (eventual consistency;
 * docs/async.md "Polling"), then evaluates `assertions` on the last response. Each attempt is its
 * own activity; the delays are durable timers, so a worker crash between attempts loses nothing
 * and sends no extra request.
 */
export interface PollNode extends NodeBase {
  type: 'poll';
  request: RequestSpec;
  /** As an API node's `server`. */
  server?: string;
  /** As an API node's `authProfile`. */
  authProfile?: string;
  /** JSONata over `{response, attempt, variables, nodes, …}`: polling stops when it holds. */
  until: string;
  /** Delay before the second attempt: k6 duration or ms (default `"1s"`). */
  interval?: DurationValue;
  /** `fixed` (default) or `exponential` (each delay `factor` times the one before, up to `maxInterval`). */
  backoff?: 'fixed' | 'exponential';
  /** Multiplier of `exponential` backoff (default 2). */
  factor?: number;
  /** Largest delay: k6 duration or ms (default `"60s"`). */
  maxInterval?: DurationValue;
  /** Random spread of each delay, 0 to 1 (default 0): a delay d becomes d × (1 ± jitter). */
  jitter?: number;
  /** Attempts at most, including the first (default 30, at most 1,000). */
  maxAttempts?: number;
  /** Time allowed for all attempts: k6 duration or seconds (default: the run's deadline). */
  timeout?: DurationValue;
  assertions?: Assertion[];
}

/** A message a WebSocket node sends once connected. */
export interface StreamSend {
  /** A string is sent as a text frame; any other JSON value serialised as JSON text. Templates are filled. */
  data: unknown;
  /** Milliseconds to wait before sending it (after the connection opened or the message before). */
  delayMs?: number;
}

/**
 * Opens a WebSocket (RFC 6455), sends `send`, then receives messages until `until` holds, `maxMessages`
 * arrived, the server closes or `timeout` passes (docs/async.md "WebSocket and SSE"); assertions
 * run on the sequence. Through the same address policy as API nodes.
 */
export interface WebsocketNode extends NodeBase {
  type: 'websocket';
  /** `ws://` or `wss://` URL (or a path with `server`); templates are filled. */
  url: string;
  server?: string;
  headers?: Record<string, string>;
  subprotocols?: string[];
  authProfile?: string;
  send?: StreamSend[];
  /** JSONata over `{messages, count, first, last}`: receiving stops when it holds; the node fails when it never held. */
  until?: string;
  /** Time allowed for connecting and receiving: k6 duration or seconds (default `"10s"`). */
  timeout?: DurationValue;
  /** Messages received at most (default 100, at most 10,000). */
  maxMessages?: number;
  assertions?: Assertion[];
}

/** Receives Server-Sent Events (WHATWG HTML §9.2) over HTTP, as {@link WebsocketNode} receives messages. */
export interface SseNode extends NodeBase {
  type: 'sse';
  url: string;
  server?: string;
  /** Default GET; POST with `body` for streaming APIs that take a request body. */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
  authProfile?: string;
  until?: string;
  timeout?: DurationValue;
  maxMessages?: number;
  assertions?: Assertion[];
}

/**
 * Calls a gRPC method, unary or server-streaming (docs/async.md "gRPC"), from `.proto` source kept
 * in the node; assertions on `response.status` (the gRPC status code), `response.body` (the
 * message, or the list of streamed messages), `response.headers` and `response.trailers`.
 */
export interface GrpcNode extends NodeBase {
  type: 'grpc';
  /** `host:port`, `grpc://host:port` (plaintext) or `grpcs://host:port` (TLS); templates are filled. */
  target: string;
  server?: string;
  /** The `.proto` source declaring the service. */
  proto: string;
  /** Other `.proto` files it imports, by the path it imports them with. */
  protoFiles?: Record<string, string>;
  /** Fully-qualified service name (`package.Service`). */
  service: string;
  method: string;
  /** The request message (JSON, templates filled). */
  message?: unknown;
  metadata?: Record<string, string>;
  /** Deadline in ms (default: the run's request timeout). */
  deadlineMs?: number;
  /** Messages kept from a server stream (default 100, at most 10,000). */
  maxMessages?: number;
  assertions?: Assertion[];
}

/**
 * Checks the mock journal (docs/flows.md "mockVerify node"; docs/mocks.md "Journal and
 * verification"): counts the requests the workspace's mocks received in the run's scope (the
 * service under test called them with `X-Assay-Mock-Scope: <runId>` or `/~<runId>/`) matching
 * `method`, `path`, `designId` and the JSONata `where`, and passes when the count is as expected
 * and `assertions` (over `{count, requests, violations}`) hold. WireMock's `verify`.
 */
export interface MockVerifyNode extends NodeBase {
  type: 'mockVerify';
  /** The HTTP method (any when absent). */
  method?: string;
  /** A concrete path (`/payments/7`) or a design path template (`/payments/{id}`), within the workspace; templates filled. */
  path?: string;
  /** Only requests this design answered. */
  designId?: string;
  /** JSONata over each entry (`method`, `path`, `query` object, `headers`, `body` parsed, `status`, `violations`, …). */
  where?: string;
  /** Exactly this many (an integer), or `{min, max}` (each optional); default: at least 1. */
  count?: number | { min?: number; max?: number };
  /** `run` (default): the run's scope; `shared`: requests without a scope; `any`: all. */
  scope?: 'run' | 'shared' | 'any';
  /** Assertions over `count`, `requests` (the first 20 matching, oldest first) and `violations`. */
  assertions?: Assertion[];
}

/** A node of a test flow: a tree (spec "Test-flow nodes"). */
export type FlowNode =
  | ApiNode
  | IfNode
  | LoopNode
  | IterationNode
  | ScriptNode
  | WaitNode
  | ContextNode
  | ParallelNode
  | AssertNode
  | RefNode
  | CallbackNode
  | PollNode
  | WebsocketNode
  | SseNode
  | GrpcNode
  | MockVerifyNode;
export type FlowNodeType = FlowNode['type'];
export const NODE_TYPES: readonly FlowNodeType[] = [
  'api',
  'if',
  'loop',
  'iteration',
  'script',
  'wait',
  'context',
  'parallel',
  'assert',
  'ref',
  'callback',
  'poll',
  'websocket',
  'sse',
  'grpc',
  'mockVerify',
];

/** A data set attached to a test case, for Iteration nodes: a JSON array or CSV text. */
export type DataSet =
  | { name: string; type: 'json'; data: unknown[] }
  | {
      name: string;
      type: 'csv';
      csv: string;
      /** Turn numbers and booleans into JSON values (default false). */ cast?: boolean;
    };

export interface TestCaseDefinition {
  id: string;
  name: string;
  folder: string;
  tags: string[];
  flow: FlowNode[];
  /** Data sets by name, as arrays (CSV already parsed). */
  dataSets: Record<string, unknown[]>;
  /** The test case's hooks (`beforeRequest`/`afterResponse` around each of its API nodes; docs/flows.md "Hooks"). */
  hooks?: ScriptConfig;
  /** The hooks of the folders the test case is filed under, outermost folder first (only folders that set some). */
  folderHooks?: ScriptConfig[];
  /** The test case's auth profile (src/domain/auth-profiles.ts), or `'none'`. */
  authProfile?: string;
  /** The auth profile of the nearest folder, walking up from the test case's, that sets one. */
  folderAuthProfile?: string;
  /**
   * Ids of the test cases that must have passed, in the same run, before this one starts
   * (docs/parallel.md "Dependencies"); absent when none.
   */
  dependsOn?: string[];
}

/**
 * What an API node's request turned into, as sent (after templating). The settings added after
 * `followRedirects` are absent when the node does not set them (recorded histories hold requests
 * without them): absent means the default.
 */
export interface ResolvedRequest {
  method: RequestMethod;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  followRedirects: boolean;
  maxResponseBytes: number;
  maxRedirects?: number;
  followOriginalHttpMethod?: boolean;
  followAuthorizationHeader?: boolean;
  strictSSL?: boolean;
  disableUrlEncoding?: boolean;
  alwaysSendBody?: boolean;
  refererOnRedirect?: boolean;
  auth?: RequestAuth;
  /** RequestSpec `multipart` with its templates filled; the node activity reads the files. */
  multipart?: MultipartPart[];
  /** RequestSpec `file` with its templates filled (always the object form). */
  file?: FileBody;
  /** The workspace whose files `multipart` and `file` name; set only with one of them. */
  workspaceId?: string;
}

/** The response an activity observed. `error` is set instead of `status` when no response arrived. */
export interface HttpExchange {
  status?: number;
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, else the text; undefined for an empty body. */
  body?: unknown;
  /**
   * Bytes received. When cut (`truncated`), the bytes received until reading stopped (just past
   * `maxResponseBytes`), not the whole body's size.
   */
  size: number;
  /** True when the body was longer than the kept limit: reading stopped there and the rest was never read. */
  truncated: boolean;
  /**
   * The content codings the body came in and was decoded from (`gzip`, `deflate`, `br`, or a list
   * such as `deflate, gzip`), as its `Content-Encoding` header (kept in `headers`) said; absent when
   * nothing was decoded. When set, `body`, `size` and `truncated` are of the decoded body.
   */
  contentEncoding?: string;
  /** With `contentEncoding`: the encoded bytes received. */
  encodedSize?: number;
  /** Redirects followed before this response (absent: none). */
  redirects?: number;
  /** With `redirects`: the URL of this (the last) response. */
  url?: string;
  /**
   * The `Set-Cookie` values of the redirect responses followed, each hop's with its URL, in order
   * (absent: none set any). They were kept for the rest of the chain and sent on its later hops
   * (activities/api-request.ts); a test case's own cookie jar (the Postman one, docs/import-postman.md
   * "Cookies") stores them as it stores the last response's.
   */
  redirectCookies?: Array<{ url: string; setCookie: string[] }>;
  /**
   * The headers of the request as it reached its own URL (the last send before any redirect: the
   * Digest answer, auth signatures and profile credentials, `Host`, `Content-Length`, cookies), for
   * the node's `afterResponse` scripts (`$request.headers`). Holds secrets as sent: the node activity
   * (activities/nodes.ts) hands it to the scripts and drops it before its result leaves the worker.
   */
  sentHeaders?: Record<string, string>;
  /** Elapsed time from sending to the end of the body, milliseconds. */
  timeMs: number;
  /**
   * A request with files (RequestSpec `multipart` or `file`): what was sent, without the content
   * (NodeResult `request.parts` / `request.file`). Absent for other requests.
   */
  sentFiles?: SentFiles;
  /** Network-level failure (connection refused, DNS, timeout), human readable. */
  error?: string;
  /**
   * Stable code of a network failure, e.g. ECONNREFUSED, TIMEOUT, or ADDRESS_NOT_ALLOWED when the
   * address policy refused the connection (src/net/address-policy.ts). A node this exchange fails
   * carries it as NodeResult `errorCode` (every code: docs/flows.md "Error codes").
   */
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
  /** The JSONata target, or `$test` for a check a script recorded (operator `test`). */
  target: string;
  operator: AssertionOperator | 'test';
  expected?: unknown;
  /** The value the target evaluated to (cut to a readable size). */
  actual?: unknown;
  passed: boolean;
  /** Why it failed, in words. */
  message?: string;
}

/** Test case status values (spec: `passed`; the rest are documented in docs/spec-choices.md). */
export type TestCaseStatus = 'passed' | 'failed' | 'skipped';

export interface ScriptLogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

/** One attempt of an API node's request. */
export interface AttemptResult {
  attempt: number;
  status?: number;
  error?: string;
  timeMs: number;
  /**
   * Wait after this attempt before the next, ms. Poll nodes: the time that really passed between
   * the end of this attempt and the start of the next (their durable timer can fire later than
   * asked; docs/async.md "Timer resolution"). API node retries: the retry's delay (an in-process
   * timer inside the node's activity).
   */
  delayMs?: number;
  /** Poll nodes: the delay the node's `interval`, `backoff`, `maxInterval` and `jitter` gave for this wait, ms. */
  plannedDelayMs?: number;
  /** Poll nodes: whether `until` held on this attempt's response. */
  conditionMet?: boolean;
}

export interface IterationResult {
  index: number;
  item?: unknown;
  status: 'passed' | 'failed';
  nodes: NodeResult[];
}

export interface NodeResult {
  id: string;
  name?: string;
  type: FlowNodeType;
  status: 'passed' | 'failed' | 'skipped';
  /** Milliseconds spent in the node (for API nodes: request time, all attempts). */
  duration: number;
  error?: string;
  /**
   * The stable code of `error` when the node failed for a reason that has one (docs/flows.md
   * "Error codes"): the `errorCode` of the exchange, stream or gRPC call whose failure failed the
   * node (`TOO_MANY_REDIRECTS`, `DECODING_FAILED`, `ADDRESS_NOT_ALLOWED`, `AUTH_PROFILE_FAILED`,
   * `HANDSHAKE_FAILED`, …). Absent when the node passed or its failure has no code (an assertion,
   * a script error, a condition that never held).
   */
  errorCode?: string;
  /**
   * Why a node was skipped: the branch not taken (`condition held: Else branch not taken`), the
   * stop of a failed Assert node, `disabled` (NodeBase `disabled`), `resumed: ran in run …`.
   */
  reason?: string;
  // API nodes
  /** `auth`: the scheme the request was signed with, its secrets shown as `***`. */
  /**
   * `parts` (a multipart request) and `file` (a binary body): what was sent, never the content
   * ({@link SentFiles}).
   */
  request?: { method: string; url: string; auth?: Record<string, string>; parts?: SentPart[]; file?: SentFile };
  /** `contentEncoding`, `encodedSize`: as {@link HttpExchange} has them, when the body was decoded. */
  response?: {
    status?: number;
    timeMs: number;
    size: number;
    truncated: boolean;
    contentEncoding?: string;
    encodedSize?: number;
    redirects?: number;
  };
  assertions?: AssertionResult[];
  attempts?: AttemptResult[];
  // Scripts (Script nodes and API node hooks)
  logs?: ScriptLogLine[];
  /** Line of the user's code a script error points to. */
  line?: number;
  // IF
  condition?: unknown;
  branch?: 'then' | 'else' | 'none';
  // IF, Parallel, Ref (a sub-flow's node results, with their own ids)
  children?: NodeResult[];
  // Loop, Iteration
  iterations?: number;
  /** `assert`: an Assert node without `continueOnFailure` failed in its body (the test case stopped). */
  stoppedBy?: 'count' | 'condition' | 'items' | 'break' | 'cap' | 'error' | 'assert';
  iterationResults?: IterationResult[];
  /** Iterations run but not listed in `iterationResults` (only the first are kept). */
  omittedIterations?: number;
  // Context, Script
  variablesSet?: Record<string, unknown>;
  // Wait
  waitedMs?: number;
  // Ref (a live link): the referenced test case's `updatedAt` the run's plan froze
  version?: string;
  // Callback (docs/async.md "Callbacks")
  callback?: CallbackOutcome;
  // WebSocket, SSE
  stream?: StreamOutcome;
  // gRPC
  grpc?: GrpcOutcome;
  // mockVerify
  mockVerify?: MockVerifyOutcome;
  /** Debug runs only ({@link RunPlan.debug}): what the designer shows of the node, bounded. */
  debug?: NodeDebugCapture;
}

/**
 * What a debug run records of a node besides its result (docs/console.md "The designer"), secrets
 * masked as in results. Bounded: each body at most {@link DEBUG_BODY_LIMIT} characters of JSON
 * (cut bodies are the text's start, with `bodyTruncated`), the variables at most
 * {@link DEBUG_VARIABLES_LIMIT} (cut: `variablesTruncated`, and the largest values left out).
 */
export interface NodeDebugCapture {
  /** API and Poll nodes (the last attempt): the request as sent. */
  request?: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body?: unknown;
    bodyTruncated?: boolean;
    /** A multipart request: its parts' metadata instead of a body (as NodeResult `request.parts`). */
    parts?: SentPart[];
    /** A binary body: the file's metadata instead of a body (as NodeResult `request.file`). */
    file?: SentFile;
  };
  /** API and Poll nodes (the last attempt): the response as received; `body` parsed when JSON. */
  response?: {
    status: number;
    headers: Record<string, string>;
    body?: unknown;
    bodyTruncated?: boolean;
    timeMs: number;
  };
  /**
   * The flow's variables after the node ran (its sub-flow's inside a Ref node). Cut
   * (`variablesTruncated`): the largest values left out until the rest is within
   * {@link DEBUG_VARIABLES_LIMIT}.
   */
  variables?: Record<string, unknown>;
  variablesTruncated?: boolean;
  /**
   * Set when the test case's captures together had reached {@link DEBUG_TEST_CASE_LIMIT} (or its
   * whole result `PAYLOAD_LIMITS.testCaseResultBytes`, src/domain/limits.ts): this capture keeps
   * only the request's method, URL and headers and the response's status, headers and time (bodies
   * and variables left out, flagged `bodyTruncated` and `variablesTruncated`), or nothing but this
   * flag when even that did not fit.
   */
  omitted?: boolean;
}

/** Characters of JSON text a debug capture keeps of one body (64 KiB). */
export const DEBUG_BODY_LIMIT = 65_536;
/** Characters of JSON text a debug capture keeps of a node's variables (32 KiB). */
export const DEBUG_VARIABLES_LIMIT = 32_768;
/**
 * Bytes of JSON (UTF-8) the debug captures of one test case's nodes take together (256 KiB):
 * captures past it are made {@link NodeDebugCapture.omitted}. Half of a test case result's cap
 * (`PAYLOAD_LIMITS.testCaseResultBytes`, 512 KiB, src/domain/limits.ts), so a debug run's results,
 * test case segments and loop segments stay within Temporal's payload limits.
 */
export const DEBUG_TEST_CASE_LIMIT = 262_144;

/** What a mockVerify node found in the mock journal. */
export interface MockVerifyOutcome {
  /** The count condition in words: `exactly 1`, `at least 1`, `2 to 5`, `at most 0`. */
  expected: string;
  /** Requests matching method, path, design and `where`. */
  count: number;
  /** Requests matching method, path and design, whatever `where` said. */
  candidates: number;
  scope: 'run' | 'shared' | 'any';
  /** What was looked for: `POST /payments where body.amount = 42`. */
  matching: string;
  /** The first 20 matching requests, oldest first (bodies cut to a readable size). */
  requests: MockVerifyEntry[];
  /** Contract violations of the matching requests (at most 50). */
  violations: MockViolation[];
  /** More requests were in scope than one verification looks at (5,000): the newest were not. */
  truncated?: boolean;
}

/** A request received at a Callback node's address, as the node saw it. */
export interface ReceivedCallback {
  method: string;
  /** The path after the address (usually empty) and the query, as received. */
  path: string;
  query: Record<string, string | string[]>;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, else the text; absent when empty. */
  body?: unknown;
  /** ISO 8601 UTC, when the API received it. */
  receivedAt: string;
}

/** What a Callback node waited for and got. */
export interface CallbackOutcome {
  /** The callback id (`cb_…`) shown in the Temporal Web UI and the console. */
  id: string;
  /** ISO 8601 UTC: the wait began, and the time it would end at the latest. */
  since: string;
  until: string;
  /** Matching callbacks received (at most `count` are consumed). */
  received: number;
  expected: number;
  /** Callbacks that arrived but did not match (kept for later waits at the same address). */
  unmatched: number;
  /** The matching callbacks (bodies cut to a readable size). */
  callbacks: ReceivedCallback[];
}

/** One message a stream node received. */
export interface StreamMessage {
  /** Milliseconds since the connection opened. */
  atMs: number;
  /** Parsed JSON when the text is JSON, else the text (binary frames as base64 text). */
  data: unknown;
  /** SSE only: the `event` field (default `message`) and `id`. */
  event?: string;
  id?: string;
}

/** What a WebSocket or SSE node received. */
export interface StreamOutcome {
  /** Messages received in all. */
  count: number;
  /** The first and last messages received (at most 20 of each end), in order. */
  first: StreamMessage[];
  last: StreamMessage[];
  /** Why receiving stopped. */
  stoppedBy: 'until' | 'maxMessages' | 'timeout' | 'closed' | 'error';
  /** The handshake's HTTP status (101 for a WebSocket upgrade). */
  status?: number;
  /** WebSocket close code and reason, when closed. */
  closed?: { code?: number; reason?: string };
  connectMs?: number;
}

/** What a gRPC node's call ended with. */
export interface GrpcOutcome {
  /** The gRPC status code (0 OK) and its name. */
  code: number;
  status: string;
  details?: string;
  /** Messages received (1 for a unary call that succeeded). */
  messages: number;
  timeMs: number;
}

/** One test case's outcome as stored and returned under `details.testCases`. */
export interface TestCaseResult {
  testCaseId: string;
  name: string;
  /** The test case's folder when the run started (added when stored; absent in results stored before it was). */
  folder?: string;
  status: TestCaseStatus;
  /** Milliseconds spent executing the test case's nodes. */
  duration: number;
  /** Number of assertions evaluated (spec: an integer). */
  assertions: number;
  passedAssertions: number;
  /** The assertions and node errors that failed, each with expected and actual values. */
  failures: TestCaseFailure[];
  nodes: NodeResult[];
  error?: string;
  /**
   * Set once the run ended when the flakiness rule flags the test case on the run's runner and
   * environment (src/history/flaky.ts, docs/history.md "Flaky tests").
   */
  flaky?: { flips: number; window: number; flipRate: number };
  /**
   * The nodes the flakiness rule flags on their own outcomes (src/history/flaky.ts
   * `evaluateFlakyNodes`): which step flips, also when the test case as a whole is not flaky.
   */
  flakyNodes?: Array<{ id: string; flips: number; window: number; flipRate: number }>;
  /** It failed but its runner quarantines flaky test cases and the plan listed it: it does not fail the run. */
  quarantined?: boolean;
  /**
   * A resumed run's result copied from the run it resumes (a position before the resume point, not
   * run again): that run's id. Not counted again in the test case's history.
   */
  copiedFrom?: string;
  /**
   * How many times the test case's work was started, when more than once (`durability: testCase`
   * only): an activity segment retried after a worker died counts each retry (docs/durability.md
   * "What a crash repeats"). Absent when it ran once.
   */
  attempts?: number;
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
  /** Test cases under way (docs/parallel.md); absent in progress stored before parallel suites. */
  running?: number;
}

/** Run status values (spec "States and transitions"). */
export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type RunResultValue = 'passed' | 'failed';

/**
 * How a run was started. `debug`: from the console's test-case designer (`POST
 * /v1/test-cases/debug`, docs/console.md "The designer"): one test case, as the designer holds it,
 * run through the real engine with {@link RunPlan.debug} capture on.
 */
export type RunTrigger = 'api' | 'schedule' | 'webhook' | 'debug';

/** The frozen input of a run: written once when the run starts, replayed from history afterwards. */
/**
 * Whether the test cases of a run share their variables (docs/flows.md "Variables across test
 * cases"): `testCase`, each starts from the run's variables; `run`, each starts from the variables
 * the one before it ended with (in order, as a Newman collection run does).
 */
export const VARIABLE_SCOPES = ['testCase', 'run'] as const;
export type VariableScope = (typeof VARIABLE_SCOPES)[number];

/** Per-origin limits of a run (docs/parallel.md "Protecting the target"): honoured across workers. */
export interface OriginLimits {
  maxInFlight?: number;
  requestsPerSecond?: number;
}

/**
 * How a run's test cases are scheduled (docs/parallel.md), as stored on runners, deployments and
 * runs (`parallel`) and frozen into the plan: every field optional; a run's own fields over its
 * deployment's over its runner's, then the defaults.
 */
export interface ParallelSettings {
  /** Test cases under way at once, 1 to {@link MAX_CONCURRENCY}; default 1 (one after another). */
  concurrency?: number;
  /** Stop starting test cases once this many have failed; 0 (the default): never. */
  bail?: number;
  /** Per-origin limits on the run's HTTP requests, honoured across workers (docs/parallel.md "Protecting the target"). */
  originLimits?: OriginLimits;
}

/** The most test cases a run may have under way at once (ParallelSettings `concurrency`). */
export const MAX_CONCURRENCY = 64;

/**
 * A run's own narrowing of its runner's selection (`assay run --folder/--tag`; POST /v1/runs
 * `folder`, `tags`): a test case runs when the runner selects it, it lies in `folder` (or below it)
 * and carries every tag in `tags`.
 */
export interface RunSelection {
  folder?: string;
  tags?: string[];
}

/**
 * How fine-grained a functional run's durability is (docs/durability.md "Durability modes"):
 * `node` (the default), each node is its own durable step, so a crash repeats at most the node
 * under way; `testCase`, each test case runs in one activity through the direct port
 * (activities/test-case.ts), heartbeating its progress, so a crash repeats at most the top-level
 * nodes since the last checkpoint (the test case's nodes up to its next Wait, Callback or Poll node,
 * which stays a durable step of the workflow). Set on runners, deployments and runs; frozen in the
 * plan. Performance runs ignore it.
 */
export const DURABILITIES = ['node', 'testCase'] as const;
export type Durability = (typeof DURABILITIES)[number];

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
  /**
   * The saved version (its `version`, its ETag; docs/teams.md "Versions") of each test case the
   * plan froze, by test case id: what `GET /v1/runs/{id}/results` answers as a result's
   * `testCaseVersion`. Absent in plans frozen before it existed and in debug runs (a draft is no
   * saved version). A record of where the test cases came from: not part of the plan hash
   * (src/history/plan-hash.ts `hashedPlanPart`), and the workflows never read it.
   */
  testCaseVersions?: Record<string, number>;
  /** Worker settings frozen into history so that replay takes the same path. */
  settings: RunSettings;
  /**
   * What each test case starts from (the runner's `variableScope`, frozen): `testCase` (absent in
   * plans frozen before it existed), the run's variables every time; `run`, the variables the test
   * case before it ended with, as a Newman collection run passes them on.
   */
  variableScope?: VariableScope;
  /**
   * The run's durability mode (the run's own, else its deployment's, else its runner's, else
   * `node`), frozen. Absent in plans frozen before it existed: `node`.
   */
  durability?: Durability;
  /**
   * How the test cases are scheduled (docs/parallel.md): concurrency, bail, per-origin limits,
   * merged from the run, its deployment and its runner, frozen. Absent in plans frozen before it
   * existed, and when every setting is its default: one test case at a time, no bail, no limits.
   */
  parallel?: ParallelSettings;
  /**
   * Test cases' dependencies (TestCaseDefinition `dependsOn`) as positions in this plan: position →
   * the positions it depends on (docs/parallel.md "Dependencies"). Ids not in the plan are left out.
   * Absent when no test case of the plan depends on another.
   */
  dependencies?: Record<number, number[]>;
  /** Present for a performance run: its load profile, validated (src/perf/profile.ts; docs/performance.md). */
  performance?: PerformancePlan;
  /**
   * A debug run (trigger `debug`): each node's result carries {@link NodeResult.debug}, what the
   * designer shows in place (the request as sent, the response, the variables after the node).
   * Absent (false) for every other run.
   */
  debug?: boolean;
  /**
   * The environment's servers, name → base URL, merged through its `extends` chain (docs/reuse.md
   * "Servers"; `{}` when it has none); absent in plans frozen before servers existed, whose
   * requests are filled as they always were.
   */
  servers?: Record<string, string>;
  /** The runner's auth profile (src/domain/auth-profiles.ts), or `'none'`. */
  authProfile?: string;
  /** The auth profiles the plan uses, frozen by name (literal secrets still sealed); absent when it uses none. */
  authProfiles?: Record<string, FrozenAuthProfile>;
  /**
   * Test case ids flagged flaky on this runner and environment when the plan froze, with the
   * runner's `quarantineFlaky` (docs/history.md "Quarantine"): their failures do not fail the run.
   */
  quarantine?: string[];
  /**
   * The baseline relative thresholds (`p(95)<baseline*1.10`) compare with, frozen when the plan
   * froze (docs/history.md "Baselines"): the run's id and the figures its thresholds need, by
   * threshold key and aggregation (`http_req_duration:p(95)`); `runId` null with `reason` when there is none.
   */
  baseline?: { runId: string | null; values: Record<string, number>; reason?: string };
  /**
   * A resumed run (`POST /v1/runs/{id}/resume`, docs/history.md "Resume"): the test case at
   * `position` starts at its top-level node `nodeIndex` with the state it had there in run `runId`;
   * the positions before it are not run (their results were copied from that run). Absent otherwise.
   */
  resumeFrom?: RunResumeFrom;
  /**
   * Where Callback nodes' addresses live and the key their tags are made with
   * (src/callbacks/address.ts; docs/async.md "Callbacks"): added by `startRun` to the plan it
   * returns on every call, never stored with the plan nor counted in its hash. Absent in plans
   * returned before callbacks existed.
   */
  callbacks?: { baseUrl: string; key: string };
  /**
   * The run's mock scope (docs/mocks.md "State"): API and Poll nodes send `X-Assay-Mock-Scope:
   * <scope>` to URLs whose path starts with `/mock/<workspaceId>/` unless they set the header, and
   * `{{$runId}}` fills with it. Added by `startRun` to the plan it returns (the run's id), like
   * `callbacks`, never stored with the plan nor in its hash; absent in plans returned before mock
   * scopes existed, whose requests are sent as they always were.
   */
  mockScope?: string;
}

/**
 * A test case's state before one of its top-level nodes: what a resumed run starts that node with
 * (src/flow/resume.ts). JSON, as the interpreter's state is.
 */
export interface ResumeSnapshot {
  variables: Record<string, unknown>;
  /** What the nodes run before it left for expressions (`nodes.<id>`: its request and response). */
  nodes: Record<string, unknown>;
}

/** Where and with what a resumed run starts ({@link RunPlan.resumeFrom}). */
export interface RunResumeFrom {
  /** The run it resumes. */
  runId: string;
  /** Position of the resumed test case (the same in both runs: the plan is the origin's). */
  position: number;
  /** Index of the top-level node it starts at, in the test case's `flow`. */
  nodeIndex: number;
  nodeId: string;
  /** The state before that node, opened: what the workflow gets. Absent from the stored plan. */
  state?: ResumeSnapshot;
  /** The same state sealed with the key ring, as the stored plan keeps it (src/store/run-origins.ts). */
  sealedState?: string;
  /** Outcomes of the results copied from the origin (the positions before `position`). */
  before: { passed: number; failed: number; skipped: number };
}

/**
 * The worker settings a run takes from the configuration when it starts (`ASSAY_*`, src/config.ts
 * `runs`) and freezes into its plan, so that replay and a later worker with other settings take the
 * same path. Defined once here: the configuration's `runs` section extends it and
 * `runSettingsOf` (src/config.ts) copies exactly these fields.
 */
export interface RunSettings {
  /** How API and Script nodes execute: `local` activities or `normal` ones (`ASSAY_API_NODE_ACTIVITY`). */
  apiNodeActivity: 'local' | 'normal';
  /** Per-request timeout when an API node sets none, ms (`ASSAY_REQUEST_TIMEOUT_MS`). */
  requestTimeoutMs: number;
  /** Response body bytes kept for assertions (`ASSAY_MAX_RESPONSE_BYTES`). */
  maxResponseBytes: number;
  /** Test cases per workflow execution before continuing as new (`ASSAY_TEST_CASES_PER_EXECUTION`). */
  testCasesPerExecution: number;
  /** Iterations one Loop or Iteration node may run at most (`ASSAY_MAX_LOOP_ITERATIONS`). */
  maxLoopIterations: number;
  /** History length past which the rest of a loop runs in a child workflow (`ASSAY_SEGMENT_HISTORY_EVENTS`). */
  segmentHistoryEvents: number;
  /**
   * Longest stretch of local activities before a checkpoint (a normal activity that stores progress)
   * ends the workflow task, ms (`ASSAY_CHECKPOINT_MS`, default 1000). Longer: fewer workflow tasks
   * for the Temporal server per node (more nodes per second), but a cancel, and the progress stored
   * while a test case runs, wait up to this long. Absent in plans frozen before it existed: 1000.
   */
  checkpointMs?: number;
}

/** Names of the {@link RunSettings} fields, in one list (copying settings out of the configuration). */
export const RUN_SETTING_NAMES = [
  'apiNodeActivity',
  'requestTimeoutMs',
  'maxResponseBytes',
  'testCasesPerExecution',
  'maxLoopIterations',
  'segmentHistoryEvents',
  'checkpointMs',
] as const satisfies readonly (keyof RunSettings)[];

/** One mock response of a design (spec "Mock definition"). */
export type { MockDelay, MockStateAction } from './mocks';
import type { MockDelay, MockStateAction } from './mocks';

export interface MockResponse {
  /** HTTP status, 100 to 599. */
  status: number;
  /** Identifies the response within its status (spec: numeric `code`, unique per status). */
  code: number;
  name?: string;
  /** The JSON body; generated from the response's schema when absent at save time. */
  data?: unknown;
  headers?: Record<string, string>;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
  /** Evaluate `{{param}}` and `{{faker.module.fn}}` placeholders (off by default, spec rule 7). */
  dynamic?: boolean;
  /** A JSON Schema for this response's body (else the design's `responseSchemas[status]`). */
  schema?: object;
  /** A latency distribution (docs/mocks.md "Latency and faults"); replaces `delayMs` and the design's `delay`. */
  delay?: MockDelay;
  /** Reads and writes a data collection (docs/mocks.md "State"). */
  state?: MockStateAction;
}

/** A failed assertion or node error of a test case, with expected and actual values (spec "Results"). */
export interface TestCaseFailure {
  /** Id of the node it happened in. */
  node: string;
  /**
   * Inside a sub-flow (Ref nodes): the Ref nodes' names from the test case down, then the failing
   * node's name, e.g. `["login", "get token"]`; the message then starts with the chain
   * `checkout › login › get token: `.
   */
  path?: string[];
  assertion?: string;
  operator?: string;
  expected?: unknown;
  actual?: unknown;
  message: string;
  /** The failed node's `errorCode` (NodeResult `errorCode`), when its failure has one. */
  errorCode?: string;
}
