/**
 * The registry of Assay's HTTP operations for the OpenAPI document (api/openapi/document.ts): one
 * entry per route, in the routers' own path syntax (`/v1/runs/:runId`), with its summary, tag,
 * query parameters, answers and examples. Request body schemas are NOT written here: each entry
 * points at the schema object its route validates with (exported from api/routes/*.ts and fed to
 * ajv there), so the document cannot drift from validation; a test case's `flow` and `dataSets`,
 * which the route checks after its schema, are described by the schemas flow validation compiles
 * (api/openapi/flow.ts). Scopes come from the one scope table
 * (api/scopes.ts). test/integration/api/openapi-document.test.ts checks that this registry and the
 * routes the app registers are the same set.
 */
import type { AssayConfig } from '../../src/config';
import { RUN_STATUSES } from '../../src/domain/types';
import { ENVIRONMENT_SCHEMAS } from '../routes/environments';
import { TEST_CASE_SCHEMAS } from '../routes/test-cases';
import { RUNNER_SCHEMAS } from '../routes/runners';
import { AUTH_PROFILE_SCHEMAS } from '../routes/auth-profiles';
import { controlInputSchema, debugInputSchema, RUN_TRIGGERS, runInputSchema } from '../routes/runs';
import { RUN_ORIGIN_SCHEMAS } from '../routes/run-origins';
import { DEPLOYMENT_SCHEMAS } from '../routes/deployments';
import { DESIGN_SCHEMAS } from '../routes/designs';
import { COLLECTION_SCHEMAS } from '../routes/mock-collections';
import { MOCK_SETTINGS_SCHEMA } from '../routes/mock-settings';
import { relayRequestSchema } from '../routes/relay';
import { WEBHOOK_BODY_SCHEMA } from '../routes/incoming-webhooks';
import { CALLBACK_METHODS } from '../routes/callbacks';
import { FOLDER_SCHEMAS } from '../routes/folders';
import { HISTORY_KINDS, HISTORY_LIMIT } from '../routes/history';
import { pageOf, schemaRef, type JsonSchema, type ProblemResponseName } from './components';
import { REQUEST_EXAMPLES, type ResponseExampleName } from './examples';
import type { ApiOperation, QueryParam, SuccessResponse } from './operation-types';
import { testCaseBodySchema } from './flow';
import { paging } from './paging-params';
import { peopleOperations } from './people-operations';
import { changeOperations } from './change-operations';

export type { ApiOperation, OperationAuth, OperationMethod, QueryParam, SuccessResponse } from './operation-types';

/** Descriptions of the path parameters, by the routes' names. */
export const PATH_PARAMS: Record<string, string> = {
  environmentName: "The environment's name.",
  testCaseId: "The test case's id (`tc_…`).",
  runnerName: "The runner's name.",
  profileName: "The auth profile's name.",
  runId: "The run's id (`run_…`).",
  deploymentId: "The deployment's id (`dep_…`).",
  designId: "The design's id (`dsg_…`).",
  webhookId: "The deployment's webhook address (its `webhookUrl` ends with it).",
  token: "A Callback node's address token (the end of its `{{callback.url}}`).",
  folderPath:
    "The folder's path, URL-encoded (`users/admin` is `users%2Fadmin`); normalised as a test case's `folder` is.",
  userId: "The user's id (`usr_…`).",
  keyId: "The API key's id (`key_…`).",
  version: 'A version number, from 1.',
  name: "The file's name: 1–200 letters, digits, `_ . - /`, without empty, `.` or `..` segments; its `/` as is or URL-encoded (`fixtures/avatar.png` or `fixtures%2Favatar.png`).",
};

const filter = (
  name: string,
  description: string,
  schema: JsonSchema = { type: 'string', minLength: 1 },
): QueryParam => ({
  name,
  description: `${description} Absent: no filter; given empty or twice: 400 \`invalid-query\`.`,
  schema,
});

const body = (schema: JsonSchema, operationId: string, description?: string) => ({
  schema,
  required: true,
  ...(description ? { description } : {}),
  ...(REQUEST_EXAMPLES[operationId] ? { examples: REQUEST_EXAMPLES[operationId] } : {}),
});
const created = (what: string, schema: JsonSchema, examples: ResponseExampleName[]): SuccessResponse => ({
  description: `${what} created.`,
  schema,
  examples,
  headers: { Location: `The ${what.toLowerCase()}'s address.` },
});
const ok = (description: string, schema: JsonSchema, examples: ResponseExampleName[] = []): SuccessResponse => ({
  description,
  schema,
  ...(examples.length ? { examples } : {}),
});
const deleted = (what: string): Record<string, SuccessResponse> => ({ '204': { description: `${what} deleted.` } });

/**
 * `POST /v1/runs/{runId}/rerun`, `/replay`, `/resume` (api/routes/run-origins.ts; docs/history.md
 * "Rerun, replay, resume"): each starts a new run made from the run and answers as `startRun` does,
 * with `origin`.
 */
function runOriginOperations(): ApiOperation[] {
  const started = {
    ...created('Run', schemaRef('RunStarted'), ['runStarted']),
    headers: {
      Location: "The new run's address.",
      'Idempotent-Replayed': '`true` when the answer is the run a first call with the same `Idempotency-Key` started.',
    },
  };
  const common = { tag: 'Runs', auth: 'apiKey' as const, idempotent: true };
  const optional = (schema: JsonSchema) => ({ schema, required: false });
  return [
    {
      ...common,
      method: 'post',
      path: '/v1/runs/:runId/rerun',
      operationId: 'rerunRun',
      summary: 'Rerun the failed test cases of a run',
      description:
        "A new run of the same runner, environment, variables and timeout with only the test cases that failed (or those named in `testCases`, each one of the run's), as they are now. 409 `run-active` until the run has ended; 422 `nothing-to-rerun` when none failed or none still exists; 422 `unknown-reference` when the runner or environment was deleted.",
      body: optional(RUN_ORIGIN_SCHEMAS.rerun),
      responses: { '201': started },
      problems: ['BadRequest', 'NotFound', 'Conflict', 'Unprocessable'],
    },
    {
      ...common,
      method: 'post',
      path: '/v1/runs/:runId/replay',
      operationId: 'replayRun',
      summary: "Replay a run's frozen plan exactly",
      description:
        "A new run of the run's frozen plan (test cases, variables, servers, auth profiles and settings as they were), even after its test cases changed: its `planHash` equals the run's. 409 `run-active` until the run has ended; 422 `plan-unavailable` when it never froze a plan.",
      body: optional(RUN_ORIGIN_SCHEMAS.replay),
      responses: { '201': started },
      problems: ['BadRequest', 'NotFound', 'Conflict', 'Unprocessable'],
    },
    {
      ...common,
      method: 'post',
      path: '/v1/runs/:runId/resume',
      operationId: 'resumeRun',
      summary: 'Resume a run from its failed node',
      description:
        "A new run of the run's frozen plan that starts the first failed test case (or `testCaseId`) at its first failed top-level node with the variables and node outputs it had there: the requests before that node are not sent again, the results before that test case are copied. A node failed inside an IF, Loop, Parallel or Ref resumes at the top-level node containing it. 409 `run-active`; 422 `not-resumable` (no failed test case with a recorded state: the detail says why) or `plan-unavailable`.",
      body: optional(RUN_ORIGIN_SCHEMAS.resume),
      responses: { '201': started },
      problems: ['BadRequest', 'NotFound', 'Conflict', 'Unprocessable'],
    },
  ];
}

