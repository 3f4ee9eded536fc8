/**
 * The reusable parts of Assay's OpenAPI document (api/openapi/document.ts): the JSON Schemas of what
 * the handlers answer (resources, the page envelope, RFC 9457 problems), the shared problem
 * responses, and the examples the document shows. Shapes follow the handlers' JSON builders
 * (`environmentJson`, `testCaseJson`, `runnerJson`, `runJson`, the deployments' and designs' `json`,
 * `answerStartedRun`, api/paging.ts `page`) and docs/api.md; test/integration/api/openapi-document.test.ts
 * checks real answers against them.
 *
 * Answer schemas are open (`additionalProperties` is not closed) so that a field added later is
 * not a breaking change for generated clients; request schemas are the routes' own (closed) ones.
 * A test case's flow nodes and data sets, in answers as in requests, are flow validation's closed
 * schemas (api/openapi/flow.ts): a stored flow is one validation accepted.
 */
import { NULLABLE_PARALLEL_FIELDS, PARALLEL_FIELDS } from '../routes/parallel-fields';
import { KEY_SCOPES, RUNNER_ORDERS } from '../../src/store/entities';
import { HTTP_METHODS, RUN_STATUSES } from '../../src/domain/types';
import { PROBLEMS, problemDocument, type ProblemCode } from '../../src/problems';
import { RUN_TRIGGERS } from '../routes/runs';
import { HOOKS_SCHEMA } from '../routes/folders';
import { DESIGN_SCHEMAS } from '../routes/designs';
import { DATA_SETS_SCHEMA, FLOW_NODES } from './flow';
import { DURABILITIES, VARIABLE_SCOPES } from '../../src/domain/types';
import { FLIP_FIGURES, HISTORY_SCHEMAS } from './history-schemas';
import { MOCK_JOURNAL_SCHEMAS } from './mock-journal-schemas';

/** A JSON Schema (2020-12, the OpenAPI 3.1 dialect) as plain data. */
export type JsonSchema = Record<string, unknown>;

/** `{"$ref": "#/components/schemas/<name>"}`. */
export function schemaRef(name: keyof typeof SCHEMAS): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** The page envelope of a listing of `item` (api/paging.ts `Page`). */
export function pageOf(item: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['items', 'nextCursor'],
    properties: {
      items: { type: 'array', items: item },
      nextCursor: {
        type: ['string', 'null'],
        description: 'Pass as `cursor` to get the next page; null on the last page.',
      },
    },
  };
}

const timestamp = { type: 'string', format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' } as const;
const id = (prefix: string) => ({
  type: 'string',
  pattern: `^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`,
  description: `\`${prefix}_\` and a ULID.`,
});
const text = { type: 'string' } as const;
const loadProfile = {
  type: ['object', 'null'],
  description: 'A k6-style load profile (docs/performance.md); null when none.',
} as const;

/** A variable as answered: a plain value (`"***"` for a `read`-scope key), or a secret, always masked. */
const variableValue = {
  oneOf: [
    { type: ['string', 'number', 'boolean'] },
    {
      type: 'object',
      required: ['secret', 'value'],
      properties: { secret: { const: true }, value: { const: '***' } },
      description: 'A secret variable (docs/secrets.md): never answered in plain text.',
    },
  ],
};

/** A runner's or deployment's `baseline` (docs/history.md "Baselines"). */
const BASELINE = {
  type: ['string', 'null'],
  description:
    'The run its runs are compared with (GET /v1/runs/{id}/compare/baseline) and relative thresholds (`p(95)<baseline*1.10`) measure against: `lastPassing`, or a pinned run id; null: `lastPassing`.',
} as const;

const compareRun = {
  type: 'object',
  required: ['runId', 'createdAt', 'status', 'result', 'planHash', 'kind'],
  properties: {
    runId: id('run'),
    createdAt: timestamp,
    status: { enum: ['completed', 'failed'] },
    result: { enum: ['passed', 'failed', null] },
    planHash: { type: ['string', 'null'], description: 'SHA-256 (hex) of what the run executed.' },
    kind: { enum: ['functional', 'performance'] },
  },
} as const;
const compareSide = {
  type: ['object', 'null'],
  required: ['status', 'durationMs'],
  properties: { status: { enum: ['passed', 'failed', 'skipped'] }, durationMs: { type: 'integer' } },
} as const;
const compareItem = {
  type: 'object',
  required: ['testCaseId', 'name', 'base', 'head'],
  properties: {
    testCaseId: text,
    name: text,
    base: compareSide,
    head: compareSide,
    change: {
      type: ['number', 'null'],
      description: '`slower`/`faster`: (head − base) / base duration, a fraction.',
    },
  },
} as const;
const figureChange = {
  type: 'object',
  required: ['base', 'head', 'change'],
  properties: {
    base: { type: ['number', 'null'] },
    head: { type: ['number', 'null'] },
    change: {
      type: ['number', 'null'],
      description: 'Relative ((head − base) / base) for durations and rps; absolute (head − base) for rates.',
    },
    regression: { type: 'boolean' },
    improvement: { type: 'boolean' },
  },
} as const;
const perfFigures = {
  type: 'object',
  required: ['p95', 'p99', 'med', 'avg', 'rps', 'errorRate', 'checksRate'],
  properties: Object.fromEntries(
    ['p95', 'p99', 'med', 'avg', 'rps', 'errorRate', 'checksRate'].map((f) => [f, figureChange]),
  ),
};
const namesList = { type: 'array', items: text } as const;
const idNameList = {
  type: 'array',
  items: { type: 'object', required: ['id', 'name'], properties: { id: text, name: text } },
} as const;

/**
 * Codes a node result's `errorCode` takes (docs/flows.md "Error codes", where each is explained),
 * shown as the field's examples; not an enum: the system's network codes pass through as they are.
 */
const NODE_ERROR_CODE_EXAMPLES = [
  'ECONNREFUSED',
  'TIMEOUT',
  'TOO_MANY_REDIRECTS',
  'DECODING_FAILED',
  'ADDRESS_NOT_ALLOWED',
  'AUTH_PROFILE_FAILED',
  'HANDSHAKE_FAILED',
  'NOT_EVENT_STREAM',
  'MESSAGE_TOO_LARGE',
  'MESSAGE_INVALID',
];

/** What a node result holds (src/domain/types.ts `NodeResult`; docs/flows.md "Results"). Open, as answers are. */
const NODE_RESULT = {
  type: 'object',
  description:
    'One node\'s result, nested like the flow (docs/flows.md "Results"): the fields of its type, absent when they do not apply.',
  required: ['id', 'type', 'status', 'duration'],
  properties: {
    id: text,
    name: text,
    type: { type: 'string', description: 'The node type (`api`, `if`, `loop`, …, `grpc`, `mockVerify`).' },
    status: { enum: ['passed', 'failed', 'skipped'] },
    duration: { type: 'number', description: 'Milliseconds.' },
    error: { type: 'string', description: 'Why the node failed, in words.' },
    errorCode: {
      type: 'string',
      description:
        'The stable code of `error` when the failure has one (docs/flows.md "Error codes"): a network error (`ECONNREFUSED`, `TIMEOUT`, …), a refused address (`ADDRESS_NOT_ALLOWED`), `TOO_MANY_REDIRECTS`, `DECODING_FAILED`, `AUTH_PROFILE_FAILED`, a stream\'s (`HANDSHAKE_FAILED`, `NOT_EVENT_STREAM`, `MESSAGE_TOO_LARGE`, …) or a gRPC call\'s (`MESSAGE_INVALID`, …). Absent when the node passed, or failed by an assertion, a script, or a condition that never held.',
      examples: NODE_ERROR_CODE_EXAMPLES,
    },
    reason: { type: 'string', description: 'Why the node was skipped.' },
    request: {
      type: 'object',
      required: ['method', 'url'],
      properties: {
        method: text,
        url: text,
        auth: {
          type: 'object',
          description: "The request's signature or auth profile, its secrets as `***`.",
          additionalProperties: { type: 'string' },
        },
      },
    },
    response: {
      type: 'object',
      required: ['timeMs', 'size', 'truncated'],
      properties: {
        status: { type: 'integer' },
        timeMs: { type: 'number' },
        size: { type: 'integer', description: 'Bytes (decoded, when `contentEncoding` is set).' },
        truncated: { type: 'boolean' },
        contentEncoding: { type: 'string' },
        encodedSize: { type: 'integer' },
        redirects: { type: 'integer', description: 'Redirects followed (absent: none).' },
      },
    },
    assertions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['target', 'operator', 'passed'],
        properties: {
          name: text,
          target: text,
          operator: text,
          expected: {},
          actual: {},
          passed: { type: 'boolean' },
          message: text,
        },
      },
    },
    attempts: {
      type: 'array',
      description: 'API nodes retried, Poll nodes: every attempt.',
      items: {
        type: 'object',
        required: ['attempt', 'timeMs'],
        properties: {
          attempt: { type: 'integer' },
          status: { type: 'integer' },
          error: text,
          timeMs: { type: 'number' },
          delayMs: { type: 'number' },
          conditionMet: { type: 'boolean' },
        },
      },
    },
    logs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['level', 'message'],
        properties: { level: { enum: ['debug', 'info', 'warn', 'error'] }, message: text },
      },
    },
    line: { type: 'integer', description: "The line of the user's code a script error points to." },
    condition: { description: "An IF node's condition value (cut)." },
    branch: { enum: ['then', 'else', 'none'] },
    children: { type: 'array', items: { $ref: '#/components/schemas/NodeResult' } },
    iterations: { type: 'integer' },
    stoppedBy: { enum: ['count', 'condition', 'items', 'break', 'cap', 'error', 'assert'] },
    iterationResults: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'status', 'nodes'],
        properties: {
          index: { type: 'integer' },
          item: {},
          status: { enum: ['passed', 'failed'] },
          nodes: { type: 'array', items: { $ref: '#/components/schemas/NodeResult' } },
        },
      },
    },
    omittedIterations: { type: 'integer' },
    variablesSet: { type: 'object' },
    waitedMs: { type: 'number' },
    version: { type: 'string', description: "A live Ref node's: the referenced test case's `updatedAt` frozen." },
    callback: { type: 'object', description: 'Callback nodes (docs/async.md "Callbacks").' },
    stream: { type: 'object', description: 'WebSocket and SSE nodes (docs/async.md "WebSocket and SSE").' },
    grpc: { type: 'object', description: 'gRPC nodes (docs/async.md "gRPC").' },
    mockVerify: { type: 'object', description: 'mockVerify nodes (docs/flows.md "mockVerify node").' },
    debug: {
      type: 'object',
      description:
        'Debug runs only (trigger `debug`, `POST /v1/test-cases/debug`): what the designer shows of the node, secrets masked, bounded (`request` as sent and `response` of API and Poll nodes, `variables` after the node; `bodyTruncated`, `variablesTruncated` when cut).',
    },
  },
} as const;

