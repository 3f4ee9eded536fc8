/**
 * The JSON Schemas of a flow's nodes and of a test case's data sets, in one place. Two
 * readers, one source of truth:
 *
 * - flow validation (src/validation/flow.ts) builds the schema ajv checks a flow with from
 *   {@link NODE_FIELDS} and {@link closedNodeSchema}, and the data sets' from {@link DATA_SET_FIELDS};
 * - Assay's OpenAPI document (api/openapi/flow.ts) turns the same objects into named component
 *   schemas (`ApiNode`, `IfNode`, …, the `FlowNode` union with a discriminator on `type`, `DataSet`).
 *
 * A node's children (IF `then`/`else`, Loop and Iteration `body`, Parallel `children`; the fields
 * src/flow/tree.ts `childLists` walks) are the one object {@link CHILD_NODES}, a list of nodes
 * referring to validation's `#/$defs/node`; the document swaps it for its own node union. What a
 * schema cannot say (ids unique in the tree, expressions that parse, exactly one of `count` and
 * `while`, …) is checked by src/validation/flow.ts after the schema, and said in the descriptions.
 *
 * Schemas are plain data (JSON Schema 2020-12 keywords that draft-07 shares), never mutated.
 */
import {
  ASSERTION_OPERATORS,
  HTTP_METHODS,
  METHOD_TOKEN_PATTERN,
  NODE_TYPES,
  type DataSet,
  type FlowNodeType,
  type RequestAuthType,
} from '../domain/types';
import { SERVER_NAME_PATTERN } from '../flow/servers';

/** A JSON Schema as plain data. */
export type JsonSchema = Record<string, unknown>;

/** Largest number of nodes in a flow, counted through every branch and body. */
export const MAX_FLOW_NODES = 500;

/** Largest `count` of a Loop node (the worker's iteration cap applies on top). */
export const MAX_LOOP_COUNT = 1_000_000;
/** Most data sets a test case may carry. */
export const MAX_DATA_SETS = 20;

/** Where validation's flow schema keeps the node schema its child lists refer to. */
export const NODES_REF = '#/$defs/node';

/** A node's `id`: unique in the whole flow; expressions read the node's outcome as `nodes.<id>`. */
const NODE_ID = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_-]{0,63}$' } as const;
const VARIABLE = { type: 'string', minLength: 1, maxLength: 200 } as const;
const EXPRESSION = { type: 'string', minLength: 1, maxLength: 4000 } as const;

/** A list of child nodes (the one object every child-holding field uses, so readers can find them). */
export const CHILD_NODES = { type: 'array', items: { $ref: NODES_REF } } as const;

/**
 * A Ref node's `flow` (a sub-flow: a flow of its own, its node ids apart from the caller's): a list
 * of nodes like {@link CHILD_NODES}, but not a child list of the tree walk (src/flow/tree.ts).
 */
export const SUB_FLOW_NODES = { type: 'array', items: { $ref: NODES_REF } } as const;

/** Script code and its libraries: a Script node's `script`, and an API node's hooks. */
export const SCRIPT_SCHEMA = {
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  description:
    'JavaScript run in the sandbox (docs/flows.md "Scripts"). `libs`: http(s) URLs of IIFE/UMD libraries or predefined libraries such as `crypto-js@4.2.0` (GET /v1/libraries), loaded before the code.',
  properties: {
    code: { type: 'string', maxLength: 200_000 },
    libs: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 2000 } },
  },
} as const;

/** An API node's assertion. */
export const ASSERTION_SCHEMA = {
  type: 'object',
  required: ['target', 'operator'],
  additionalProperties: false,
  description:
    'A check of an API node (on its response) or of an Assert node (on the context): `target` is a JSONata expression over `{response, variables, nodes, loop, …}` (`response` on API nodes only; docs/flows.md "What expressions see"); `expected` is required except for `exists`/`notExists` and the format operators (`isEmail`, `isUrl`, `isUuid`, `isIso8601`, `isJson`), which take none, and its shape depends on the operator (docs/api.md "Flows and assertions").',
  properties: {
    name: { type: 'string', maxLength: 200 },
    target: EXPRESSION,
    operator: { enum: [...ASSERTION_OPERATORS] },
    expected: {},
  },
} as const;