/** The CRUD operations of a resource kind. */
function crud(options: {
  tag: string;
  collection: string;
  param: string;
  noun: string;
  plural: string;
  schema: JsonSchema;
  examples: { one: ResponseExampleName; page: ResponseExampleName };
  bodies: { create: JsonSchema; replace?: JsonSchema; patch: JsonSchema };
  listQuery?: QueryParam[];
  listDescription?: string;
  patchDescription?: string;
  createProblems?: ProblemResponseName[];
  deleteDescription?: string;
  /** Problem responses a delete may answer besides `NotFound`. */
  deleteProblems?: ProblemResponseName[];
}): ApiOperation[] {
  const { tag, collection, param, noun, plural, schema } = options;
  const one = `${collection}/:${param}`;
  const Noun = noun.charAt(0).toUpperCase() + noun.slice(1);
  const idNoun = Noun.replace(/ (.)/g, (_, c: string) => c.toUpperCase());
  const Plural = plural.charAt(0).toUpperCase() + plural.slice(1).replace(/ (.)/g, (_, c: string) => c.toUpperCase());
  const ops: ApiOperation[] = [
    {
      method: 'get',
      path: collection,
      operationId: `list${Plural}`,
      summary: `List ${plural}`,
      ...(options.listDescription ? { description: options.listDescription } : {}),
      tag,
      auth: 'apiKey',
      query: [...paging(), ...(options.listQuery ?? [])],
      responses: { '200': ok(`A page of ${plural}.`, pageOf(schema), [options.examples.page]) },
      problems: ['BadRequest'],
    },
    {
      method: 'post',
      path: collection,
      operationId: `create${idNoun}`,
      summary: `Create a ${noun}`,
      tag,
      auth: 'apiKey',
      body: body(options.bodies.create, `create${idNoun}`),
      responses: { '201': created(Noun, schema, [options.examples.one]) },
      problems: ['BadRequest', 'Conflict', 'UnsupportedMediaType', ...(options.createProblems ?? [])],
    },
    {
      method: 'get',
      path: one,
      operationId: `get${idNoun}`,
      summary: `Get a ${noun}`,
      tag,
      auth: 'apiKey',
      responses: { '200': ok(`The ${noun}.`, schema, [options.examples.one]) },
      problems: ['NotFound'],
    },
  ];
  if (options.bodies.replace) {
    ops.push({
      method: 'put',
      path: one,
      operationId: `replace${idNoun}`,
      summary: `Replace a ${noun}`,
      tag,
      auth: 'apiKey',
      body: body(options.bodies.replace, `replace${idNoun}`),
      responses: { '200': ok(`The ${noun} as stored.`, schema, [options.examples.one]) },
      problems: ['BadRequest', 'NotFound', 'Conflict', 'UnsupportedMediaType', ...(options.createProblems ?? [])],
    });
  }
  ops.push(
    {
      method: 'patch',
      path: one,
      operationId: `update${idNoun}`,
      summary: `Update a ${noun}`,
      ...(options.patchDescription ? { description: options.patchDescription } : {}),
      tag,
      auth: 'apiKey',
      body: body(options.bodies.patch, `update${idNoun}`),
      responses: { '200': ok(`The ${noun} as stored.`, schema, [options.examples.one]) },
      problems: ['BadRequest', 'NotFound', 'Conflict', 'UnsupportedMediaType', ...(options.createProblems ?? [])],
    },
    {
      method: 'delete',
      path: one,
      operationId: `delete${idNoun}`,
      summary: `Delete a ${noun}`,
      ...(options.deleteDescription ? { description: options.deleteDescription } : {}),
      tag,
      auth: 'apiKey',
      responses: deleted(Noun),
      problems: ['NotFound', ...(options.deleteProblems ?? [])],
    },
  );
  return ops;
}

/** The `ETag` of an answer carrying a test case. */
const TEST_CASE_ETAG = {
  ETag: 'The test case\'s version as a strong entity tag, `"<version>"`: send it as `If-Match` to save only over this version.',
};

/**
 * A test case CRUD operation with its versions (docs/api.md "Concurrent edits"): answers carrying a
 * test case have `ETag`; PUT and PATCH read `If-Match` (409 `test-case-changed` when it does not
 * name the stored version).
 */
function withTestCaseVersions(op: ApiOperation): ApiOperation {
  if (op.path === '/v1/test-cases' && op.method === 'get') return op;
  if (op.method === 'delete') return op;
  const responses = Object.fromEntries(
    Object.entries(op.responses).map(([status, r]) => [status, { ...r, headers: { ...r.headers, ...TEST_CASE_ETAG } }]),
  );
  if (op.method !== 'put' && op.method !== 'patch') return { ...op, responses };
  return {
    ...op,
    description:
      `${op.description ? `${op.description} ` : ''}With \`If-Match\` (the \`ETag\` of the test case as read, or \`*\`), stored only when it names the stored version: else 409 \`test-case-changed\` with the stored \`version\` and \`updatedAt\`, and nothing stored. Without it, the last write wins.`.trim(),
    headers: [
      {
        name: 'If-Match',
        description:
          'RFC 9110 §13.1.1: `*` or a comma-separated list of entity tags (`"3"`); weak tags never match. Malformed: 400 `invalid-header`.',
        schema: { type: 'string', minLength: 1 },
      },
    ],
    responses,
  };
}