/** The component schemas, by name. */
export const SCHEMAS = {
  ...HISTORY_SCHEMAS,
  ...MOCK_JOURNAL_SCHEMAS,
  FieldError: {
    type: 'object',
    required: ['field', 'pointer', 'detail'],
    description: 'One invalid field of a request.',
    properties: {
      field: { type: 'string', description: 'Readable path, e.g. `flow[0].request.url`; `""` for the whole body.' },
      pointer: {
        type: 'string',
        description: 'RFC 6901 JSON Pointer into the body (`#/flow/0/request/url`) or `?name` for a query parameter.',
      },
      detail: text,
    },
  },
  Problem: {
    type: 'object',
    required: ['type', 'title', 'status', 'detail', 'code'],
    description:
      'RFC 9457 problem details with a stable machine `code` (docs/api.md "Errors"); `GET /problems/{code}` describes each code. Extension members (`errors`, `scopeNeeded`, `runId`, `retryAfter`, `allowed`, …) depend on the code.',
    properties: {
      type: { type: 'string', description: '`/problems/<code>`, served by the API.' },
      title: text,
      status: { type: 'integer', minimum: 400, maximum: 599 },
      detail: text,
      code: { type: 'string', enum: Object.keys(PROBLEMS) },
      instance: { type: 'string', description: '`urn:assay:request:<X-Request-Id>`: finds the request in the logs.' },
      errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } },
    },
  },
  Variables: {
    type: 'object',
    description: 'Variable names to values (docs/secrets.md for secrets).',
    additionalProperties: variableValue,
  },
  Workspace: {
    type: 'object',
    required: ['id', 'name', 'createdAt', 'current', 'key'],
    properties: {
      id: id('ws'),
      name: text,
      createdAt: timestamp,
      current: { const: true },
      key: {
        type: 'object',
        required: ['id', 'name', 'prefix', 'scope'],
        description: 'The calling key (its first characters as `prefix`, never the key).',
        properties: { id: id('key'), name: text, prefix: text, scope: { enum: [...KEY_SCOPES] } },
      },
    },
  },
  Environment: {
    type: 'object',
    required: ['id', 'name', 'description', 'variables', 'createdAt', 'updatedAt'],
    properties: {
      id: id('env'),
      name: text,
      description: text,
      variables: { $ref: '#/components/schemas/Variables' },
      extends: {
        type: 'string',
        description: 'The environment this one extends (docs/reuse.md "Environments that inherit"); absent when none.',
      },
      servers: {
        type: 'object',
        description: 'Its own servers, name → base URL (docs/reuse.md "Servers"); absent when none.',
        additionalProperties: { type: 'string' },
      },
      inherited: {
        type: 'object',
        required: ['chain', 'variables', 'servers'],
        description:
          'Present when it extends another: what its ancestors give it that it does not set itself, each value with the environment it comes `from` (secrets `"***"`).',
        properties: {
          chain: {
            type: 'array',
            items: { type: 'string' },
            description: 'Its ancestors, the root first, the parent last.',
          },
          variables: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              required: ['value', 'from'],
              properties: { value: variableValue, secret: { const: true }, from: { type: 'string' } },
            },
          },
          servers: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              required: ['value', 'from'],
              properties: { value: { type: 'string' }, from: { type: 'string' } },
            },
          },
        },
      },
      createdAt: timestamp,
      updatedAt: timestamp,
    },
  },
  AuthProfile: {
    type: 'object',
    required: ['id', 'name', 'description', 'type', 'config', 'createdAt', 'updatedAt'],
    description: 'An auth profile (docs/auth.md): literal secrets of `config` read `"***"`.',
    properties: {
      id: id('aup'),
      name: text,
      description: text,
      type: { enum: ['bearer', 'basic', 'apiKey', 'oauth2'] },
      config: { type: 'object', description: 'The type\'s fields, secrets `"***"`.' },
      createdAt: timestamp,
      updatedAt: timestamp,
    },
  },
  AuthProfileToken: {
    type: 'object',
    required: ['tokenType', 'expiresAt', 'scope', 'obtainedAt', 'preview'],
    description: "A token fetched now from an oauth2 profile's token endpoint: never the token itself.",
    properties: {
      tokenType: text,
      expiresAt: { type: ['string', 'null'], format: 'date-time' },
      scope: { type: ['string', 'null'] },
      obtainedAt: timestamp,
      preview: { type: 'string', description: 'At most the first 4 characters of the token, then `…`.' },
    },
  },
  TestCase: {
    type: 'object',
    required: ['id', 'name', 'folder', 'description', 'tags', 'flow', 'dataSets', 'version', 'createdAt', 'updatedAt'],
    properties: {
      id: id('tc'),
      name: text,
      folder: { type: 'string', description: '`users/admin`; `""` is the top level.' },
      description: text,
      tags: { type: 'array', items: text },
      flow: { ...FLOW_NODES, description: 'The nodes (docs/flows.md); every node has an `id`.' },
      dataSets: DATA_SETS_SCHEMA,
      hooks: {
        ...HOOKS_SCHEMA,
        type: 'object',
        description: 'Hooks around each of its API nodes (docs/flows.md "Hooks"); absent when it has none.',
      },
      authProfile: { type: ['string', 'null'], description: 'Its auth profile (docs/auth.md), `none`, or null.' },
      reusable: {
        type: 'boolean',
        description:
          'A shared step run by Ref nodes (docs/reuse.md "Sub-flows"): runners select it only by id, never by folder or tags.',
      },
      dependsOn: {
        type: 'array',
        items: text,
        description:
          'Ids of the test cases that must have passed, in the same run, before it starts (docs/parallel.md "Dependencies"); `[]`: none.',
      },
      version: {
        type: 'integer',
        minimum: 1,
        description:
          '1 when created, one more at each PUT or PATCH; the answer\'s `ETag` is `"<version>"`. Send it back as `If-Match` so that a save refuses to overwrite a change made meanwhile (409 `test-case-changed`; docs/api.md "Concurrent edits").',
      },
      createdAt: timestamp,
      updatedAt: timestamp,
    },
  },
  TestCaseValidation: {
    type: 'object',
    required: ['valid', 'flow'],
    description:
      'A test case body that passed every check a save makes (`POST /v1/test-cases/validate`); nothing was stored.',
    properties: {
      valid: { const: true },
      flow: { ...FLOW_NODES, description: 'The flow as a save would store it: every node has an `id`.' },
    },
  },
  Folder: {
    type: 'object',
    description:
      'Settings of a folder of test cases, applying to every test case at or below its path (docs/flows.md "Hooks").',
    required: ['id', 'path', 'hooks', 'authProfile', 'createdAt', 'updatedAt'],
    properties: {
      id: id('fld'),
      path: { type: 'string', description: '`users/admin`, normalised.' },
      hooks: HOOKS_SCHEMA,
      authProfile: { type: ['string', 'null'], description: 'An auth profile name, `none`, or null (not set).' },
      createdAt: timestamp,
      updatedAt: timestamp,
    },
  },
  File: {
    type: 'object',
    description:
      'A file of the workspace (docs/api.md "Files"): what API nodes send as multipart parts and binary bodies. Its content is read at `/v1/files/{name}/content`.',
    required: ['id', 'name', 'contentType', 'size', 'sha256', 'createdAt', 'updatedAt'],
    properties: {
      id: id('file'),
      name: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        pattern: '^[A-Za-z0-9_./-]{1,200}$',
        description: 'Unique in the workspace: `fixtures/avatar.png`.',
      },
      contentType: { type: 'string', description: 'As uploaded (`Content-Type`); default `application/octet-stream`.' },
      size: { type: 'integer', minimum: 0, description: 'Bytes.' },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Hex SHA-256 of the content.' },
      createdAt: timestamp,
      updatedAt: timestamp,
    },
  },
  Runner: {
    type: 'object',
    required: [
      'id',
      'name',
      'description',
      'testCaseIds',
      'folder',
      'tags',
      'order',
      'loadProfile',
      'variableScope',
      'durability',
      'concurrency',
      'bail',
      'originLimits',
      'createdAt',
      'updatedAt',
    ],
    properties: {
      id: id('rnr'),
      name: text,
      description: text,
      testCaseIds: { type: 'array', items: text },
      folder: { type: ['string', 'null'] },
      tags: { type: 'array', items: text },
      order: { enum: [...RUNNER_ORDERS] },
      loadProfile,
      variableScope: {
        enum: [...VARIABLE_SCOPES],
        description: 'Whether its test cases share variables in a run (docs/flows.md "Variables across test cases").',
      },
      durability: {
        enum: [...DURABILITIES],
        description:
          'How its runs are made durable unless a deployment or the run sets it (docs/durability.md "Durability modes"): `node` (default), every node a durable step; `testCase`, each test case one activity.',
      },
      ...PARALLEL_FIELDS,
      authProfile: { type: ['string', 'null'], description: 'Its auth profile (docs/auth.md), `none`, or null.' },
      baseline: BASELINE,
      quarantineFlaky: {
        type: 'boolean',
        description:
          'Whether failures of test cases flagged flaky on the run\'s environment do not fail its runs (docs/history.md "Quarantine").',
      },
      createdAt: timestamp,
      updatedAt: timestamp,
    },
  },
  RunComparison: {
    type: 'object',
    description:
      'Two runs compared (docs/history.md "Comparing runs"): the base (the older run, or the baseline) against the head. Rules in src/history/compare.ts.',
    required: ['base', 'head', 'samePlan', 'verdict', 'testCases'],
    properties: {
      base: compareRun,
      head: compareRun,
      samePlan: { type: 'boolean', description: 'Both plan hashes known and equal: the runs executed the same thing.' },
      verdict: { enum: ['regression', 'improvement', 'unchanged'] },
      testCases: {
        type: 'object',
        required: ['newlyFailing', 'newlyPassing', 'appeared', 'disappeared', 'slower', 'faster', 'unchanged'],
        properties: {
          newlyFailing: { type: 'array', items: compareItem },
          newlyPassing: { type: 'array', items: compareItem },
          appeared: { type: 'array', items: compareItem },
          disappeared: { type: 'array', items: compareItem },
          slower: { type: 'array', items: compareItem },
          faster: { type: 'array', items: compareItem },
          unchanged: { type: 'integer' },
        },
      },
      performance: {
        type: 'object',
        required: ['overall', 'requests', 'series'],
        properties: {
          overall: perfFigures,
          requests: {
            type: 'array',
            items: { type: 'object', required: ['name', 'figures'], properties: { name: text, figures: perfFigures } },
          },
          series: {
            type: 'object',
            description:
              "Each run's time series (docs/performance.md), each point with `offset`: seconds from its run's first point.",
            properties: {
              base: { type: 'array', items: { type: 'object' } },
              head: { type: 'array', items: { type: 'object' } },
            },
          },
        },
      },
      planDiff: {
        type: 'object',
        description:
          'Present when the plan hashes differ: what changed between the frozen plans (names only; no values).',
        properties: {
          testCases: {
            type: 'object',
            properties: { changed: idNameList, added: idNameList, removed: idNameList },
          },
          variables: {
            type: 'object',
            properties: { changed: namesList, added: namesList, removed: namesList },
          },
          settings: namesList,
          servers: namesList,
          other: namesList,
        },
      },
      baseline: {
        type: 'object',
        description: '`compare/baseline` only: the baseline used.',
        required: ['runId', 'setting', 'source'],
        properties: {
          runId: id('run'),
          setting: { type: 'string', description: '`lastPassing` or the pinned run id.' },
          source: { enum: ['plan', 'deployment', 'runner', 'default'] },
        },
      },
    },
  },
  RunLinks: {
    type: 'object',
    required: ['self', 'results'],
    properties: {
      self: text,
      results: text,
      temporal: { type: 'string', description: "The run's workflow in the Temporal Web UI." },
    },
  },
  RunStarted: {
    type: 'object',
    required: ['runId', 'status', 'runner', 'environment', 'createdAt'],
    description:
      'A run started (or, with the same `Idempotency-Key`, the run the first call started: header `Idempotent-Replayed: true`).',
    properties: {
      runId: id('run'),
      status: { enum: [...RUN_STATUSES] },
      runner: {
        type: ['string', 'null'],
        description: "The runner's name; null for a debug run (trigger `debug`), which has none.",
      },
      environment: text,
      deploymentId: id('dep'),
      createdAt: timestamp,
      links: { $ref: '#/components/schemas/RunLinks' },
      origin: { $ref: '#/components/schemas/RunOrigin' },
    },
  },
  RunOrigin: {
    type: 'object',
    required: ['kind', 'runId'],
    description:
      'The run this one was made from: a rerun of its failed test cases, a replay of its frozen plan, or a resume from its failed node (docs/history.md "Rerun, replay, resume"). `rerun` lists the test case ids it runs; `resume` the position, test case and top-level node it resumes at.',
    properties: {
      kind: { enum: ['rerun', 'replay', 'resume'] },
      runId: id('run'),
      testCaseIds: { type: 'array', items: id('tc') },
      position: { type: 'integer', minimum: 0 },
      nodeId: text,
    },
  },
  RunSummary: {
    type: 'object',
    required: ['total', 'passed', 'failed', 'skipped'],
    properties: {
      total: { type: 'integer' },
      passed: { type: 'integer' },
      failed: { type: 'integer' },
      skipped: { type: 'integer' },
    },
  },
  Run: {
    type: 'object',
    required: [
      'runId',
      'status',
      'runner',
      'environment',
      'trigger',
      'durability',
      'timeout',
      'variables',
      'createdAt',
      'links',
    ],
    description:
      'A run, from the stored row (never waiting on Temporal). `progress` and `estimatedCompletion` while running; `result`, `summary`, `duration`, `completedAt` once completed; `error` once failed.',
    properties: {
      runId: id('run'),
      status: { enum: [...RUN_STATUSES] },
      runner: {
        type: ['string', 'null'],
        description: "The runner's name; null for a debug run (trigger `debug`), which has none.",
      },
      environment: text,
      trigger: { enum: [...RUN_TRIGGERS] },
      durability: {
        enum: [...DURABILITIES],
        description:
          'The durability mode it runs with (docs/durability.md "Durability modes"), frozen in its plan when it starts; while queued, the one it will get: its own, else its deployment\'s, else its runner\'s. A performance run ignores it.',
      },
      concurrency: {
        type: ['integer', 'null'],
        description:
          'Test cases under way at once (docs/parallel.md): once started, the one frozen in its plan; while queued, its own (null: inherited from its deployment, else its runner).',
      },
      bail: {
        type: ['integer', 'null'],
        description:
          'Failed test cases after which it stops starting others (0: never); while queued, its own or null.',
      },
      originLimits: {
        type: ['object', 'null'],
        description:
          'Per-origin limits on its requests (docs/parallel.md "Protecting the target"); null: none (or, queued, inherited).',
      },
      selection: {
        type: 'object',
        description: "Its own narrowing of the runner's selection (`folder`, `tags`), when it has one.",
        properties: { folder: text, tags: { type: 'array', items: text } },
      },
      timeout: { type: 'integer', description: 'Seconds.' },
      variables: { $ref: '#/components/schemas/Variables' },
      createdAt: timestamp,
      deploymentId: id('dep'),
      testCaseId: {
        ...id('tc'),
        description:
          'A debug run (`POST /v1/test-cases/debug`): the saved test case its test case is a draft of, when one was named.',
      },
      context: { type: 'object', description: 'What an incoming webhook call sent besides `variables`.' },
      planHash: {
        type: 'string',
        pattern: '^[0-9a-f]{64}$',
        description:
          'SHA-256 (hex) of exactly what the run executes (its frozen plan minus names, times and secret values), set when it starts: two runs with the same hash ran the same thing (docs/history.md "Reproducible runs").',
      },
      origin: { $ref: '#/components/schemas/RunOrigin' },
      startedAt: timestamp,
      progress: {
        type: 'object',
        required: ['completed', 'total', 'percentage'],
        properties: {
          completed: { type: 'integer' },
          total: { type: 'integer' },
          percentage: { type: 'number', minimum: 0, maximum: 100 },
          running: { type: 'integer', description: 'Test cases under way (docs/parallel.md).' },
          unit: { const: 'seconds', description: 'A performance run counts seconds of its profile, not test cases.' },
        },
      },
      estimatedCompletion: timestamp,
      result: { enum: ['passed', 'failed'] },
      summary: { $ref: '#/components/schemas/RunSummary' },
      duration: { type: 'number', description: 'Milliseconds.' },
      completedAt: timestamp,
      error: text,
      performance: {
        type: 'object',
        description: 'Live figures of a running performance run (docs/performance.md "Results").',
      },
      links: { $ref: '#/components/schemas/RunLinks' },
    },
  },
  RunLive: {
    type: 'object',
    required: ['runId', 'status', 'live'],
    properties: {
      runId: id('run'),
      status: { enum: [...RUN_STATUSES] },
      live: {
        type: 'boolean',
        description: "True when the run's workflow answered (then `progress`, and `waiting` while a node waits).",
      },
      progress: {
        type: 'object',
        required: ['completed', 'total', 'percentage'],
        properties: {
          completed: { type: 'integer' },
          total: { type: 'integer' },
          percentage: { type: 'number', minimum: 0, maximum: 100 },
          running: { type: 'integer', description: 'Test cases under way (docs/parallel.md).' },
        },
      },
      waiting: {
        type: 'object',
        required: ['nodeId', 'kind', 'since', 'until'],
        description: 'A Callback node waiting for its callbacks, or a Poll node between two attempts (docs/async.md).',
        properties: {
          nodeId: text,
          kind: { enum: ['callback', 'poll'] },
          since: { ...timestamp, description: 'The wait (a Poll node: the node) began.' },
          until: { ...timestamp, description: "The wait ends at the latest (its timeout, or the run's deadline)." },
          callbackId: { type: 'string', description: 'Callback nodes: the callback id (`cb_…`).' },
          match: { type: 'string', description: "The node's `match` (Callback) or `until` (Poll) expression." },
          attempt: { type: 'integer', description: 'Poll nodes: attempts made so far.' },
          maxAttempts: { type: 'integer' },
          nextAttemptAt: timestamp,
        },
      },
    },
  },
  RunFromWorkflow: {
    type: 'object',
    required: ['runId', 'status', 'source', 'storeUnavailable', 'links'],
    description:
      'A queued or running run while the database does not answer (docs/api.md "While the database is away"): what its workflow knows, read with a Temporal query. `runner`, `environment`, `trigger` come from its search attributes; fields only the store holds (`variables`, `timeout`, `createdAt`, `context`, `deploymentId`, `performance`) are absent. A run that has ended is never answered so (503 until the store answers).',
    properties: {
      runId: id('run'),
      status: { enum: ['queued', 'running'] },
      source: {
        const: 'workflow',
        description: "Read from the run's workflow, not from the store (a stored run document has no `source`).",
      },
      storeUnavailable: {
        const: true,
        description: 'The store did not answer; ask again later for the full document.',
      },
      runner: {
        type: ['string', 'null'],
        description: "The runner's name; null for a debug run (trigger `debug`), which has none.",
      },
      environment: text,
      trigger: { enum: [...RUN_TRIGGERS] },
      startedAt: timestamp,
      progress: {
        type: 'object',
        required: ['completed', 'total', 'percentage'],
        properties: {
          completed: { type: 'integer' },
          total: { type: 'integer' },
          percentage: { type: 'number', minimum: 0, maximum: 100 },
          running: { type: 'integer', description: 'Test cases under way (docs/parallel.md).' },
        },
      },
      estimatedCompletion: timestamp,
      links: { $ref: '#/components/schemas/RunLinks' },
    },
  },
  NodeResult: NODE_RESULT,
  TestCaseFailure: {
    type: 'object',
    description:
      'A failed assertion or node error of a test case (docs/api.md "Runs", "Results"), in the order they happened.',
    required: ['node', 'message'],
    properties: {
      node: { type: 'string', description: 'The id of the node it happened in.' },
      path: {
        type: 'array',
        items: text,
        description: "Inside a sub-flow: the Ref nodes' names from the test case down, then the node's.",
      },
      assertion: text,
      operator: text,
      expected: {},
      actual: {},
      message: text,
      errorCode: {
        type: 'string',
        description: 'A node error\'s stable code, as the node\'s result has it (docs/flows.md "Error codes").',
        examples: NODE_ERROR_CODE_EXAMPLES,
      },
    },
  },
  RunResults: {
    type: 'object',
    required: ['runId', 'status', 'runner', 'environment', 'summary', 'details', 'links'],
    properties: {
      runId: id('run'),
      status: { enum: [...RUN_STATUSES] },
      runner: {
        type: ['string', 'null'],
        description: "The runner's name; null for a debug run (trigger `debug`), which has none.",
      },
      environment: text,
      result: { enum: ['passed', 'failed'] },
      summary: { $ref: '#/components/schemas/RunSummary' },
      duration: { type: 'number', description: 'Milliseconds.' },
      completedAt: timestamp,
      error: { type: ['string', 'null'] },
      context: { type: 'object' },
      details: {
        type: 'object',
        required: ['testCases'],
        properties: {
          testCases: {
            type: 'array',
            description: 'One result per test case, in run order, stored as each ends (docs/api.md "Results").',
            items: {
              type: 'object',
              required: ['testCaseId', 'name', 'status'],
              properties: {
                testCaseId: text,
                name: text,
                testCaseVersion: {
                  type: ['integer', 'null'],
                  description:
                    'The saved version of the test case that ran (its `version` when the run started; GET /v1/test-cases/{testCaseId}/versions/{version}, docs/teams.md "Versions"); null for runs started before versions were recorded and for debug runs.',
                },
                folder: text,
                status: { enum: ['passed', 'failed', 'skipped'] },
                duration: { type: 'number' },
                assertions: { type: 'integer' },
                passedAssertions: { type: 'integer' },
                failures: { type: 'array', items: { $ref: '#/components/schemas/TestCaseFailure' } },
                nodes: { type: 'array', items: { $ref: '#/components/schemas/NodeResult' } },
                error: text,
                flaky: {
                  type: 'object',
                  description:
                    'Present when the flakiness rule flags the test case on this runner and environment after this run (docs/history.md "Flaky tests").',
                  required: ['flips', 'window', 'flipRate'],
                  properties: FLIP_FIGURES,
                },
                flakyNodes: {
                  type: 'array',
                  description:
                    'The nodes whose own outcomes the flakiness rule flags on this runner and environment (ids as in the history, `ref › id` inside sub-flows; docs/history.md "Flaky nodes").',
                  items: {
                    type: 'object',
                    required: ['id', 'flips', 'window', 'flipRate'],
                    properties: { id: text, ...FLIP_FIGURES },
                  },
                },
                quarantined: {
                  type: 'boolean',
                  description:
                    'True when it failed but the runner quarantines flaky test cases and it was flagged when the run started: it did not fail the run (docs/history.md "Quarantine").',
                },
                attempts: {
                  type: 'integer',
                  minimum: 2,
                  description:
                    'How many times the test case\'s work was started, when more than once: with `durability: testCase`, a segment run again after a worker died (docs/durability.md "What a crash repeats"). Absent when it ran once.',
                },
              },
            },
          },
        },
      },
      performance: {
        type: 'object',
        description:
          'A performance run\'s figures (docs/performance.md "Results"); while it runs also `state` (`running`, `paused`, `stopping`), `scaleBy` (`vus` or `rate`: what `scale` takes) and `control.commands` ("Steering a running test").',
      },
      links: { $ref: '#/components/schemas/RunLinks' },
    },
  },
  LoadControl: {
    type: 'object',
    description:
      'A performance run\'s live control state (docs/performance.md "Steering a running test"): absolute, as the shards apply it.',
    required: ['seq', 'paused', 'stopped', 'commands'],
    properties: {
      seq: { type: 'integer', minimum: 0, description: "The last command's number (0: none)." },
      paused: { type: 'boolean' },
      stopped: { type: 'boolean', description: 'Stop commanded (or a threshold aborted): the load drains and ends.' },
      vus: { type: 'integer', description: 'Scaled VU target held to the end of the profile.' },
      rate: { type: 'number', description: "Scaled arrival rate per the profile's `timeUnit`, held to the end." },
      abort: { type: 'object', description: 'The threshold with `abortOnFail` that stopped the run.' },
      commands: {
        type: 'array',
        description: 'Who changed what and when, oldest first (at most 200).',
        items: {
          type: 'object',
          required: ['seq', 'action', 'by', 'at'],
          properties: {
            seq: { type: 'integer' },
            action: { enum: ['pause', 'resume', 'scale', 'stop'] },
            vus: { type: 'integer' },
            rate: { type: 'number' },
            reason: { type: 'string' },
            by: { type: 'string', description: '`key:<api key name>`, or `threshold` for an abort.' },
            at: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
  },
  RunControlled: {
    type: 'object',
    required: ['runId', 'control'],
    properties: { runId: id('run'), control: { $ref: '#/components/schemas/LoadControl' } },
  },
  RunCancelled: {
    type: 'object',
    required: ['runId', 'status', 'cancelRequested'],
    properties: { runId: id('run'), status: { enum: [...RUN_STATUSES] }, cancelRequested: { const: true } },
  },
  Delivery: {
    type: 'object',
    required: [
      'id',
      'event',
      'position',
      'url',
      'method',
      'status',
      'attempts',
      'lastStatusCode',
      'lastError',
      'createdAt',
      'updatedAt',
    ],
    properties: {
      id: id('dlv'),
      event: { enum: ['onComplete', 'onFailure'] },
      position: { type: 'integer' },
      url: text,
      method: text,
      status: { enum: ['pending', 'delivered', 'failed'] },
      attempts: { type: 'integer' },
      lastStatusCode: { type: ['integer', 'null'] },
      lastError: { type: ['string', 'null'] },
      deliveredAt: timestamp,
      createdAt: timestamp,
      updatedAt: timestamp,
    },
  },
  Library: {
    type: 'object',
    required: ['global', 'name', 'package', 'version', 'kind', 'url', 'size', 'sha256'],
    properties: {
      global: { type: 'string', description: 'The global a script sees it as.' },
      name: text,
      package: text,
      version: text,
      kind: text,
      url: { type: 'string', description: "The stable URL to list in a script's `libs`." },
      size: { type: 'integer', description: 'Bytes.' },
      sha256: text,
    },
  },
  OutgoingWebhook: {
    type: 'object',
    required: ['url'],
    properties: {
      url: text,
      method: text,
      headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'Values answered as `"***"`.' },
      payload: { description: 'A JSON template (docs/deployments.md).' },
    },
  },
  Deployment: {
    type: 'object',
    required: [
      'id',
      'name',
      'runner',
      'environment',
      'schedule',
      'timezone',
      'enabled',
      'scheduleState',
      'webhookEnabled',
      'webhookRequireAuth',
      'webhooks',
      'loadProfile',
      'durability',
      'concurrency',
      'bail',
      'originLimits',
      'createdAt',
      'updatedAt',
    ],
    properties: {
      id: id('dep'),
      name: text,
      runner: text,
      environment: text,
      schedule: { type: ['string', 'null'], description: 'Five-field cron expression.' },
      timezone: text,
      enabled: { type: 'boolean' },
      scheduleState: {
        type: 'object',
        required: ['status'],
        properties: {
          status: { enum: ['none', 'pending', 'active', 'paused'] },
          scheduleId: text,
          nextRunTimes: { type: 'array', items: timestamp },
          error: text,
        },
      },
      webhookEnabled: { type: 'boolean' },
      webhookRequireAuth: { type: 'boolean' },
      webhookUrl: { type: 'string', description: 'The incoming webhook address, while `webhookEnabled`.' },
      webhooks: {
        type: 'object',
        properties: {
          onComplete: { type: 'array', items: { $ref: '#/components/schemas/OutgoingWebhook' } },
          onFailure: { type: 'array', items: { $ref: '#/components/schemas/OutgoingWebhook' } },
        },
      },
      loadProfile,
      baseline: { ...BASELINE, description: `${BASELINE.description} Over the runner's when set.` },
      durability: {
        enum: [...DURABILITIES, null],
        description:
          "Its runs' durability mode over the runner's (docs/durability.md \"Durability modes\"): `node` or `testCase`; null: the runner's.",
      },
      ...NULLABLE_PARALLEL_FIELDS,
      webhookToken: {
        type: 'string',
        description: 'Shown once, when made (create with `webhookEnabled`, rotate-webhook).',
      },
      signingSecret: {
        type: 'string',
        description: 'Shown once, when made by Assay (create without one, rotate-signing-secret).',
      },
      createdAt: timestamp,
      updatedAt: timestamp,
    },
  },
  Design: {
    type: 'object',
    required: [
      'id',
      'method',
      'path',
      'name',
      'description',
      'requestSchema',
      'responseSchemas',
      'responses',
      'mockUrl',
      'createdAt',
      'updatedAt',
    ],
    properties: {
      id: id('dsg'),
      method: { enum: [...HTTP_METHODS] },
      path: text,
      name: text,
      description: text,
      requestSchema: { type: ['object', 'null'] },
      responseSchemas: { type: ['object', 'null'] },
      responses: {
        type: 'array',
        items: {
          type: 'object',
          required: ['status', 'code'],
          properties: {
            status: { type: 'integer' },
            code: { type: 'integer' },
            name: text,
            data: {},
            headers: { type: 'object' },
            delayMs: { type: 'integer' },
            dynamic: { type: 'boolean' },
            schema: { type: 'object' },
            delay: {
              ...DESIGN_SCHEMAS.full.properties.delay,
              description: 'A latency distribution (docs/mocks.md "Latency and faults").',
            },
            state: {
              ...DESIGN_SCHEMAS.full.properties.responses.items.properties.state,
              description: 'Reads and writes a data collection (docs/mocks.md "State responses").',
            },
          },
        },
      },
      validateRequests: {
        type: 'boolean',
        description:
          'Answer 422 `mock-request-invalid` to requests breaking `requestSchema`/`parameters` (absent: on).',
      },
      requestBodyRequired: {
        type: 'boolean',
        description: 'A request without a body breaks the contract (absent: POST, PUT, PATCH).',
      },
      validateResponses: {
        type: 'boolean',
        description: "Responses' data were checked against their schemas when saved.",
      },
      parameters: DESIGN_SCHEMAS.full.properties.parameters,
      delay: DESIGN_SCHEMAS.full.properties.delay,
      faults: DESIGN_SCHEMAS.full.properties.faults,
      seed: { type: 'integer', description: "Seed of the design's random source (faults, delays)." },
      mockUrl: {
        type: ['string', 'null'],
        description:
          "`{base_url}/mock/{workspaceId}{path}` once the design has responses; `{base_url}` is the mocks' own port when one is configured (`ASSAY_MOCK_PORT`, `ASSAY_MOCK_PUBLIC_URL`), the address runs may call.",
      },
      createdAt: timestamp,
      updatedAt: timestamp,
    },
  },
  DesignImport: {
    type: 'object',
    required: ['created', 'skipped', 'warnings'],
    properties: {
      title: text,
      created: { type: 'array', items: { $ref: '#/components/schemas/Design' } },
      skipped: {
        type: 'array',
        description:
          'Operations not imported, and why: a route already designed (without `?replace=true`), a second operation on one route, no response with a status code, or a design the checks of `POST /v1/designs` refuse even normalised (`validation-failed: requestSchema is too large to check (over 20000 subschemas)`, a pattern that is no regular expression). The other operations are imported.',
        items: { type: 'object', required: ['operation', 'reason'], properties: { operation: text, reason: text } },
      },
      warnings: {
        type: 'array',
        description:
          'Imported with something to know (`operation` is `GET /pets 200`): an example that breaks its own schema (served with the failing values made to match), a schema no sample could satisfy, a sample cut to the required properties.',
        items: { type: 'object', required: ['operation', 'reason'], properties: { operation: text, reason: text } },
      },
      normalised: {
        type: 'array',
        description:
          'Imported after a schema was rewritten to what it means (docs/import-openapi.md "What is normalised, what is skipped and why"): OpenAPI 3.0\'s boolean `exclusiveMinimum`/`exclusiveMaximum` made numeric, duplicate `enum`/`required` items removed, examples holding an `$id` left out, patterns read without ECMA-262\'s `u` flag. `change` names the design field and the subschema.',
        items: { type: 'object', required: ['operation', 'change'], properties: { operation: text, change: text } },
      },
    },
  },
  MockCollection: {
    type: 'object',
    required: [
      'id',
      'name',
      'basePath',
      'idField',
      'seedFrom',
      'seedCount',
      'records',
      'mockUrl',
      'createdAt',
      'updatedAt',
    ],
    properties: {
      id: id('mcol'),
      name: {
        type: 'string',
        description: '`^[a-z][a-z0-9_-]{0,62}$`, unique in the workspace: what state responses name.',
      },
      basePath: {
        type: ['string', 'null'],
        description:
          'Where CRUD routes are generated (`/users`: GET/POST `/users`, GET/PUT/PATCH/DELETE `/users/{id}`); null: none.',
      },
      idField: { type: 'string', description: "The records' id field (default `id`)." },
      seedFrom: {
        type: ['object', 'null'],
        description: 'The design whose response schema the seed was sampled from.',
        properties: { designId: text, status: { type: 'integer' }, count: { type: 'integer' } },
      },
      seedCount: { type: 'integer', description: 'Records in the seed.' },
      records: { type: 'integer', description: 'Records in the shared state (requests without a scope).' },
      mockUrl: {
        type: 'string',
        description: "The generated routes' address (`{base_url}/mock/{workspaceId}{basePath}`).",
      },
      createdAt: timestamp,
      updatedAt: timestamp,
    },
  },
  MockSettings: {
    type: 'object',
    required: ['proxy', 'seed'],
    properties: {
      proxy: {
        type: ['object', 'null'],
        description:
          'The validation and recording proxy: every mock request is forwarded to `url` (path and query appended). `validate` lists contract violations in the journal; `record` records the answers as designs (docs/mocks.md "Proxy: validate and record"). null: off.',
        required: ['url', 'mode'],
        properties: { url: text, mode: { enum: ['validate', 'record'] } },
      },
      seed: { type: ['integer', 'null'], description: 'Seed of the random source of designs without their own.' },
    },
  },
  MockSample: {
    type: 'object',
    required: ['mode', 'data'],
    properties: { mode: { enum: ['fast', 'ai'] }, data: { description: 'Sample data valid against the schema.' } },
  },
  RelayResponse: {
    type: 'object',
    required: ['status', 'statusText', 'headers', 'body', 'bodyEncoding', 'timeMs', 'size', 'truncated'],
    properties: {
      status: { type: 'integer' },
      statusText: text,
      headers: { type: 'array', items: { type: 'array', minItems: 2, maxItems: 2, items: text } },
      body: text,
      bodyEncoding: { enum: ['utf8', 'base64'] },
      timeMs: { type: 'number' },
      size: { type: 'integer' },
      truncated: { type: 'boolean' },
      contentEncoding: {
        type: 'string',
        description:
          'The content codings `body` was decoded from (`gzip`, `deflate`, `br`), as the response listed them; absent when nothing was decoded.',
      },
    },
  },
} satisfies Record<string, JsonSchema>;

/** A problem+json example of `code` (api/problem.ts builds the same document). */
export function problemExample(
  code: ProblemCode,
  detail: string,
  extras: Record<string, unknown> = {},
): Record<string, unknown> {
  return problemDocument(code, detail, extras, 'urn:assay:request:6f1c2a9e-0b7d-4e55-9a51-3c1d8e0f2b44');
}

/** A response of problems: `application/problem+json` with the given examples. */
function problemResponse(description: string, examples: Record<string, { summary: string; value: unknown }>) {
  return {
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, examples } },
  };
}