/** A credential field of an API node's `auth`: text, `{{variable}}` placeholders allowed. */
const CREDENTIAL = { type: 'string', maxLength: 4096 } as const;

/** The fields of each `auth` scheme besides `type` (src/domain/types.ts `RequestAuth`; docs/flows.md "Auth"), by `type`. */
export const AUTH_FIELDS: { readonly [T in RequestAuthType]: NodeFields } = {
  digest: {
    description:
      'HTTP Digest (RFC 7616): sent without credentials first; a 401 with a `Digest` challenge (MD5, SHA-256, SHA-512-256, their `-sess` variants; qop `auth` or `auth-int`) is answered by sending the request again.',
    required: ['username', 'password'],
    properties: { username: CREDENTIAL, password: CREDENTIAL },
  },
  oauth1: {
    description:
      'OAuth 1.0 (RFC 5849): the request signed with the consumer and token secrets; the protocol parameters go in the `Authorization` header or, with `placement: "query"`, the query. `timestamp` and `nonce` are made for each request unless given.',
    required: ['consumerKey'],
    properties: {
      consumerKey: CREDENTIAL,
      consumerSecret: CREDENTIAL,
      token: CREDENTIAL,
      tokenSecret: CREDENTIAL,
      signatureMethod: { enum: ['HMAC-SHA1', 'HMAC-SHA256', 'HMAC-SHA512', 'PLAINTEXT'] },
      placement: { enum: ['header', 'query'] },
      realm: CREDENTIAL,
      callback: CREDENTIAL,
      verifier: CREDENTIAL,
      timestamp: CREDENTIAL,
      nonce: CREDENTIAL,
      includeVersion: { type: 'boolean' },
    },
  },
  hawk: {
    description:
      'Hawk (https://github.com/mozilla/hawk): a MAC of the request with the shared `key`; `includePayloadHash` also covers the body and its Content-Type.',
    required: ['id', 'key'],
    properties: {
      id: CREDENTIAL,
      key: CREDENTIAL,
      algorithm: { enum: ['sha256', 'sha1'] },
      ext: CREDENTIAL,
      app: CREDENTIAL,
      dlg: CREDENTIAL,
      includePayloadHash: { type: 'boolean' },
      timestamp: CREDENTIAL,
      nonce: CREDENTIAL,
    },
  },
  awsv4: {
    description:
      'AWS Signature Version 4: `region` defaults to us-east-1, `service` to the first label of the host name; `placement: "query"` presigns the URL instead of setting `Authorization`.',
    required: ['accessKeyId', 'secretAccessKey'],
    properties: {
      accessKeyId: CREDENTIAL,
      secretAccessKey: CREDENTIAL,
      sessionToken: CREDENTIAL,
      region: CREDENTIAL,
      service: CREDENTIAL,
      placement: { enum: ['header', 'query'] },
    },
  },
};

/** The `auth` schemes, in documented order. */
export const AUTH_TYPES = Object.keys(AUTH_FIELDS) as RequestAuthType[];

/** An API node's `request.auth`: one closed schema per scheme, chosen by `type` (the document shows it as the `RequestAuth` union). */
export const REQUEST_AUTH_SCHEMA = {
  type: 'object',
  required: ['type'],
  description:
    'Credentials the request is signed with when it is sent, after its templates are filled (docs/flows.md "Auth"); results show the secrets as `***`.',
  properties: { type: { enum: [...AUTH_TYPES] } },
  allOf: AUTH_TYPES.map((type) => ({
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: {
      required: [...(AUTH_FIELDS[type].required ?? [])],
      additionalProperties: false,
      properties: { type: {}, ...AUTH_FIELDS[type].properties },
    },
  })),
} as const;