/** `POST /v1/test-cases/validate` and `POST /v1/test-cases/debug` (the designer's, docs/api.md). */
function testCaseToolOperations(config: AssayConfig): ApiOperation[] {
  const debugSchema = debugInputSchema(config.runs.maxTimeoutSeconds);
  return [
    {
      method: 'post',
      path: '/v1/test-cases/validate',
      operationId: 'validateTestCase',
      summary: 'Check a test case body as a save would, storing nothing',
      description:
        "The checks of `POST /v1/test-cases` (schema, each node, data sets, hooks, Ref nodes, auth profiles, the loop quota) on the body, nothing stored: 200 with the flow as it would be stored (node ids assigned), else the problem a save would answer, with the same `errors[].pointer`. `testCaseId` checks it as `PUT /v1/test-cases/{testCaseId}` would (its Ref links back to that test case are cycles). The name's uniqueness is checked only by the save.",
      tag: 'Test cases',
      auth: 'apiKey',
      query: [filter('testCaseId', 'Check it as a replacement of this test case (404 when there is none).')],
      body: body(testCaseBodySchema(TEST_CASE_SCHEMAS.full), 'validateTestCase'),
      responses: { '200': ok('It would be saved.', schemaRef('TestCaseValidation'), ['testCaseValid']) },
      problems: ['BadRequest', 'NotFound', 'UnsupportedMediaType', 'Unprocessable'],
    },
    {
      method: 'post',
      path: '/v1/test-cases/debug',
      operationId: 'debugTestCase',
      summary: 'Run a test case as the designer holds it (a debug run)',
      description:
        "`testCase` is a test case body as `POST /v1/test-cases` takes it, plus `id`, the saved test case it is a draft of (optional). It is checked as a save checks it (the same problems, pointers under `/testCase`), kept with the run, and run through the real engine on `environment` like any run (quotas, `Idempotency-Key`, 503 `temporal-unavailable`) with trigger `debug`: each node's result carries `debug` (the request as sent, the response, the variables after it). `timeout` in seconds, default 300. The run has no runner (`runner: null`); it is listed by `GET /v1/runs?trigger=debug` and deleted like any run, and never counts toward test case history, flaky flags or baselines.",
      tag: 'Runs',
      auth: 'apiKey',
      idempotent: true,
      body: body(
        {
          ...debugSchema,
          properties: { ...debugSchema.properties, testCase: testCaseBodySchema(debugSchema.properties.testCase) },
        },
        'debugTestCase',
      ),
      responses: {
        '201': {
          ...created('Run', schemaRef('Run'), ['debugRun']),
          headers: {
            Location: "The run's address.",
            'Idempotent-Replayed':
              '`true` when the answer is the run a first call with the same `Idempotency-Key` started.',
          },
        },
      },
      problems: ['BadRequest', 'UnsupportedMediaType', 'Unprocessable'],
    },
  ];
}

/** The folder operations (api/routes/folders.ts): addressed by path, created or replaced by PUT. */
/** Test history and flaky test cases (api/routes/history.ts, docs/history.md). */
function historyOperations(): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/v1/test-cases/:testCaseId/history',
      operationId: 'getTestCaseHistory',
      summary: "A test case's history: outcomes over its last runs, figures, failing streak, flaky flags",
      description:
        "Served from the history rows written when runs end (kept `ASSAY_HISTORY_DAYS`, default 90, after retention deletes the runs), through their indexes. A deleted test case answers while rows of it are kept; another workspace's is 404.",
      tag: 'Test cases',
      auth: 'apiKey',
      query: [
        {
          name: 'limit',
          description: `Runs answered, newest first, 1 to ${HISTORY_LIMIT.max} (default ${HISTORY_LIMIT.default}).`,
          schema: { type: 'integer', minimum: 1, maximum: HISTORY_LIMIT.max, default: HISTORY_LIMIT.default },
        },
        filter('runner', 'Runs of this runner.'),
        filter('environment', 'Runs on this environment.'),
        filter('deployment', 'Runs of this deployment (its id).'),
        filter('trigger', 'Runs started this way.', { enum: [...RUN_TRIGGERS] }),
        filter('kind', 'Functional or performance runs.', { enum: [...HISTORY_KINDS] }),
        filter('since', 'Runs started at or after this ISO 8601 timestamp.', { type: 'string', format: 'date-time' }),
        filter('until', 'Runs started at or before this ISO 8601 timestamp.', { type: 'string', format: 'date-time' }),
      ],
      responses: { '200': ok('The history.', schemaRef('TestCaseHistory')) },
      problems: ['BadRequest', 'NotFound'],
    },
    {
      method: 'get',
      path: '/v1/flaky',
      operationId: 'listFlaky',
      summary: 'Test cases flagged flaky, by runner and environment',
      description:
        'A test case is flaky on a runner and environment when its outcome flipped at least ASSAY_FLAKY_MIN_FLIPS (3) times in its last ASSAY_FLAKY_WINDOW (10) runs there that passed or failed, with no change to the test case between them (docs/history.md "Flaky tests").',
      tag: 'Test cases',
      auth: 'apiKey',
      query: [filter('runner', 'Flags on this runner.'), filter('environment', 'Flags on this environment.')],
      responses: { '200': ok('The flagged test cases (at most 1,000).', schemaRef('FlakyList')) },
      problems: ['BadRequest'],
    },
  ];
}

/** The mock journal (api/routes/mock-requests.ts, docs/mocks.md "Journal and verification"). */
function mockJournalOperations(): ApiOperation[] {
  const filters = [
    filter('scope', 'Requests of this scope (exact).'),
    filter('shared', '`true`: only requests without a scope.', { enum: ['true', 'false'] }),
    filter('method', 'Requests with this method.'),
    filter('path', 'Requests to this path (within the workspace); ending in `*`: paths starting with the rest.'),
    filter('since', 'Requests received at or after this ISO 8601 instant.', { type: 'string', format: 'date-time' }),
    filter('until', 'Requests received before this ISO 8601 instant.', { type: 'string', format: 'date-time' }),
    filter('status', 'Requests answered with this status (0: a connection fault).', {
      type: 'string',
      pattern: '^[0-9]{1,3}$',
    }),
    filter('violations', '`true`: only requests with contract violations.', { enum: ['true', 'false'] }),
    filter('fault', '`true`: only requests answered with a fault.', { enum: ['true', 'false'] }),
    ...paging(),
  ];
  const page = pageOf(schemaRef('MockJournalEntry'));
  return [
    {
      method: 'get',
      path: '/v1/designs/:designId/requests',
      operationId: 'listDesignRequests',
      summary: "A design's mock journal: the requests it answered, newest first",
      description:
        'Kept `ASSAY_MOCK_JOURNAL_MAX` per workspace (default 10,000) and `ASSAY_MOCK_JOURNAL_TTL_SECONDS` (default one day). Scoped requests are listed as soon as they were answered; unscoped ones within about 250 ms.',
      tag: 'Designs',
      auth: 'apiKey',
      query: filters,
      responses: { '200': ok('A page of journal entries.', page) },
      problems: ['BadRequest', 'NotFound'],
    },
    {
      method: 'get',
      path: '/v1/mock-requests',
      operationId: 'listMockRequests',
      summary: "The workspace's mock journal, newest first",
      tag: 'Designs',
      auth: 'apiKey',
      query: [filter('designId', 'Requests answered by this design.'), ...filters],
      responses: { '200': ok('A page of journal entries.', page) },
      problems: ['BadRequest'],
    },
    {
      method: 'delete',
      path: '/v1/mock-requests',
      operationId: 'deleteMockRequests',
      summary: "Forget journal entries: one scope's, one design's, or all of the workspace's",
      tag: 'Designs',
      auth: 'apiKey',
      query: [filter('scope', "Only this scope's entries."), filter('designId', "Only this design's entries.")],
      responses: { '200': ok('How many entries went.', schemaRef('MockRequestsDeleted')) },
      problems: ['BadRequest'],
    },
  ];
}

