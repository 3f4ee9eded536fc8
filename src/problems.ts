/**
 * The problem catalogue: every error answer of Assay's HTTP services is an RFC 9457 problem
 * details document (`application/problem+json`) of one of these codes. The API, the bundler, the
 * CLI and the console share this knowledge; throwing and writing problems over HTTP is
 * api/problem.ts and api/errors.ts.
 *
 * Every document carries `type` (`/problems/<code>`, served by the API itself), `title`,
 * `status`, `detail`, a stable machine `code`, and for invalid input an `errors` array whose
 * entries name the field at fault both as an RFC 6901 JSON Pointer (`pointer`, RFC 9457 §3 style)
 * and as a readable path (`field`).
 */

/** One invalid field of a request. */
export interface FieldError {
  /** Readable path, e.g. `flow[0].request.url`; `''` for the whole body. */
  field: string;
  /** JSON Pointer into the request body, e.g. `#/flow/0/request/url`. */
  pointer: string;
  detail: string;
}

/** The catalogue of problem codes: status and title of each (docs/api.md lists them too). */
export const PROBLEMS = {
  'malformed-json': { status: 400, title: 'Malformed JSON', description: 'The request body is not valid JSON.' },
  'validation-failed': {
    status: 400,
    title: 'Validation failed',
    description: 'The request is well-formed JSON but some fields are invalid; `errors` lists each one.',
  },
  'invalid-query': {
    status: 400,
    title: 'Invalid query parameter',
    description: 'A query string parameter is invalid.',
  },
  'too-deep': {
    status: 400,
    title: 'JSON nested too deeply',
    description:
      'The body (or a document in it) nests arrays/objects deeper than `limit` (31, the deepest MariaDB stores) levels; `errors` points at where. Flatten it.',
  },
  'bad-cursor': {
    status: 400,
    title: 'Bad paging cursor',
    description:
      'The `cursor` query parameter is not one this listing returned (`nextCursor`); `errors` names it. Start again without `cursor`.',
  },
  'invalid-header': {
    status: 400,
    title: 'Invalid header',
    description: 'A request header is malformed; `errors` names it (e.g. `Idempotency-Key`).',
  },
  'idempotency-key-reused': {
    status: 422,
    title: 'Idempotency key reused',
    description:
      'The `Idempotency-Key` was already used within 24 h for a different request (another endpoint or body); `runId` names the run it started. Use a new key for a new request.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description:
      'The request has no API key or console session, or the key is unknown, expired or revoked, or the session ended. Send `Authorization: Bearer <API_KEY>`, or sign in again.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description: "The caller's scope (an API key's, or a person's role's) does not allow this operation.",
  },
  // People, roles and keys (docs/teams.md).
  'not-a-member': {
    status: 403,
    title: 'Not a member',
    description:
      'The signed-in user has no role in the workspace asked for (`X-Assay-Workspace`), or in any workspace.',
  },
  'csrf-token-invalid': {
    status: 403,
    title: 'CSRF token missing or wrong',
    description:
      "A change made with a console session cookie must send the session's CSRF token in `X-CSRF-Token` (GET /auth/session gives it).",
  },
  'scope-exceeds-role': {
    status: 403,
    title: 'Scope exceeds role',
    description: 'An API key cannot be given a scope above what its maker may do, nor `owner`.',
  },
  'last-owner': {
    status: 409,
    title: 'Last owner',
    description: 'A workspace keeps at least one owner: give someone else the owner role first.',
  },
  'member-exists': {
    status: 409,
    title: 'Already a member',
    description: 'The user already has a role in this workspace; change it with PATCH /v1/members/{userId}.',
  },
  'sign-in-failed': {
    status: 400,
    title: 'Sign-in failed',
    description:
      'The identity provider refused the sign-in, or its answer did not check out (state, nonce, PKCE, ID token).',
  },
  'not-found': { status: 404, title: 'Not found', description: 'No such resource in the workspace of the API key.' },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    description: 'The path exists but not with this method.',
  },
  'name-taken': {
    status: 409,
    title: 'Name already taken',
    description: 'Another resource of this kind has the same name.',
  },
  'test-case-referenced': {
    status: 409,
    title: 'Test case referenced',
    description:
      'The test case is run by Ref nodes (`mode: "ref"`, docs/reuse.md "Sub-flows") of other test cases; `referencedBy` lists them (`id`, `name`, `folder`, `nodes`). Remove those references, or turn them into clones, then delete it.',
  },
  'test-case-changed': {
    status: 409,
    title: 'Test case changed',
    description:
      'The test case was saved by someone else since you read it: the `If-Match` of your PUT or PATCH names another version. `version` and `updatedAt` are the stored ones; nothing was stored. Reload it (GET /v1/test-cases/{id}) and apply your change again.',
  },
  'run-finished': {
    status: 409,
    title: 'Run already finished',
    description: 'The run has ended; it cannot be cancelled.',
  },
  'run-not-controllable': {
    status: 409,
    title: 'Run not controllable',
    description:
      'The run takes no live control command (pause, resume, scale, stop; docs/performance.md "Steering a running test"): it is not a performance run, its load is not under way (queued, starting, ended) or is stopping already, or it started before live control existed. `detail` says which.',
  },
  'run-active': {
    status: 409,
    title: 'Run still active',
    description:
      'The run is queued or running; it cannot be deleted, nor rerun, replayed or resumed. Cancel it first (POST /v1/runs/{runId}/cancel), or wait until it has ended.',
  },
  'deployment-disabled': {
    status: 409,
    title: 'Deployment disabled',
    description:
      'The deployment has `enabled: false`, so it starts no runs (schedule, incoming webhook, run-now). Enable it with PATCH /v1/deployments/{id} {"enabled": true}.',
  },
  'in-use': { status: 409, title: 'Resource in use', description: 'Another resource refers to this one.' },
  'route-taken': {
    status: 409,
    title: 'Route already designed',
    description: 'Another API design of the same method answers the same paths; `designId` names it.',
  },
  'ai-not-configured': {
    status: 503,
    title: 'AI generator not configured',
    description: 'Set ASSAY_AI_BASE_URL and ASSAY_AI_MODEL to an OpenAI-compatible API, or ask for mode "fast".',
  },
  'ai-failed': {
    status: 502,
    title: 'AI generator failed',
    description: 'The AI provider failed, or answered something that is not JSON valid against the schema.',
  },
  'mock-not-found': {
    status: 404,
    title: 'No API design matches',
    description: 'No design of the workspace matches the mock request; `designs` lists them.',
  },
  'mock-method-not-allowed': {
    status: 405,
    title: 'Method not designed',
    description: 'The path is designed for other methods; `allowed` lists them.',
  },
  'mock-response-not-found': {
    status: 404,
    title: 'No such mock response',
    description:
      'The selectors (_status_, _code_, x-mock-response-code, Prefer) match no response; `defined` lists statuses and codes.',
  },
  'mock-bad-selector': {
    status: 400,
    title: 'Invalid response selector',
    description: 'A status or code selector is not a number.',
  },
  'mock-bad-scope': {
    status: 400,
    title: 'Invalid mock scope',
    description:
      'The scope (`X-Assay-Mock-Scope` header or `/~{scope}` path segment) must be 1 to 100 of A-Z a-z 0-9 _ . : -.',
  },
  'mock-body-too-large': {
    status: 413,
    title: 'Mock request body too large',
    description: 'The mock service reads request bodies up to 1 MiB.',
  },
  'mock-record-not-found': {
    status: 404,
    title: 'No such record',
    description: 'The data collection has no record with this id in this scope; `collection` and `id` name it.',
  },
  'mock-record-exists': {
    status: 409,
    title: 'Record already exists',
    description: 'A record with this id already exists in the data collection (in this scope).',
  },
  'mock-request-invalid': {
    status: 422,
    title: 'Request breaks the contract',
    description:
      "The request does not match the design's request schema or parameters; `violations` lists each ({in, field, message}). Set the design's `validateRequests` to false to accept it.",
  },
  'mock-fault': {
    status: 503,
    title: 'Injected fault',
    description: "The design's faults (or a `_fault_` selector) chose to answer with an error status.",
  },
  'mock-proxy-failed': {
    status: 502,
    title: 'Proxy target failed',
    description: "The workspace's mock proxy could not reach its target (`url`), or the address policy refused it.",
  },
  'mock-state-failed': {
    status: 500,
    title: 'State expression failed',
    description: "A response's `state` expression (update or body) failed; `detail` names it and why.",
  },
  'mock-collection-taken': {
    status: 409,
    title: 'Collection name or path taken',
    description: 'Another data collection of the workspace has this name or base path; `collectionId` names it.',
  },
  'host-not-allowed': {
    status: 403,
    title: 'Host not allowed',
    description:
      'The address policy refuses where the library URL, a redirect or an import points: a private, loopback or link-local address, cloud metadata or the service itself (`url`, `address`, `rule`). ASSAY_BUNDLER_ALLOW_HOSTS can allow a mirror (docs/security.md "Address policy").',
  },
  'address-not-allowed': {
    status: 403,
    title: 'Address not allowed',
    description:
      'The address policy refuses where the relayed request (POST /v1/relay) or one of its redirects points, as it would for an API node: cloud metadata, the service\'s own infrastructure, a deny rule, or a loopback or private address API nodes may not reach (ASSAY_EGRESS_PRIVATE_FOR_NODES); `address`, `port` and `rule` say which. Nothing was sent (docs/security.md "Address policy").',
  },
  'token-request-failed': {
    status: 502,
    title: 'Token request failed',
    description:
      "The auth profile's token endpoint (POST /v1/auth-profiles/{name}/token) answered an error (RFC 6749 §5.2: the status and its `error`/`error_description` are in `detail`, the status in `tokenEndpointStatus`), could not be reached, or did not answer in time.",
  },
  'relay-failed': {
    status: 502,
    title: 'Relay failed',
    description:
      'The relayed request (POST /v1/relay) got no complete response: `errorCode` says why (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, `TIMEOUT`, a TLS error code, …), as an API node would report it. Nothing was stored.',
  },
  'unsupported-import': {
    status: 422,
    title: 'Unsupported import',
    description:
      'A module imports something the bundler cannot fetch: another scheme (data:, file:) or a #subpath import (`url`, `specifier`).',
  },
  'node-builtin': {
    status: 422,
    title: 'Needs Node built-ins',
    description:
      'A module imports a Node built-in (`specifier`); scripts run without Node APIs. Use a browser build of the library.',
  },
  'module-fetch-failed': {
    status: 422,
    title: 'Module could not be fetched',
    description:
      'A module could not be reached, answered another status than 200 (`httpStatus`), or redirected too often (`url`).',
  },
  'module-fetch-timeout': {
    status: 422,
    title: 'Module fetch timed out',
    description: 'A module did not arrive within ASSAY_BUNDLER_FETCH_TIMEOUT_MS (`url`).',
  },
  'module-not-javascript': {
    status: 422,
    title: 'Not a JavaScript module',
    description:
      'A URL answered HTML or another type that is not a script (`contentType`); give the URL of the module file itself.',
  },
  'module-too-large': {
    status: 422,
    title: 'Module too large',
    description: 'A module is larger than ASSAY_BUNDLER_MAX_MODULE_BYTES (`url`).',
  },
  'bundle-too-large': {
    status: 422,
    title: 'Bundle too large',
    description:
      'The fetched sources together exceed ASSAY_BUNDLER_MAX_TOTAL_BYTES, or the bundle exceeds ASSAY_BUNDLER_MAX_OUTPUT_BYTES.',
  },
  'too-many-modules': {
    status: 422,
    title: 'Too many modules',
    description: 'The library needs more modules than ASSAY_BUNDLER_MAX_MODULES.',
  },
  'module-syntax-error': {
    status: 422,
    title: 'Syntax error in a module',
    description: 'A module does not parse; `url`, `line`, `column` and `lineText` point at the error.',
  },
  'top-level-await': {
    status: 422,
    title: 'Top-level await',
    description: 'A module uses top-level await, which a classic script (what scripts load) cannot contain.',
  },
  'bundle-timeout': {
    status: 422,
    title: 'Bundle timed out',
    description: 'Fetching and bundling took longer than ASSAY_BUNDLER_BUILD_TIMEOUT_MS.',
  },
  'bundle-failed': {
    status: 422,
    title: 'Bundle failed',
    description: 'esbuild refused the sources; its message is in `detail` and `message`.',
  },
  'sample-too-large': {
    status: 422,
    title: 'Sample too large',
    description:
      'A schema asks for sample data over the caps (`minItems` over 1,000, `minLength` over 65,536, or a sample over 1 MiB in all); `errors` points at the schema. Lower the minimums or give `data`.',
  },
  'callback-not-found': {
    status: 404,
    title: 'No such callback address',
    description:
      'The address is not one Assay made for a Callback node (docs/async.md "Callbacks"): mistyped, cut, or made with a secret key no longer in ASSAY_SECRET_KEYS. Nothing was recorded.',
  },
  'callback-run-ended': {
    status: 410,
    title: 'Run ended',
    description:
      'The run this callback address belongs to has ended (completed, failed or cancelled), so nothing waits for it any more; the callback was not recorded (docs/async.md "Callbacks").',
  },
  'callback-signature-invalid': {
    status: 401,
    title: 'Callback signature invalid',
    description:
      'The Callback node requires a signature (`signature`: `hmac` or `standard-webhooks`) and this callback carries none, a wrong one, or (Standard Webhooks) a timestamp more than 5 minutes away; `detail` says which. The callback was not counted and the node keeps waiting (docs/async.md "Callbacks").',
  },
  'payload-too-large': {
    status: 413,
    title: 'Payload too large',
    description: 'The request body exceeds the size limit.',
  },
  'file-too-large': {
    status: 413,
    title: 'File too large',
    description:
      'The uploaded file is larger than `limit` bytes (ASSAY_FILE_MAX_BYTES, default 10 MiB). Reading stopped at the limit; nothing was stored.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported media type',
    description: 'Request bodies must be JSON, sent with `Content-Type: application/json`.',
  },
  'unknown-reference': {
    status: 422,
    title: 'Unknown reference',
    description: 'The request names a resource (runner, environment, test case) that does not exist in the workspace.',
  },
  'run-not-ended': {
    status: 422,
    title: 'Run not ended',
    description:
      'A comparison needs runs that have ended (completed or failed); `runId` names the one still queued or running. Compare once it has ended.',
  },
  'no-baseline': {
    status: 422,
    title: 'No baseline',
    description:
      'The run has no baseline to compare with: its deployment\'s or runner\'s `baseline` names a run that no longer exists or did not complete, or (`lastPassing`) no earlier run of the same runner, environment and kind passed; `detail` says which (docs/history.md "Baselines").',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    description: 'The API key exceeded its request rate. Retry after the number of seconds in `Retry-After`.',
  },
  'auth-rate-limited': {
    status: 429,
    title: 'Too many failed authentications',
    description:
      'This client address sent too many requests with a missing, malformed, unknown or revoked API key (ASSAY_AUTH_FAILURES_PER_MINUTE). Retry after the number of seconds in `Retry-After`.',
  },
  'malformed-request': {
    status: 400,
    title: 'Malformed request',
    description:
      'The request could not be read as HTTP/1.1 (a bad request line or header, or a connection cut mid-request); the connection is closed.',
  },
  'import-too-large': {
    status: 422,
    title: 'Import too large',
    description:
      'Importing the OpenAPI description would take more than this server allows: more memory than ASSAY_IMPORT_MEMORY_MB on its import thread, designs larger than ASSAY_IMPORT_MAX_RESULT_BYTES of JSON, or longer than ASSAY_IMPORT_TIMEOUT_MS (`setting` names which, `limit` gives it). Nothing was stored; split the description (by tag or path) or raise the setting.',
  },
  'too-many-connections': {
    status: 429,
    title: 'Too many connections',
    description:
      'This client address has more connections open to this server than ASSAY_MAX_CONNECTIONS_PER_ADDRESS allows; the request was not read and the connection is closed. Close idle connections (or use fewer) and retry after the number of seconds in `Retry-After`.',
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    description:
      'The request did not arrive in time: its headers within a third of ASSAY_RECEIVE_TIMEOUT_MS (10 s at most), or the whole request within ASSAY_RECEIVE_TIMEOUT_MS (30 s by default); the connection is closed.',
  },
  'headers-too-large': {
    status: 431,
    title: 'Request headers too large',
    description:
      "The request's headers exceed the server's limit (Node's `--max-http-header-size`, 16 KiB by default); the connection is closed.",
  },
  'quota-exceeded': {
    status: 429,
    title: 'Quota exceeded',
    description:
      'Starting this run, or storing this file, would exceed a quota of the workspace (`quota`: `concurrent-runs`, ASSAY_QUOTA_CONCURRENT_RUNS, or `runs-per-minute`, ASSAY_QUOTA_RUNS_PER_MINUTE, both with `Retry-After`; or `file-bytes`, ASSAY_QUOTA_FILE_BYTES: bytes of distinct file content, freed by deleting files); `limit` and `current` give the figures. Nothing was stored.',
  },
  'loop-iterations-exceeded': {
    status: 422,
    title: 'Too many loop iterations',
    description:
      "The flow (when saved) or the runner's test cases together (when a run starts) expect more loop iterations than ASSAY_QUOTA_LOOP_ITERATIONS, counting each Loop or Iteration node's `count` (or `maxIterations`, or ASSAY_MAX_LOOP_ITERATIONS) multiplied through nesting; `node` (with `errors`, or `runner` and `testCase`) names the loop node, `expectedIterations` and `limit` give the figures. Lower a count or set `maxIterations`.",
  },
  'invalid-sub-flow': {
    status: 422,
    title: 'Invalid sub-flow reference',
    description:
      'A Ref node (docs/reuse.md "Sub-flows") would make a cycle (the test case runs itself through the stored references: A → A, A → B → A) or nest sub-flows deeper than 5 levels; `errors` names the field (`flow[2].testCaseId`). A reference to a test case that does not exist in the workspace is `unknown-reference`.',
  },
  'runner-selects-nothing': {
    status: 422,
    title: 'The runner selects no test case',
    description:
      "The runner's selection (`testCaseIds`, `folder`, `tags`) matches no test case of the workspace, so a run would pass with 0 tests; `runner` names it and `selection` repeats what it selects. Add test cases that match, or change the runner. An incoming webhook's call records the run as failed with this reason (`runId`); a scheduled run fails the same way.",
  },
  'debug-run': {
    status: 409,
    title: 'A debug run cannot be made again',
    description:
      'Rerun, replay and resume (`POST /v1/runs/{runId}/rerun|replay|resume`) start from a runner\'s run; a debug run (trigger `debug`, `POST /v1/test-cases/debug`) ran a test case as the designer held it, with no runner. Debug it again from the designer (docs/api.md "Debug runs").',
  },
  'nothing-to-rerun': {
    status: 422,
    title: 'Nothing to rerun',
    description:
      'A rerun of failed test cases (`POST /v1/runs/{runId}/rerun`) found none: the run had no failed test case, ended before any ran, or the failed ones no longer exist (`missing`). Name test cases with `testCases`, or start a new run (docs/history.md "Rerun").',
  },
  'not-resumable': {
    status: 422,
    title: 'The run cannot be resumed',
    description:
      'A resume (`POST /v1/runs/{runId}/resume`) needs a failed test case with a recorded state (the variables and node outputs before its first failed top-level node); the detail says, for each failed test case, why it has none: it was interrupted (timeout, cancel), its state was over 256 KiB, or the run is a performance run. Rerun or replay it instead (docs/history.md "Resume").',
  },
  'plan-unavailable': {
    status: 422,
    title: 'The run has no frozen plan',
    description:
      'A replay or a resume runs the frozen plan of a run, and this run never froze one: it ended before it started (its `error` says why). Start a new run or rerun it instead (docs/history.md "Replay").',
  },
  'server-missing': {
    status: 422,
    title: 'Server missing from the environment',
    description:
      'A node of the runner\'s test cases names a server (`server`, or `{{server.<name>}}` in its request) that the environment does not define, itself or through `extends`; `testCase`, `node` and `server` name the first, `missing` lists them all. Nothing was stored. Add the server to the environment\'s `servers` (docs/reuse.md "Servers"); a scheduled or webhook run fails the same way.',
  },
  internal: {
    status: 500,
    title: 'Internal error',
    description: 'Something failed inside Assay. The `instance` identifies it in the logs.',
  },
  'secret-unavailable': {
    status: 500,
    title: 'Secret unavailable',
    description:
      'A stored secret cannot be opened: it was sealed with a key that `ASSAY_SECRET_KEYS` no longer holds, or the stored text was altered. Nothing was changed. Put the old key back in the list (after the new one) and retry; docs/secrets.md.',
  },
  'database-unavailable': {
    status: 503,
    title: 'Database unavailable',
    description:
      'The database cannot be reached right now, or did not answer within the bounds of a request (`ASSAY_DATABASE_ACQUIRE_TIMEOUT_MS`, `ASSAY_DATABASE_QUERY_TIMEOUT_MS`). Retry after the number of seconds in `Retry-After`. Nothing was changed, except that a write the database did not answer in time may still be applied when it resumes (start runs with an `Idempotency-Key` so that a retry cannot start a second one). Runs in progress wait for it and carry on.',
  },
  'temporal-unavailable': {
    status: 503,
    title: 'Workflow service unavailable',
    description:
      'Temporal could not be reached, so the run could not be started. Nothing was left half-done; retry later.',
  },
  'not-ready': {
    status: 503,
    title: 'Not ready',
    description:
      "A readiness probe (`GET /readyz`) found a dependency of the service unreachable: `unavailable` names it (`store`, `temporal`) and `checks` gives each check's state. The process itself lives (`GET /healthz`); docs/operations.md.",
  },
} as const satisfies Record<string, ProblemType>;

