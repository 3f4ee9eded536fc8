/**
 * The input and output of the activity that makes a gRPC node's call (docs/async.md "gRPC";
 * activities/grpc.ts `callGrpcNode`). The node handler (src/flow/grpc-node.ts) fills the templates
 * in the workflow; the activity compiles the `.proto` source, resolves the target through the
 * address policy and makes the call. Failures come back as data.
 */

/** What the gRPC activity is given: the node's call with its templates filled. */
export interface GrpcCallInput {
  /** The node id (the load generator names the request by it). */
  label: string;
  /**
   * Where to connect: `host:port` or `grpc://host:port` (plaintext), `grpcs://host[:port]` (TLS,
   * default port 443); `http://` and `https://` are read as `grpc://` and `grpcs://`.
   */
  target: string;
  /** The `.proto` source declaring the service, and the files it imports by import path. */
  proto: string;
  protoFiles?: Record<string, string>;
  /** Fully-qualified service name (`package.Service`) and method name. */
  service: string;
  method: string;
  /** The request message as JSON (field names as declared in the `.proto`). */
  message: unknown;
  /** Request metadata; names ending in `-bin` carry base64 text, sent as bytes (gRPC over HTTP/2 spec). */
  metadata: Record<string, string>;
  /** Milliseconds the call may take (its gRPC deadline). */
  deadlineMs: number;
  /** Server-streaming: messages received at most; the call is cancelled when this many arrived. */
  maxMessages: number;
  /**
   * The node execution id (src/flow/execution-id.ts; docs/durability.md "Node execution ids"): the
   * `X-Assay-Execution` header of API requests, and the key of the execution's recorded outcome
   * (src/store/node-executions.ts). Absent where no id is made (load tests) and in inputs recorded
   * before it.
   */
  execution?: string;
}

/** What the gRPC activity answers. */
export interface GrpcCallOutput {
  /** `package.Service/Method` as called, and `grpc://host:port` or `grpcs://host:port`. */
  path: string;
  target: string;
  /** True for a server-streaming method. */
  streaming: boolean;
  /**
   * The call's status (https://grpc.github.io/grpc/core/md_doc_statuscodes.html): code (0 OK) and
   * its name; absent when no call was made (`error`).
   */
  code?: number;
  status?: string;
  details?: string;
  /** Initial metadata (response headers) and trailing metadata, lower-case names; `-bin` values as base64. */
  headers: Record<string, string>;
  trailers: Record<string, string>;
  /** The messages received, as JSON (cut when too large: `truncated`); one for a unary call that succeeded. */
  messages: unknown[];
  /** Messages received in all (more than `messages` holds when cut). */
  count: number;
  /** True when some messages were left out of `messages` or cut to a preview (src/domain/limits.ts). */
  truncated: boolean;
  /** Why a stream stopped: it ended (`end`, with the status), or `maxMessages` arrived (the call was then cancelled). */
  stoppedBy?: 'end' | 'maxMessages';
  /** Bytes of the messages received (protobuf wire size). */
  size: number;
  /** Bytes of the request message sent (protobuf wire size); absent when nothing was sent. */
  sentSize?: number;
  /** Milliseconds from the call's start to its status. */
  timeMs: number;
  /**
   * Why no call could be made (a `.proto` that does not parse, an unknown service or method, a
   * message that does not fit the request type, a target the address policy refuses), in words,
   * with a stable `errorCode`: PROTO_INVALID, METHOD_NOT_FOUND, METHOD_NOT_SUPPORTED,
   * MESSAGE_INVALID, METADATA_INVALID, INVALID_TARGET, ADDRESS_NOT_ALLOWED, a resolution's code
   * (ENOTFOUND, EAI_AGAIN; else NETWORK_ERROR), CANCELLED, INPUT_TOO_LARGE (the workflow port). The
   * node's result carries it (NodeResult `errorCode`, docs/flows.md "Error codes").
   */
  error?: string;
  errorCode?: string;
  /** Epoch ms (worker clock) when the call ended: moves the workflow's clock (workflows/workflow-port.ts). */
  finishedAtMs: number;
}