/** The files of a workspace (api/routes/files.ts, docs/api.md "Files"): addressed by name; PUT takes the bytes. */
function fileOperations(config: AssayConfig): ApiOperation[] {
  const tag = 'Files';
  const one = '/v1/files/*name';
  const schema = schemaRef('File');
  const maxBytes = config.api.fileMaxBytes;
  return [
    {
      method: 'get',
      path: '/v1/files',
      operationId: 'listFiles',
      summary: 'List files',
      description: 'By name; metadata only.',
      tag,
      auth: 'apiKey',
      query: paging(),
      responses: { '200': ok('A page of files.', pageOf(schema), ['files']) },
      problems: ['BadRequest'],
    },
    {
      method: 'get',
      path: one,
      operationId: 'getFile',
      summary: "Get a file's metadata",
      tag,
      auth: 'apiKey',
      responses: { '200': ok('The file.', schema, ['file']) },
      problems: ['BadRequest', 'NotFound'],
    },
    {
      method: 'get',
      path: `${one}/content`,
      operationId: 'getFileContent',
      summary: "Download a file's content",
      description:
        'The bytes as uploaded, with the content type they were uploaded with. A name ending in `/content` reads its metadata with that `/` encoded (`a%2Fcontent`).',
      tag,
      auth: 'apiKey',
      responses: {
        '200': {
          description: 'The content.',
          mediaType: '*/*',
          schema: { description: "The file's bytes." },
          headers: {
            'Content-Type': 'The content type the file was uploaded with.',
            'Content-Length': "The file's size in bytes.",
            ETag: 'The hex SHA-256 of the content as a strong entity tag, `"<sha256>"`.',
            'Content-Disposition': '`attachment; filename="<last segment of the name>"`.',
          },
        },
      },
      problems: ['BadRequest', 'NotFound'],
    },
    {
      method: 'put',
      path: one,
      operationId: 'replaceFile',
      summary: 'Upload a file (create or replace)',
      description: `The raw body is the content, of any media type: its \`Content-Type\` is kept (none: \`application/octet-stream\`). At most ASSAY_FILE_MAX_BYTES (here ${maxBytes}) bytes: past it 413 \`file-too-large\` naming \`limit\`, nothing stored. Content the workspace already has (same SHA-256) is stored once; new content past ASSAY_QUOTA_FILE_BYTES of distinct content is 429 \`quota-exceeded\` with \`quota: "file-bytes"\`, \`limit\` and \`current\`. Replacing keeps the file's id and \`createdAt\`.`,
      tag,
      auth: 'apiKey',
      body: {
        schema: { description: "The file's bytes." },
        required: true,
        mediaType: '*/*',
        description: 'The file content as is (no Content-Encoding).',
      },
      responses: {
        '200': ok('The file as stored (it existed: replaced).', schema, ['file']),
        '201': created('File', schema, ['file']),
      },
      problems: ['BadRequest', 'PayloadTooLarge', 'UnsupportedMediaType'],
    },
    {
      method: 'delete',
      path: one,
      operationId: 'deleteFile',
      summary: 'Delete a file',
      description: 'Its content goes too when no other file of the workspace has the same content.',
      tag,
      auth: 'apiKey',
      responses: deleted('File'),
      problems: ['BadRequest', 'NotFound'],
    },
  ];
}

function folderOperations(): ApiOperation[] {
  const tag = 'Folders';
  const one = '/v1/folders/:folderPath';
  const schema = schemaRef('Folder');
  return [
    {
      method: 'get',
      path: '/v1/folders',
      operationId: 'listFolders',
      summary: 'List folders',
      description: 'By path. Only folders given settings (PUT) are listed, not every folder test cases are filed in.',
      tag,
      auth: 'apiKey',
      query: paging(),
      responses: { '200': ok('A page of folders.', pageOf(schema), ['folders']) },
      problems: ['BadRequest'],
    },
    {
      method: 'get',
      path: one,
      operationId: 'getFolder',
      summary: 'Get a folder',
      tag,
      auth: 'apiKey',
      responses: { '200': ok('The folder.', schema, ['folder']) },
      problems: ['BadRequest', 'NotFound'],
    },
    {
      method: 'put',
      path: one,
      operationId: 'replaceFolder',
      summary: 'Create or replace a folder',
      description:
        'Its settings apply to every test case filed at or below the path, in runs started afterwards: `hooks` run around each API node (onion order: test case → folders, outermost first → node; `afterResponse` the other way), `authProfile` unless a node or test case names one. Absent fields are removed.',
      tag,
      auth: 'apiKey',
      body: body(FOLDER_SCHEMAS.replace, 'replaceFolder'),
      responses: {
        '200': ok('The folder as stored (it existed).', schema, ['folder']),
        '201': created('Folder', schema, ['folder']),
      },
      problems: ['BadRequest', 'Conflict', 'UnsupportedMediaType'],
    },
    {
      method: 'delete',
      path: one,
      operationId: 'deleteFolder',
      summary: 'Delete a folder',
      description: 'Its settings no longer apply; the test cases filed in it stay.',
      tag,
      auth: 'apiKey',
      responses: deleted('Folder'),
      problems: ['BadRequest', 'NotFound'],
    },
  ];
}

/**
 * Every operation of the document, for an API configured by `config` (a few limits in the
 * schemas, such as the largest run `timeout`, are settings).
 */