/** A code of the catalogue. */
export type ProblemCode = keyof typeof PROBLEMS;

/** What the catalogue says of one code: its HTTP status, title and a description for people. */
export interface ProblemType {
  status: number;
  title: string;
  description: string;
}

/** The `type` URI of a code (RFC 9457 §3.1.1), relative: the services answer it at `GET /problems/{code}`. */
export function problemTypeUri(code: ProblemCode): string {
  return `/problems/${code}`;
}

/**
 * The problem document of `code` (RFC 9457 §3): `type`, `title` and `status` from the catalogue,
 * then `detail`, `code`, `instance` (when given) and the extension members in `extras`.
 */
export function problemDocument(
  code: ProblemCode,
  detail: string,
  extras: Record<string, unknown> = {},
  instance?: string,
): Record<string, unknown> {
  return {
    type: problemTypeUri(code),
    title: PROBLEMS[code].title,
    status: PROBLEMS[code].status,
    detail,
    code,
    ...(instance ? { instance } : {}),
    ...extras,
  };
}

/** `['flow', 0, 'request']` → `flow[0].request`. */
export function readablePath(segments: Array<string | number>): string {
  return segments
    .map((s, i) =>
      typeof s === 'number'
        ? `[${s}]`
        : /^[A-Za-z_$][\w$]*$/.test(s)
          ? i === 0
            ? s
            : `.${s}`
          : `[${JSON.stringify(s)}]`,
    )
    .join('');
}

/** `['flow', 0, 'request']` → `#/flow/0/request` (RFC 6901 escaping). */
export function jsonPointer(segments: Array<string | number>): string {
  return `#${segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')}`;
}

/** A field error from path segments. */
export function fieldError(segments: Array<string | number>, detail: string): FieldError {
  return { field: readablePath(segments), pointer: jsonPointer(segments), detail };
}