/** An API node's `server` (docs/reuse.md "Servers"; src/flow/servers.ts). */
const SERVER_FIELD = {
  type: 'string',
  pattern: SERVER_NAME_PATTERN,
  description:
    "A server of the run's environment (its `servers`): `request.url` is then a path, joined to that server's base URL with exactly one slash. A run whose environment lacks it fails before sending anything.",
} as const;

/** The fields one node type adds to `type`, `id` and `name`. */
export interface NodeFields {
  /** What the node does (the OpenAPI component's description). */
  description: string;
  /** Fields it must have besides `type`. */
  required?: readonly string[];
  /** Its fields' schemas; a list of children is {@link CHILD_NODES}. */
  properties: Readonly<Record<string, unknown>>;
}

/** Most parts of a request's `multipart` body. */
export const MAX_MULTIPART_PARTS = 100;

/** A workspace file named by a request: its name or id (`file_…`); templates allowed. */
const FILE_REF = { type: 'string', minLength: 1, maxLength: 1024 } as const;

/** A Content-Type given for a part or a binary body: one line, templates allowed. */
const MEDIA_TYPE = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\r\\n]*$' } as const;

/**
 * One part of `multipart`: exactly one of `value` (a text part) and `file` (a workspace file, with
 * the optional `filename` and `contentType`); checked after the schema (src/validation/flow.ts).
 */
const MULTIPART_PART_SCHEMA = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  description:
    'A text part `{name, value}` or a file part `{name, file, filename?, contentType?}` (exactly one of `value` and `file`; `filename` and `contentType` only with `file`). Strings may hold `{{variable}}` placeholders.',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 1000 },
    value: { type: 'string', maxLength: 1_000_000 },
    file: FILE_REF,
    filename: { type: 'string', minLength: 1, maxLength: 1000, pattern: '^[^\\r\\n]*$' },
    contentType: MEDIA_TYPE,
  },
} as const;

/** An API node's (and a Poll node's) `request`. */
export const REQUEST_SCHEMA = {
  type: 'object',
  required: ['method', 'url'],
  additionalProperties: false,
  description:
    'The request; strings may hold `{{variable}}` placeholders. `body`: a JSON value sent as `application/json`, or a string sent as it is. The settings after `timeoutMs` are those of Postman\'s `protocolProfileBehavior` (docs/flows.md "Request settings").',
  properties: {
    method: {
      type: 'string',
      pattern: METHOD_TOKEN_PATTERN,
      description: `${HTTP_METHODS.join(', ')}, or any other method token (RFC 9110 §9.1; not CONNECT), sent in upper case.`,
      examples: [...HTTP_METHODS],
    },
    url: { type: 'string', minLength: 1, maxLength: 8192 },
    headers: { type: 'object', additionalProperties: { type: 'string', maxLength: 8192 }, maxProperties: 100 },
    body: {},
    timeoutMs: { type: 'integer', minimum: 1, maximum: 600_000 },
    followRedirects: { type: 'boolean', description: 'Follow 3xx redirects (default true).' },
    maxRedirects: {
      type: 'integer',
      minimum: 0,
      maximum: 50,
      description: 'Redirects followed at most (default 10); one more fails the node with TOO_MANY_REDIRECTS.',
    },
    followOriginalHttpMethod: {
      type: 'boolean',
      description: 'Keep the method and body when following a 301, 302 or 303 (default false: GET without a body).',
    },
    followAuthorizationHeader: {
      type: 'boolean',
      description: 'Keep `Authorization` on a redirect to another host name (default false: dropped).',
    },
    strictSSL: {
      type: 'boolean',
      description: "Check the server's TLS certificate (default true); false accepts any certificate.",
    },
    disableUrlEncoding: {
      type: 'boolean',
      description: 'Send the path and query as written, not normalised and percent-encoded (default false).',
    },
    alwaysSendBody: {
      type: 'boolean',
      description:
        'Send the body with GET, HEAD, COPY, PURGE and UNLOCK too (default false: dropped, with no Content-Type).',
    },
    refererOnRedirect: {
      type: 'boolean',
      description:
        'Send `Referer: <the URL redirected from>` on each redirect followed, replacing a written one (default false: none added).',
    },
    auth: REQUEST_AUTH_SCHEMA,
    multipart: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_MULTIPART_PARTS,
      description:
        "A `multipart/form-data` body (docs/flows.md \"Files\"), its parts in order: a text part `{name, value}`, or a workspace file `{name, file, filename?, contentType?}` (`file`: the file's name or id; `filename` default the last segment of the file's name; `contentType` default the file's). Several parts may share a name. Exclusive with `body` and `file`; `Content-Type` is always `multipart/form-data` with its boundary (a header of that name is replaced), `Content-Length` is known up front.",
      items: MULTIPART_PART_SCHEMA,
    },
    file: {
      description:
        "A workspace file's bytes as the whole body (docs/flows.md \"Files\"): its name or id, or `{file, contentType?}`. Content-Type: `contentType`, else the request's own header, else the file's, else `application/octet-stream`. Exclusive with `body` and `multipart`.",
      anyOf: [
        FILE_REF,
        {
          type: 'object',
          required: ['file'],
          additionalProperties: false,
          properties: { file: FILE_REF, contentType: MEDIA_TYPE },
        },
      ],
    },
  },
} as const;