export function apiOperations(config: AssayConfig): ApiOperation[] {
  return [
    {
      method: 'get',
      path: '/v1/workspaces',
      operationId: 'listWorkspaces',
      summary: 'The workspace of the API key',
      description: 'A key belongs to one workspace, so the list holds that one, with `key` describing the calling key.',
      tag: 'Workspaces',
      auth: 'apiKey',
      responses: { '200': ok('The workspace.', pageOf(schemaRef('Workspace')), ['workspaces']) },
      problems: [],
    },
    ...crud({
      tag: 'Environments',
      collection: '/v1/environments',
      param: 'environmentName',
      noun: 'environment',
      plural: 'environments',
      schema: schemaRef('Environment'),
      examples: { one: 'environment', page: 'environments' },
      bodies: ENVIRONMENT_SCHEMAS,
      listDescription: 'By name. A `read`-scope key sees plain variable values as `"***"`.',
      patchDescription:
        'JSON Merge Patch (RFC 7396) on `variables` and `servers`: listed keys are set, a key set to `null` is removed. `{"secret": true, "value": "***"}` keeps a stored secret. `extends: null` removes the parent.',
      createProblems: ['Unprocessable'],
      deleteDescription:
        'Refused with 409 `in-use` (`extendedBy` names them) while other environments extend it (docs/reuse.md "Environments that inherit").',
      deleteProblems: ['Conflict'],
    }),
    ...authProfileOperations(),
    ...crud({
      tag: 'Test cases',
      collection: '/v1/test-cases',
      param: 'testCaseId',
      noun: 'test case',
      plural: 'test cases',
      schema: schemaRef('TestCase'),
      examples: { one: 'testCase', page: 'testCases' },
      // flow and dataSets with their items (validateFlow/validateDataSets check them after the route's schema).
      bodies: {
        create: testCaseBodySchema(TEST_CASE_SCHEMAS.full),
        replace: testCaseBodySchema(TEST_CASE_SCHEMAS.full),
        patch: testCaseBodySchema(TEST_CASE_SCHEMAS.patch),
      },
      listQuery: [
        filter('folder', 'The folder and its subfolders.'),
        filter('tags', 'Comma-separated: test cases carrying all of them.'),
      ],
      listDescription: 'By folder, then name. The flow is validated node by node (docs/flows.md) on every write.',
      createProblems: ['Unprocessable'],
      deleteDescription:
        'Runners that list it forget it. While Ref nodes of other test cases link to it (`mode: "ref"`), 409 `test-case-referenced` lists them in `referencedBy`.',
      deleteProblems: ['Conflict'],
    }).map(withTestCaseVersions),
    ...testCaseToolOperations(config),
    ...folderOperations(),
    ...fileOperations(config),
    ...historyOperations(),
    ...mockJournalOperations(),
    ...crud({
      tag: 'Runners',
      collection: '/v1/runners',
      param: 'runnerName',
      noun: 'runner',
      plural: 'runners',
      schema: schemaRef('Runner'),
      examples: { one: 'runner', page: 'runners' },
      bodies: RUNNER_SCHEMAS,
      listDescription: 'By name.',
      createProblems: ['Unprocessable'],
    }),
    {
      method: 'get',
      path: '/v1/runners/:runnerName/test-cases',
      operationId: 'listRunnerTestCases',
      summary: 'The test cases a run of the runner would execute now, in order',
      tag: 'Runners',
      auth: 'apiKey',
      responses: {
        '200': ok('The test cases, in run order (one page).', pageOf(schemaRef('TestCase')), ['testCases']),
      },
      problems: ['NotFound'],
    },
    {
      method: 'post',
      path: '/v1/runs',
      operationId: 'startRun',
      summary: 'Start a run',
      description:
        "Runs the runner's test cases on the environment as a Temporal workflow. `timeout` in seconds (default 1800); `performance` (a load profile) makes it a performance run.",
      tag: 'Runs',
      auth: 'apiKey',
      idempotent: true,
      body: body(runInputSchema(config.runs.maxTimeoutSeconds), 'startRun'),
      responses: {
        '201': {
          ...created('Run', schemaRef('RunStarted'), ['runStarted']),
          headers: {
            Location: "The run's address.",
            'Idempotent-Replayed':
              '`true` when the answer is the run a first call with the same `Idempotency-Key` started.',
          },
        },
      },
      problems: ['BadRequest', 'Unprocessable', 'UnsupportedMediaType'],
    },
    {
      method: 'get',
      path: '/v1/runs',
      operationId: 'listRuns',
      summary: 'List runs',
      description:
        'Newest first by default. `?runner=smoke&environment=staging&limit=1` is the latest run of a runner on an environment.',
      tag: 'Runs',
      auth: 'apiKey',
      query: [
        ...paging(200, 20),
        { name: 'orderBy', description: 'Only `createdAt`.', schema: { enum: ['createdAt'], default: 'createdAt' } },
        {
          name: 'order',
          description: 'Newest (`desc`) or oldest (`asc`) first.',
          schema: { enum: ['desc', 'asc'], default: 'desc' },
        },
        filter('runner', 'Runs of this runner.'),
        filter('environment', 'Runs on this environment.'),
        filter('status', 'Runs in this status.', { enum: [...RUN_STATUSES] }),
        filter('trigger', 'Runs started this way.', { enum: [...RUN_TRIGGERS] }),
        filter('deployment', 'Runs of this deployment (its id).'),
      ],
      responses: { '200': ok('A page of runs.', pageOf(schemaRef('Run')), ['runs']) },
      problems: ['BadRequest'],
    },
    {
      method: 'get',
      path: '/v1/runs/:runId',
      operationId: 'getRun',
      summary: 'Get a run (status, progress, result)',
      description:
        'The run from the store. While the database does not answer, a queued or running run is answered from its workflow instead (`RunFromWorkflow`: `source: "workflow"`, `storeUnavailable: true`); any other run is then 503 `database-unavailable`.',
      tag: 'Runs',
      auth: 'apiKey',
      responses: {
        '200': ok(
          'The run, or while the database does not answer what its workflow knows.',
          { oneOf: [schemaRef('Run'), schemaRef('RunFromWorkflow')] },
          ['runRunning', 'runCompleted', 'runFromWorkflow'],
        ),
      },
      problems: ['NotFound'],
    },
    {
      method: 'get',
      path: '/v1/runs/:runId/live',
      operationId: 'getRunLive',
      summary: "A running run's live state from its workflow",
      description:
        "Asks the run's workflow (a Temporal query, at most about a second): its progress and `waiting`, the node waiting for a callback or between two attempts of a Poll node (docs/async.md). A run that is not running, or whose workflow does not answer in time, is answered with `live: false` and its stored status.",
      tag: 'Runs',
      auth: 'apiKey',
      responses: { '200': ok('The live state.', schemaRef('RunLive')) },
      problems: ['NotFound'],
    },
    {
      method: 'get',
      path: '/v1/runs/:runId/results',
      operationId: 'getRunResults',
      summary: "Get a run's results",
      description: 'Readable while the run is running: each test case is stored as it ends.',
      tag: 'Runs',
      auth: 'apiKey',
      responses: { '200': ok('The results.', schemaRef('RunResults'), ['results', 'resultsFailed']) },
      problems: ['NotFound'],
    },
    {
      method: 'get',
      path: '/v1/runs/:runId/deliveries',
      operationId: 'listRunDeliveries',
      summary: "The outgoing webhook deliveries of a deployment's run",
      tag: 'Runs',
      auth: 'apiKey',
      responses: { '200': ok('The deliveries (one page).', pageOf(schemaRef('Delivery')), ['deliveries']) },
      problems: ['NotFound'],
    },
    {
      method: 'get',
      path: '/v1/runs/:runId/compare/baseline',
      operationId: 'compareRunWithBaseline',
      summary: 'Compare a run with its baseline',
      description:
        "The run (the head) against its baseline (docs/history.md \"Baselines\"): the run its plan froze as baseline (a performance run's), else its deployment's or runner's `baseline` (a pinned run, or `lastPassing`), else the last run of the same runner, environment and kind before it that passed. The answer adds `baseline: {runId, setting, source}`. 422 `run-not-ended` for a run still queued or running; 422 `no-baseline` when there is none.",
      tag: 'Runs',
      auth: 'apiKey',
      responses: { '200': ok('The comparison.', schemaRef('RunComparison')) },
      problems: ['NotFound', 'Unprocessable'],
    },
    {
      method: 'get',
      path: '/v1/runs/:runId/compare/:headRunId',
      operationId: 'compareRuns',
      summary: 'Compare two runs',
      description:
        'Run `runId` (the base) against run `headRunId` (the head): test cases newly failing, newly passing, appeared, disappeared, slower, faster; performance figures side by side with their change and both time series; the difference of the two plans when their hashes differ; a `verdict`. Rules: docs/history.md "Comparing runs". 422 `run-not-ended` (with `runId`) for a run still queued or running.',
      tag: 'Runs',
      auth: 'apiKey',
      responses: { '200': ok('The comparison.', schemaRef('RunComparison')) },
      problems: ['NotFound', 'Unprocessable'],
    },
    {
      method: 'post',
      path: '/v1/runs/:runId/cancel',
      operationId: 'cancelRun',
      summary: 'Cancel a run',
      description:
        'The run ends `failed` ("Run cancelled") within about a second. 409 `run-finished` when it has ended.',
      tag: 'Runs',
      auth: 'apiKey',
      responses: { '202': ok('Cancellation requested.', schemaRef('RunCancelled'), ['cancelled']) },
      problems: ['NotFound', 'Conflict'],
    },
    {
      method: 'post',
      path: '/v1/runs/:runId/control',
      operationId: 'controlRun',
      summary: 'Pause, resume, scale or stop a running performance run',
      description:
        'Live control (docs/performance.md "Steering a running test"), delivered to the run\'s workflow as its `loadControl` update and answered once published to the shards, which apply it within about a second. `scale` takes `vus` (VU executors) or `rate` (arrival-rate executors, iterations per `timeUnit`), held from now to the end of the profile. The answer is the whole control state; `GET /v1/runs/{runId}` shows it as `performance.state` and `performance.control.commands`. 400 `validation-failed` naming the field; 409 `run-not-controllable` for a run that is not a running performance run, or whose load is stopping; 503 `temporal-unavailable`.',
      tag: 'Runs',
      auth: 'apiKey',
      body: body(controlInputSchema as unknown as JsonSchema, 'controlRun'),
      responses: { '200': ok('The control state after the command.', schemaRef('RunControlled'), ['controlled']) },
      problems: ['BadRequest', 'NotFound', 'Conflict', 'ServiceUnavailable'],
    },
    ...runOriginOperations(),
    {
      method: 'delete',
      path: '/v1/runs/:runId',
      operationId: 'deleteRun',
      summary: 'Delete an ended run with its results and deliveries',
      description: '409 `run-active` while it is queued or running: cancel it first.',
      tag: 'Runs',
      auth: 'apiKey',
      responses: deleted('Run'),
      problems: ['NotFound', 'Conflict'],
    },
    {
      method: 'get',
      path: '/v1/libraries',
      operationId: 'listLibraries',
      summary: 'The script libraries',
      description: "Built-in and predefined libraries, with the stable `url` to list in a script's `libs`.",
      tag: 'Libraries',
      auth: 'apiKey',
      responses: { '200': ok('The libraries (one page).', pageOf(schemaRef('Library')), ['libraries']) },
      problems: [],
    },
    ...crud({
      tag: 'Deployments',
      collection: '/v1/deployments',
      param: 'deploymentId',
      noun: 'deployment',
      plural: 'deployments',
      schema: schemaRef('Deployment'),
      examples: { one: 'deployment', page: 'deployments' },
      bodies: { create: DEPLOYMENT_SCHEMAS.create, patch: DEPLOYMENT_SCHEMAS.patch },
      listDescription: 'By name (docs/deployments.md).',
      createProblems: ['Unprocessable'],
      deleteDescription: 'Its schedule is deleted too.',
    }).map((op) =>
      op.operationId === 'createDeployment'
        ? { ...op, responses: { '201': created('Deployment', schemaRef('Deployment'), ['deploymentCreated']) } }
        : op,
    ),
    {
      method: 'post',
      path: '/v1/deployments/:deploymentId/runs',
      operationId: 'runDeployment',
      summary: 'Run a deployment now',
      description: '409 `deployment-disabled` when it has `enabled: false`. No body.',
      tag: 'Deployments',
      auth: 'apiKey',
      idempotent: true,
      responses: {
        '201': {
          ...created('Run', schemaRef('RunStarted'), ['runStarted']),
          headers: { Location: "The run's address.", 'Idempotent-Replayed': '`true` on a replay.' },
        },
      },
      problems: ['NotFound', 'Conflict', 'Unprocessable'],
    },
    {
      method: 'post',
      path: '/v1/deployments/:deploymentId/rotate-webhook',
      operationId: 'rotateDeploymentWebhook',
      summary: 'New incoming webhook address and token (shown once)',
      tag: 'Deployments',
      auth: 'apiKey',
      responses: {
        '200': ok('The deployment with its new `webhookToken`.', schemaRef('Deployment'), ['deploymentCreated']),
      },
      problems: ['NotFound'],
    },
    {
      method: 'post',
      path: '/v1/deployments/:deploymentId/rotate-signing-secret',
      operationId: 'rotateDeploymentSigningSecret',
      summary: 'New signing secret for outgoing webhooks (shown once)',
      tag: 'Deployments',
      auth: 'apiKey',
      responses: {
        '200': ok('The deployment with its new `signingSecret`.', schemaRef('Deployment'), ['deploymentCreated']),
      },
      problems: ['NotFound'],
    },
    ...crud({
      tag: 'Designs',
      collection: '/v1/designs',
      param: 'designId',
      noun: 'design',
      plural: 'designs',
      schema: schemaRef('Design'),
      examples: { one: 'design', page: 'designs' },
      bodies: { create: DESIGN_SCHEMAS.full, replace: DESIGN_SCHEMAS.full, patch: DESIGN_SCHEMAS.patch },
      listQuery: [filter('path', 'Designs whose path starts with this.')],
      listDescription: "API designs, the mock service's definitions (docs/mocks.md), by path then method.",
      createProblems: ['Unprocessable'],
    }),
    {
      method: 'post',
      path: '/v1/designs/import',
      operationId: 'importDesigns',
      summary: 'Import designs from an OpenAPI 3.x document',
      description:
        'The body is the document itself (JSON or YAML), or `{"document": "<JSON or YAML text>"}`, up to `ASSAY_IMPORT_MAX_BYTES` (default 32 MiB; other bodies: `ASSAY_MAX_BODY_BYTES`). Routes already designed are skipped unless `?replace=true`.',
      tag: 'Designs',
      auth: 'apiKey',
      query: [
        {
          name: 'replace',
          description: '`true`: replace designs of the same routes.',
          schema: { enum: ['true', 'false'] },
        },
      ],
      body: {
        ...body(
          {
            type: 'object',
            description:
              'An OpenAPI 3.x document, or `{"document": …}` holding one as JSON or YAML text (checked when parsed; no schema validation before).',
            properties: { document: { type: ['string', 'object'] } },
          },
          'importDesigns',
        ),
        alsoAs: Object.fromEntries(
          ['application/yaml', 'application/x-yaml', 'text/yaml'].map((type) => [
            type,
            { type: 'string', description: 'The OpenAPI 3.x document as YAML (or JSON) text.' },
          ]),
        ),
      },
      responses: {
        '201': ok('The designs made, and the operations skipped.', schemaRef('DesignImport'), ['designImport']),
      },
      problems: ['BadRequest', 'Conflict', 'Unprocessable', 'UnsupportedMediaType'],
    },
    ...crud({
      tag: 'Mock data',
      collection: '/v1/mock-collections',
      param: 'collectionId',
      noun: 'mock collection',
      plural: 'mock collections',
      schema: schemaRef('MockCollection'),
      examples: { one: 'mockCollection', page: 'mockCollections' },
      bodies: { create: COLLECTION_SCHEMAS.full, replace: COLLECTION_SCHEMAS.full, patch: COLLECTION_SCHEMAS.patch },
      listDescription:
        'Data collections of the mocks (docs/mocks.md "State"), by name. Bodies up to 8 MiB (a seed of up to 10,000 records); a new seed resets the shared state; 409 `mock-collection-taken` for a name or basePath another collection has.',
      createProblems: ['NotFound', 'Unprocessable'],
      deleteDescription: 'With its records in every scope.',
    }),
    {
      method: 'get',
      path: '/v1/mock-collections/:collectionId/records',
      operationId: 'listMockRecords',
      summary: "List a collection's records in a scope",
      description:
        'In insertion order. `scope` absent: the shared state; `~seed`: the seed; a scope that has not started shows the seed.',
      tag: 'Mock data',
      auth: 'apiKey',
      query: [
        ...paging(1000, 100),
        {
          name: 'scope',
          description: 'A scope (`run_…`, or any 1–100 of A-Z a-z 0-9 _ . : -).',
          schema: { type: 'string' },
        },
      ],
      responses: { '200': ok('A page of records.', pageOf({ type: 'object' }), ['mockRecords']) },
      problems: ['BadRequest', 'NotFound'],
    },
    {
      method: 'post',
      path: '/v1/mock-collections/:collectionId/reset',
      operationId: 'resetMockCollection',
      summary: "Reset a collection's shared state to its seed",
      tag: 'Mock data',
      auth: 'apiKey',
      responses: { '200': ok('The collection.', schemaRef('MockCollection'), ['mockCollection']) },
      problems: ['NotFound'],
    },
    {
      method: 'delete',
      path: '/v1/mock-scopes/:scope',
      operationId: 'discardMockScope',
      summary: 'Discard a scope in every collection of the workspace',
      description: "A run's scope is discarded when the run ends; unused scopes after `ASSAY_MOCK_SCOPE_TTL_SECONDS`.",
      tag: 'Mock data',
      auth: 'apiKey',
      responses: { '204': { description: 'Discarded (also when it held nothing).' } },
      problems: ['BadRequest'],
    },
    {
      method: 'post',
      path: '/v1/mock-samples',
      operationId: 'sampleFromSchema',
      summary: 'Sample data for a JSON Schema',
      description:
        '`mode: "fast"` (default) generates locally; `"ai"` asks the configured AI provider (503 `ai-not-configured`, 502 `ai-failed`).',
      tag: 'Designs',
      auth: 'apiKey',
      body: body(DESIGN_SCHEMAS.sample, 'sampleFromSchema'),
      responses: { '200': ok('The sample.', schemaRef('MockSample'), ['sample']) },
      problems: ['BadRequest', 'Unprocessable', 'UnsupportedMediaType', 'BadGateway'],
    },
    {
      method: 'get',
      path: '/v1/mock-settings',
      operationId: 'getMockSettings',
      summary: "The workspace's mock settings",
      description:
        'The validation and recording proxy (`proxy`, null when off) and the seed of designs without their own.',
      tag: 'Designs',
      auth: 'apiKey',
      responses: { '200': ok('The settings.', schemaRef('MockSettings'), ['mockSettings']) },
      problems: [],
    },
    {
      method: 'put',
      path: '/v1/mock-settings',
      operationId: 'putMockSettings',
      summary: "Replace the workspace's mock settings",
      description:
        "An absent field is null (the proxy off, no seed). `proxy.url`: an absolute http(s) base URL without credentials, query or fragment. Where it points is judged per request by the address policy of API nodes: a refusal answers the mock's caller 502 `mock-proxy-failed` naming the rule.",
      tag: 'Designs',
      auth: 'apiKey',
      body: body(MOCK_SETTINGS_SCHEMA, 'putMockSettings'),
      responses: { '200': ok('The settings.', schemaRef('MockSettings'), ['mockSettings']) },
      problems: ['BadRequest', 'UnsupportedMediaType'],
    },
    {
      method: 'post',
      path: '/v1/relay',
      operationId: 'relayRequest',
      summary: 'Send one HTTP request for the web console',
      description:
        'Sent as an API node\'s would (address policy, time and size limits); nothing is kept. Any response status is a 200 answer; 502 `relay-failed` when no complete response came, 403 `address-not-allowed` when the address policy refuses (docs/api.md "Relay").',
      tag: 'Relay',
      auth: 'apiKey',
      body: body(relayRequestSchema(config.runs.requestTimeoutMs), 'relayRequest'),
      responses: {
        '200': {
          ...ok('What came back.', schemaRef('RelayResponse'), ['relay']),
          headers: { 'Cache-Control': '`no-store`.' },
        },
      },
      problems: ['BadRequest', 'UnsupportedMediaType', 'BadGateway'],
    },
    {
      method: 'post',
      path: '/webhooks/deploy/:webhookId',
      operationId: 'callDeploymentWebhook',
      summary: 'Incoming webhook: start a run of the deployment',
      description:
        "Send `Authorization: Bearer <WEBHOOK_TOKEN>` (the deployment's token) or `X-API-Key: <API_KEY>` (a `run` or `write` key of its workspace); one valid credential is enough. No credential is accepted only when the deployment has `webhookRequireAuth: false`. `variables` become the run's variables; every other field is stored as the run's `context`. No body counts as `{}`.",
      tag: 'Deployments',
      auth: 'webhook',
      idempotent: true,
      body: { ...body(WEBHOOK_BODY_SCHEMA, 'callDeploymentWebhook'), required: false },
      responses: {
        '200': {
          ...ok('The run started (or replayed).', schemaRef('RunStarted'), ['webhookRun']),
          headers: { 'Idempotent-Replayed': '`true` on a replay.' },
        },
      },
      problems: [
        'BadRequest',
        'Unauthorized',
        'NotFound',
        'Conflict',
        'Unprocessable',
        'UnsupportedMediaType',
        'TooManyRequests',
        'ServiceUnavailable',
      ],
    },
    ...callbackOperations(),
    {
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI document',
      description:
        'Generated from the schemas the API validates request bodies with (docs/api.md "The OpenAPI document").',
      tag: 'Service',
      auth: 'none',
      responses: { '200': ok('The OpenAPI 3.1 document.', { type: 'object', required: ['openapi', 'info', 'paths'] }) },
      problems: [],
    },
    // People, keys, the audit trail and versions (docs/teams.md).
    ...peopleOperations(config),
    ...changeOperations(config),
  ];
}