/** The shared problem responses, by name (`#/components/responses/<name>`). */
export const RESPONSES = {
  BadRequest: problemResponse(
    'Invalid input: `validation-failed` (with `errors` naming each field), `malformed-json`, `invalid-query`, `bad-cursor`, `too-deep`, `invalid-header`.',
    {
      validation: {
        summary: 'A field is invalid',
        value: problemExample('validation-failed', 'name: must match pattern "^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$"', {
          errors: [
            { field: 'name', pointer: '#/name', detail: 'must match pattern "^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$"' },
          ],
        }),
      },
    },
  ),
  Unauthorized: problemResponse(
    'No API key, a malformed `Authorization` header, or an unknown or revoked key (`unauthorized`, with `WWW-Authenticate`).',
    {
      unauthorized: {
        summary: 'No key',
        value: problemExample('unauthorized', 'Missing Authorization header; send `Authorization: Bearer <API_KEY>`.'),
      },
    },
  ),
  Forbidden: problemResponse("The key's scope is too small (`forbidden`; `scopeNeeded` names the scope needed).", {
    forbidden: {
      summary: 'A read key',
      value: problemExample('forbidden', 'POST /v1/runs needs an API key with scope "run"; this key has "read".', {
        scopeNeeded: 'run',
      }),
    },
  }),
  NotFound: problemResponse('No such record in the workspace of the key (`not-found`).', {
    notFound: {
      summary: 'Unknown record',
      value: problemExample('not-found', 'Run "run_01JD0000000000000000000000" does not exist.'),
    },
  }),
  Conflict: problemResponse(
    'The request conflicts with what is stored: `name-taken`, `route-taken`, `run-finished`, `run-active` (a run queued or running deleted, rerun, replayed or resumed), `deployment-disabled`, `in-use`, `test-case-referenced`, `test-case-changed` (an `If-Match` that no longer names the stored version; `version`, `updatedAt`).',
    {
      nameTaken: {
        summary: 'Name taken',
        value: problemExample('name-taken', 'Environment "staging" already exists in this workspace.', {
          errors: [{ field: 'name', pointer: '#/name', detail: 'is already taken' }],
        }),
      },
      testCaseChanged: {
        summary: 'Saved meanwhile by someone else',
        value: problemExample(
          'test-case-changed',
          'Test case "get user" was changed since you read it: it is at version 4 (updated 2026-11-20T09:31:12.000Z), your If-Match names "3". Nothing was stored: reload it (GET /v1/test-cases/tc_01JD7Q4Z8K2M3N4P5Q6R7S8T9V) and apply your change again.',
          { testCaseId: 'tc_01JD7Q4Z8K2M3N4P5Q6R7S8T9V', version: 4, updatedAt: '2026-11-20T09:31:12.000Z' },
        ),
      },
    },
  ),
  Unprocessable: problemResponse(
    'The body is valid but refers to what does not exist or exceeds a quota: `unknown-reference`, `idempotency-key-reused`, `loop-iterations-exceeded`, `runner-selects-nothing`, `server-missing`, `sample-too-large`, `invalid-sub-flow`, `nothing-to-rerun`, `not-resumable`, `plan-unavailable`.',
    {
      unknownReference: {
        summary: 'Unknown runner',
        value: problemExample('unknown-reference', 'runner: runner "nightly" does not exist', {
          errors: [{ field: 'runner', pointer: '#/runner', detail: 'runner "nightly" does not exist' }],
        }),
      },
    },
  ),
  UnsupportedMediaType: problemResponse('The body is not JSON (`unsupported-media-type`).', {
    notJson: {
      summary: 'Form body',
      value: problemExample(
        'unsupported-media-type',
        'Request bodies must be JSON (Content-Type: application/json), not "application/x-www-form-urlencoded".',
      ),
    },
  }),
  TooManyRequests: problemResponse(
    'Rate limit (`rate-limited`, `auth-rate-limited`) or run quota (`quota-exceeded`): `Retry-After` says when to retry; or the file quota (`quota-exceeded` with `quota: "file-bytes"`, no `Retry-After`: delete files to make room).',
    {
      rateLimited: {
        summary: 'Over the per-key limit',
        value: problemExample('rate-limited', 'Rate limit of 1200 requests per minute exceeded; retry in 12 s.', {
          retryAfter: 12,
        }),
      },
    },
  ),
  BadGateway: problemResponse(
    'Something Assay called for the request failed: `relay-failed` (no complete response; `errorCode` says why), `ai-failed`.',
    {
      relayFailed: {
        summary: 'Nothing listens there',
        value: problemExample(
          'relay-failed',
          'ECONNREFUSED: the connection was refused (nothing listens at that address and port).',
          { errorCode: 'ECONNREFUSED' },
        ),
      },
    },
  ),
  Gone: problemResponse(
    "What the address belonged to has ended: `callback-run-ended` (the run of a Callback node's address completed or failed; nothing was recorded).",
    {
      runEnded: {
        summary: 'The run ended',
        value: problemExample(
          'callback-run-ended',
          'Run run_01JD0000000000000000000000 has ended: nothing waits for this callback any more.',
          { runId: 'run_01JD0000000000000000000000' },
        ),
      },
    },
  ),
  PayloadTooLarge: problemResponse(
    'The body exceeds the size limit (`payload-too-large`; an uploaded file: `file-too-large`; `limit` in bytes).',
    {
      tooLarge: {
        summary: 'Over ASSAY_MAX_BODY_BYTES',
        value: problemExample(
          'payload-too-large',
          "The callback's body exceeds 1048576 bytes (ASSAY_MAX_BODY_BYTES).",
          {
            limit: 1048576,
          },
        ),
      },
      fileTooLarge: {
        summary: 'Over ASSAY_FILE_MAX_BYTES',
        value: problemExample(
          'file-too-large',
          'The file is larger than 10485760 bytes, the largest this server stores (ASSAY_FILE_MAX_BYTES). Nothing was stored.',
          { limit: 10485760 },
        ),
      },
    },
  ),
  ServiceUnavailable: problemResponse(
    'The database or Temporal cannot be reached, or the database did not answer within its bounds (`database-unavailable`, `temporal-unavailable`); retry after `Retry-After`. Nothing was changed, except that a write the database did not answer in time may still be applied when it resumes.',
    {
      database: {
        summary: 'Database down',
        value: problemExample(
          'database-unavailable',
          'The database cannot be reached right now; nothing was changed. Retry in 5 s.',
          { retryAfter: 5 },
        ),
      },
    },
  ),
} as const;

/** Names of {@link RESPONSES}. */
export type ProblemResponseName = keyof typeof RESPONSES;

/** Status code of each shared problem response. */
export const PROBLEM_STATUS: Record<ProblemResponseName, string> = {
  BadRequest: '400',
  Unauthorized: '401',
  Forbidden: '403',
  NotFound: '404',
  Conflict: '409',
  Unprocessable: '422',
  UnsupportedMediaType: '415',
  TooManyRequests: '429',
  BadGateway: '502',
  ServiceUnavailable: '503',
  Gone: '410',
  PayloadTooLarge: '413',
};