/** A duration field of a node: a k6 duration string (`"90s"`, `"1h30m"`) or a number (the field says its unit). */
const DURATION = {
  anyOf: [
    { type: 'string', minLength: 1, maxLength: 50 },
    { type: 'number', minimum: 0 },
  ],
} as const;

/** Header maps of the async nodes: names and values as an API node's. */
const HEADERS = {
  type: 'object',
  additionalProperties: { type: 'string', maxLength: 8192 },
  maxProperties: 100,
} as const;

const AUTH_PROFILE_FIELD = {
  type: 'string',
  pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$',
  description: "An auth profile (docs/auth.md), or `none`, as an API node's.",
} as const;

/** Assertions of the async nodes (the same schema as an API node's). */
const ASSERTIONS = { type: 'array', maxItems: 200, items: ASSERTION_SCHEMA } as const;

/** The nodes that wait for the world outside (docs/async.md): callbacks, polling, streams, gRPC. */
const ASYNC_NODE_FIELDS = {
  callback: {
    description:
      'Waits durably for requests sent to this node\'s callback address (docs/async.md "Callbacks"): `{{callback.url}}` (the first Callback node of the flow) or `{{callback.<nodeId>.url}}` in an earlier template. A Temporal signal ends the wait, nothing is held meanwhile; callbacks that arrived before the wait are kept. Only callbacks for which the JSONata `match` holds count, until `count` (default 1) have arrived or `timeout` (k6 duration or seconds, default "5m") passes. `signature` (`hmac`: `X-Assay-Signature: sha256=<hex>`, or `standard-webhooks`) is checked when a callback arrives: without a valid one it is answered 401 and not counted. `respond`: what the caller gets (default 200 `{"received": true}`). Assertions see `callback` (the last matching one) and `callbacks`.',
    properties: {
      timeout: DURATION,
      match: EXPRESSION,
      count: { type: 'integer', minimum: 1, maximum: 100 },
      signature: {
        type: 'object',
        required: ['scheme', 'secret'],
        additionalProperties: false,
        properties: {
          scheme: { enum: ['hmac', 'standard-webhooks'] },
          secret: { type: 'string', minLength: 1, maxLength: 4096 },
          header: { type: 'string', pattern: '^[A-Za-z0-9-]{1,100}$' },
        },
      },
      respond: {
        type: 'object',
        additionalProperties: false,
        properties: {
          status: { type: 'integer', minimum: 200, maximum: 599 },
          headers: HEADERS,
          body: {},
        },
      },
      assertions: ASSERTIONS,
    },
  },
  poll: {
    description:
      'Repeats `request` (as an API node\'s) on a durable timer until the JSONata `until` holds on the response, then evaluates `assertions` on the last one (docs/async.md "Polling"). Delays: `interval` (k6 duration or ms, default "1s"), `backoff` `fixed` or `exponential` (times `factor`, default 2, up to `maxInterval`, default "60s"), `jitter` 0–1. At most `maxAttempts` (default 30) attempts within `timeout` (k6 duration or seconds; default the run\'s deadline); the node fails naming the condition when it never held. Every attempt is listed in the results.',
    required: ['request', 'until'],
    properties: {
      request: REQUEST_SCHEMA,
      server: SERVER_FIELD,
      authProfile: AUTH_PROFILE_FIELD,
      until: EXPRESSION,
      interval: DURATION,
      backoff: { enum: ['fixed', 'exponential'] },
      factor: { type: 'number', minimum: 1, maximum: 10 },
      maxInterval: DURATION,
      jitter: { type: 'number', minimum: 0, maximum: 1 },
      maxAttempts: { type: 'integer', minimum: 1, maximum: 1000 },
      timeout: DURATION,
      assertions: ASSERTIONS,
    },
  },
  websocket: {
    description:
      'Opens a WebSocket (`ws://`/`wss://` `url`, or a path with `server`), sends `send` in order, then receives messages until the JSONata `until` (over `{messages, count, first, last}`) holds, `maxMessages` (default 100) arrived, the server closes, or `timeout` (k6 duration or seconds, default "10s") passes (docs/async.md "WebSocket and SSE"). The node fails when `until` never held. Assertions see `messages`, `count`, `first`, `last`, `closed` and `response` (the handshake). Through the same address policy as API nodes.',
    required: ['url'],
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 8192 },
      server: SERVER_FIELD,
      headers: HEADERS,
      subprotocols: {
        type: 'array',
        maxItems: 20,
        items: { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$" },
      },
      authProfile: AUTH_PROFILE_FIELD,
      send: {
        type: 'array',
        maxItems: 100,
        items: {
          type: 'object',
          required: ['data'],
          additionalProperties: false,
          properties: { data: {}, delayMs: { type: 'integer', minimum: 0, maximum: 600_000 } },
        },
      },
      until: EXPRESSION,
      timeout: DURATION,
      maxMessages: { type: 'integer', minimum: 1, maximum: 10_000 },
      assertions: ASSERTIONS,
    },
  },
  sse: {
    description:
      'Receives Server-Sent Events from `url` (GET, or POST with `body`), as a WebSocket node receives messages: until `until` holds, `maxMessages` arrived, the stream ends or `timeout` passes (docs/async.md "WebSocket and SSE"). Each message has `data` (parsed JSON when it is JSON), `event` and `id`.',
    required: ['url'],
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 8192 },
      server: SERVER_FIELD,
      method: { enum: ['GET', 'POST'] },
      headers: HEADERS,
      body: {},
      authProfile: AUTH_PROFILE_FIELD,
      until: EXPRESSION,
      timeout: DURATION,
      maxMessages: { type: 'integer', minimum: 1, maximum: 10_000 },
      assertions: ASSERTIONS,
    },
  },
  grpc: {
    description:
      'Calls `service`/`method` (unary or server-streaming) at `target` (`host:port`, `grpc://` plaintext or `grpcs://` TLS, or a path-less `server`) from the `.proto` source in `proto` (its imports in `protoFiles`), with `message` (JSON, templates filled), `metadata` and `deadlineMs` (docs/async.md "gRPC"). Assertions see `response.status` (the gRPC status code, 0 = OK), `response.statusName`, `response.body` (the message, or the list of streamed messages), `response.headers` and `response.trailers`.',
    required: ['target', 'proto', 'service', 'method'],
    properties: {
      target: { type: 'string', minLength: 1, maxLength: 2048 },
      server: SERVER_FIELD,
      proto: { type: 'string', minLength: 1, maxLength: 1_000_000 },
      protoFiles: {
        type: 'object',
        maxProperties: 50,
        propertyNames: { minLength: 1, maxLength: 500 },
        additionalProperties: { type: 'string', maxLength: 1_000_000 },
      },
      service: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_.]{0,499}$' },
      method: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,199}$' },
      message: {},
      metadata: HEADERS,
      deadlineMs: { type: 'integer', minimum: 1, maximum: 600_000 },
      maxMessages: { type: 'integer', minimum: 1, maximum: 10_000 },
      assertions: ASSERTIONS,
    },
  },
} as const satisfies Record<string, NodeFields>;