/** A Callback node's address, one operation per method it takes (api/routes/callbacks.ts; docs/async.md "Callbacks"). */
function callbackOperations(): ApiOperation[] {
  return CALLBACK_METHODS.map((method) => ({
    method,
    path: '/callbacks/:token',
    operationId: `callback${method.charAt(0).toUpperCase()}${method.slice(1)}`,
    summary: `Callback to a Callback node (${method.toUpperCase()})`,
    description:
      'The address `{{callback.url}}` gives a flow (docs/async.md "Callbacks"): the token is the credential. Any body (JSON is parsed, anything else kept as text). Answered with the node\'s `respond`, by default 200 `{"received": true, "callbackId": "cb_…"}`; 404 `callback-not-found` for an address Assay did not make, 410 `callback-run-ended` once the run has ended, 401 `callback-signature-invalid` when the node requires a signature the callback lacks (not counted), 413 over ASSAY_MAX_BODY_BYTES, 429 over ASSAY_RATE_LIMIT_PER_MINUTE callbacks per run.',
    tag: 'Callbacks',
    auth: 'none' as const,
    responses: {
      '200': ok("The node's `respond` (default shown; its status, headers and body when it sets them).", {
        type: 'object',
        properties: { received: { const: true }, callbackId: { type: 'string', pattern: '^cb_' } },
      }),
    },
    problems: ['Unauthorized', 'NotFound', 'Gone', 'PayloadTooLarge', 'TooManyRequests', 'ServiceUnavailable'],
  }));
}

/** The auth profile endpoints (api/routes/auth-profiles.ts; docs/auth.md). */
function authProfileOperations(): ApiOperation[] {
  const tag = 'Auth profiles';
  const one = '/v1/auth-profiles/:profileName';
  const schema = schemaRef('AuthProfile');
  return [
    {
      method: 'get',
      path: '/v1/auth-profiles',
      operationId: 'listAuthProfiles',
      summary: 'List auth profiles',
      description: 'By name. Literal secrets read `"***"`.',
      tag,
      auth: 'apiKey',
      query: [...paging()],
      responses: { '200': ok('A page of auth profiles.', pageOf(schema)) },
      problems: ['BadRequest'],
    },
    {
      method: 'post',
      path: '/v1/auth-profiles',
      operationId: 'createAuthProfile',
      summary: 'Create an auth profile',
      description:
        '`type` and its fields in `config`; 400 `validation-failed` names the field at fault (e.g. `config.tokenUrl`). Literal secrets are stored sealed.',
      tag,
      auth: 'apiKey',
      body: body(AUTH_PROFILE_SCHEMAS.body, 'createAuthProfile'),
      responses: { '201': created('Auth profile', schema, []) },
      problems: ['BadRequest', 'Conflict', 'UnsupportedMediaType'],
    },
    {
      method: 'get',
      path: one,
      operationId: 'getAuthProfile',
      summary: 'Get an auth profile',
      tag,
      auth: 'apiKey',
      responses: { '200': ok('The auth profile.', schema) },
      problems: ['NotFound'],
    },
    {
      method: 'put',
      path: one,
      operationId: 'replaceAuthProfile',
      summary: 'Replace an auth profile',
      description:
        'A secret sent as `"***"` keeps the stored value. Renaming a profile that something names: 409 `in-use`.',
      tag,
      auth: 'apiKey',
      body: body(AUTH_PROFILE_SCHEMAS.replace, 'replaceAuthProfile'),
      responses: { '200': ok('The auth profile as stored.', schema) },
      problems: ['BadRequest', 'NotFound', 'Conflict', 'UnsupportedMediaType'],
    },
    {
      method: 'delete',
      path: one,
      operationId: 'deleteAuthProfile',
      summary: 'Delete an auth profile',
      description:
        '409 `in-use` naming the test cases, runners and folders that still name it (`testCases`, `runners`, `folders`).',
      tag,
      auth: 'apiKey',
      responses: deleted('Auth profile'),
      problems: ['NotFound', 'Conflict'],
    },
    {
      method: 'post',
      path: `${one}/token`,
      operationId: 'fetchAuthProfileToken',
      summary: 'Fetch a token now (oauth2)',
      description:
        "Requests a token from the profile's token endpoint with the environment's variables; answers what it got, never the token (`preview`: its first characters). 502 `token-request-failed` with the endpoint's status and error text.",
      tag,
      auth: 'apiKey',
      body: body(AUTH_PROFILE_SCHEMAS.token, 'fetchAuthProfileToken'),
      responses: { '200': ok('The token obtained.', schemaRef('AuthProfileToken')) },
      problems: ['BadRequest', 'NotFound', 'UnsupportedMediaType', 'BadGateway'],
    },
  ];
}