/** The fields of each node type (spec "Test-flow nodes"; src/domain/types.ts `FlowNode`), by `type`. */
export const NODE_FIELDS: { readonly [T in FlowNodeType]: NodeFields } = {
  api: {
    description:
      'Sends an HTTP request; its assertions decide pass or fail. `script` may define the hooks `beforeRequest` and `afterResponse`; `retry` repeats the request on listed statuses or network errors.',
    required: ['request'],
    properties: {
      request: REQUEST_SCHEMA,
      assertions: { type: 'array', maxItems: 200, items: ASSERTION_SCHEMA },
      script: SCRIPT_SCHEMA,
      server: SERVER_FIELD,
      retry: {
        type: 'object',
        required: ['attempts'],
        additionalProperties: false,
        description:
          'Retries of the request, reported as one execution with its attempts (`attempts` counts the first). Defaults: `delayMs` 500, `backoff` 2, `maxDelayMs` 10000, `onStatus` `[429, "5xx"]`, `onNetworkError` true.',
        properties: {
          attempts: { type: 'integer', minimum: 1, maximum: 10 },
          delayMs: { type: 'integer', minimum: 0, maximum: 60_000 },
          backoff: { type: 'number', minimum: 1, maximum: 10 },
          maxDelayMs: { type: 'integer', minimum: 0, maximum: 300_000 },
          onStatus: {
            type: 'array',
            maxItems: 50,
            items: {
              anyOf: [
                { type: 'integer', minimum: 100, maximum: 599 },
                { type: 'string', pattern: '^[1-5]xx$' },
              ],
            },
          },
          onNetworkError: { type: 'boolean' },
        },
      },
      authProfile: {
        type: 'string',
        pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$',
        description:
          "The auth profile the request is sent with (docs/auth.md), or `none`; wins over the test case's, folder's and runner's.",
      },
      extract: {
        type: 'object',
        maxProperties: 100,
        propertyNames: { minLength: 1, maxLength: 200 },
        additionalProperties: EXPRESSION,
        description:
          'Variables set from the response: name → JSONata over what assertions see (`response.body.token`), in order, after the response and its hooks and before the assertions (docs/flows.md "Extracting variables"). A value that is `undefined` removes the variable; an expression that fails fails the node.',
      },
    },
  },
  if: {
    description:
      'Runs `then` when the JSONata `condition` holds, else `else` (when given); the branch not taken is reported as skipped.',
    required: ['condition', 'then'],
    properties: { condition: EXPRESSION, then: CHILD_NODES, else: CHILD_NODES },
  },
  loop: {
    description:
      "Repeats `body` `count` times, or while the JSONata `while` holds (checked before each iteration): exactly one of the two. `breakCondition` (JSONata, after each iteration) ends it at once; `maxIterations` caps it (never above the worker's ASSAY_MAX_LOOP_ITERATIONS).",
    required: ['body'],
    properties: {
      count: { type: 'integer', minimum: 0, maximum: MAX_LOOP_COUNT },
      while: EXPRESSION,
      breakCondition: EXPRESSION,
      maxIterations: { type: 'integer', minimum: 1 },
      body: CHILD_NODES,
    },
  },
  iteration: {
    description:
      "Runs `body` once per item of an array: the JSONata `items`, or the rows of the test case's data set named `dataSet` (exactly one of the two). The item is `item` (or the name in `as`) in templates and `loop.item` in expressions.",
    required: ['body'],
    properties: {
      items: EXPRESSION,
      dataSet: { type: 'string', minLength: 1, maxLength: 100 },
      as: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' },
      breakCondition: EXPRESSION,
      maxIterations: { type: 'integer', minimum: 1 },
      body: CHILD_NODES,
    },
  },
  script: {
    description: 'Runs script code; with `variable`, stores what its `generateValue` returns under that name.',
    required: ['script'],
    properties: { script: SCRIPT_SCHEMA, variable: VARIABLE },
  },
  wait: {
    description:
      'Waits `ms` milliseconds, or the number of milliseconds the JSONata `expression` yields (exactly one of the two); a durable timer.',
    properties: { ms: { type: 'integer', minimum: 0, maximum: 86_400_000 }, expression: EXPRESSION },
  },
  context: {
    description: 'Sets variables from JSONata expressions: `{"set": {"token": "nodes.login.response.body.token"}}`.',
    required: ['set'],
    properties: {
      set: {
        type: 'object',
        minProperties: 1,
        maxProperties: 100,
        propertyNames: { minLength: 1, maxLength: 200 },
        additionalProperties: EXPRESSION,
      },
    },
  },
  parallel: {
    description: 'Runs `children` concurrently, at most `concurrency` at a time (default: all).',
    required: ['children'],
    properties: { concurrency: { type: 'integer', minimum: 1, maximum: 50 }, children: CHILD_NODES },
  },
  assert: {
    description:
      'Assertions on the flow\'s context without a request (docs/flows.md "Assert node"): each `target` is a JSONata expression over `{variables, nodes, loop, loops, testCase}`. `skipIf` (JSONata): when truthy the node is skipped. A failed Assert node fails the test case and, unless `continueOnFailure` is true, the test case\'s remaining nodes are not run (listed as skipped).',
    required: ['assertions'],
    properties: {
      assertions: { type: 'array', minItems: 1, maxItems: 200, items: ASSERTION_SCHEMA },
      skipIf: EXPRESSION,
      continueOnFailure: { type: 'boolean' },
    },
  },
  ref: {
    description:
      "Runs another test case's flow inside this one (docs/reuse.md \"Sub-flows\"). `mode` `clone` copies the referenced test case's flow into `flow` when saved (when `flow` is absent) and is then edited freely; `ref` is a live link: its flow is taken when each run starts (and frozen into its plan with `version`), so `flow` must be absent. The sub-flow starts from the caller's variables overlaid with `inputs` (sub-flow variable → JSONata evaluated in the caller) and has its own `nodes`; `outputs` (caller variable → sub-flow variable) come back. The referenced test case must exist in the workspace; cycles and nesting deeper than 5 levels are refused (422).",
    required: ['testCaseId', 'mode'],
    properties: {
      testCaseId: { type: 'string', minLength: 1, maxLength: 40 },
      mode: { enum: ['ref', 'clone'] },
      inputs: {
        type: 'object',
        maxProperties: 100,
        propertyNames: { minLength: 1, maxLength: 200 },
        additionalProperties: EXPRESSION,
      },
      outputs: {
        type: 'object',
        maxProperties: 100,
        propertyNames: { minLength: 1, maxLength: 200 },
        additionalProperties: VARIABLE,
      },
      flow: SUB_FLOW_NODES,
    },
  },
  ...ASYNC_NODE_FIELDS,
  mockVerify: {
    description:
      'Checks the mock journal (docs/mocks.md "Journal and verification"): counts the requests the workspace\'s mocks received in the run\'s scope (`scope` `run`, the default: the service under test called them with `X-Assay-Mock-Scope: <runId>` or `/mock/<ws>/~<runId>/…`; `shared`: without a scope; `any`) that match `method`, `path` (concrete, or a design path template such as `/payments/{id}`), `designId` and the JSONata `where` (over each entry: `method`, `path`, `query`, `headers`, `body` parsed, `status`, `violations`). Passes when the count is `count` (an integer: exactly; `{min, max}`; default at least 1) and `assertions` hold (over `count`, `requests`: the first 20 matching, oldest first, and `violations`). The failure names what was expected and what was found.',
    properties: {
      method: { type: 'string', pattern: '^[A-Za-z]{1,16}$' },
      path: { type: 'string', minLength: 1, maxLength: 2000 },
      designId: { type: 'string', minLength: 1, maxLength: 200 },
      where: EXPRESSION,
      count: {
        anyOf: [
          { type: 'integer', minimum: 0, maximum: 1_000_000 },
          {
            type: 'object',
            additionalProperties: false,
            properties: {
              min: { type: 'integer', minimum: 0, maximum: 1_000_000 },
              max: { type: 'integer', minimum: 0, maximum: 1_000_000 },
            },
          },
        ],
      },
      scope: { enum: ['run', 'shared', 'any'] },
      assertions: ASSERTIONS,
    },
  },
};

/**
 * The fields every node may have besides its type's: `id` (given one when absent: `n1`, `n2`, …), a
 * `name` shown in results, and `disabled` (the node switched off, src/domain/types.ts `NodeBase`).
 */
export const NODE_COMMON_PROPERTIES = {
  id: NODE_ID,
  name: { type: 'string', maxLength: 200 },
  disabled: {
    type: 'boolean',
    description:
      'true: the node is not run, nor anything under it (IF branches, loop bodies, Parallel children); its result is `skipped` with `reason` `disabled`, and `nodes.<id>` stays absent (docs/flows.md "Disabled nodes").',
  },
} as const;

/**
 * The closed schema of one node type: `type` (its constant), `id`, `name` and its own fields, no
 * others. Validation uses it as the `then` of its `if type = …` branch; the document as the body of
 * the type's component.
 */
export function closedNodeSchema(type: FlowNodeType): JsonSchema {
  const fields = NODE_FIELDS[type];
  return {
    required: ['type', ...(fields.required ?? [])],
    additionalProperties: false,
    properties: { type: { const: type }, ...NODE_COMMON_PROPERTIES, ...fields.properties },
  };
}

/** The node types in their documented order (src/domain/types.ts `NODE_TYPES`), the list validation's `type` enum is. */
export const FLOW_NODE_TYPES: readonly FlowNodeType[] = NODE_TYPES;

/** A data set's `name`: what an Iteration node's `dataSet` names. */
export const DATA_SET_NAME = { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,100}$' } as const;

/** The fields of each data set type besides `name` and `type` (docs/flows.md "Data sets"), by `type`. */
export const DATA_SET_FIELDS: { readonly [T in DataSet['type']]: NodeFields } = {
  json: {
    description: "A data set given as a JSON array: each element is one iteration's item.",
    required: ['data'],
    properties: { data: { type: 'array', items: {} } },
  },
  csv: {
    description:
      "A data set given as CSV text with a header row: each row is one iteration's item, an object keyed by the header (at most 10,000 rows); values are strings unless `cast` (numbers and `true`/`false` become JSON values).",
    required: ['csv'],
    properties: { csv: { type: 'string', maxLength: 5_000_000 }, cast: { type: 'boolean' } },
  },
};

/** The data set types, in documented order. */
export const DATA_SET_TYPES = Object.keys(DATA_SET_FIELDS) as Array<DataSet['type']>;
