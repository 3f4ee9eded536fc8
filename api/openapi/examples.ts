/**
 * The examples of Assay's OpenAPI document: request bodies (each accepted by the real API, in the
 * order test/integration/api/openapi-document.test.ts sends them: an environment, a test case, a runner
 * that selects it, a run, a deployment, designs) and answers (each valid against its response
 * schema, api/openapi/components.ts). One story: the `smoke` runner on the `staging` environment.
 */

/** An example of the document: a one-line summary and the value. */
export interface Example {
  summary: string;
  value: unknown;
}

const ULID = '01JD7Q4Z8K2M3N4P5Q6R7S8T9V';
const AT = '2026-11-20T09:30:00.000Z';
const LATER = '2026-11-20T09:30:04.512Z';
const ids = {
  env: `env_${ULID}`,
  tc: `tc_${ULID}`,
  rnr: `rnr_${ULID}`,
  run: `run_${ULID}`,
  dep: `dep_${ULID}`,
  dsg: `dsg_${ULID}`,
  dlv: `dlv_${ULID}`,
  ws: `ws_${ULID}`,
  key: `key_${ULID}`,
};
const BASE = 'https://assay.example.com';

const flow = [
  {
    type: 'api',
    id: 'getUser',
    name: 'Get user 1',
    request: { method: 'GET', url: '{{base}}/users/1', headers: { Authorization: 'Bearer {{token}}' } },
    assertions: [
      { target: 'response.status', operator: 'equals', expected: 200 },
      { target: 'response.body.name', operator: 'exists' },
    ],
  },
];

/** Request body examples, by operation id. */
export const REQUEST_EXAMPLES: Record<string, Record<string, Example>> = {
  createEnvironment: {
    staging: {
      summary: 'An environment with a secret',
      value: {
        name: 'staging',
        description: 'The staging stack',
        variables: { base: 'https://staging.example.com', retries: 3, token: { value: 's3cr3t-token', secret: true } },
        servers: { users: 'https://users.staging.example.com/api' },
      },
    },
  },
  createAuthProfile: {
    clientCredentials: {
      summary: 'An OAuth 2.0 client credentials profile (the client secret is stored sealed, answered "***")',
      value: {
        name: 'orders-api',
        description: 'Machine-to-machine token for the orders API',
        type: 'oauth2',
        config: {
          grant: 'client_credentials',
          tokenUrl: '{{authUrl}}/oauth/token',
          clientId: 'assay-tests',
          clientSecret: 'example-client-secret',
          scopes: ['orders:read', 'orders:write'],
          audience: 'https://orders.example.com',
        },
      },
    },
  },
  replaceAuthProfile: {
    keepSecret: {
      summary: 'Replace the profile, keeping the stored client secret',
      value: {
        type: 'oauth2',
        config: {
          grant: 'client_credentials',
          tokenUrl: '{{authUrl}}/oauth/token',
          clientId: 'assay-tests',
          clientSecret: '***',
          scopes: ['orders:read'],
          clientAuthentication: 'body',
        },
      },
    },
  },
  fetchAuthProfileToken: {
    staging: { summary: "A token with the staging environment's variables", value: { environment: 'staging' } },
  },
  replaceEnvironment: {
    keepSecret: {
      summary: 'Replace the variables, keeping the stored secret',
      value: {
        description: 'The staging stack',
        variables: { base: 'https://staging.example.com', retries: 3, token: { secret: true, value: '***' } },
        servers: { users: 'https://users.staging.example.com/api' },
      },
    },
  },
  updateEnvironment: {
    mergePatch: {
      summary: 'Set one variable, remove another (JSON Merge Patch)',
      value: { variables: { retries: 5, oldFlag: null } },
    },
  },
  replaceFolder: {
    hooks: {
      summary: 'Hooks for every test case under `users`',
      value: {
        hooks: {
          code: "function beforeRequest() { $request.headers['x-suite'] = 'users'; }\nfunction afterResponse() { $test('answers', () => { if (!$response.status) throw new Error('no status'); }); }",
        },
        authProfile: null,
      },
    },
  },
  createTestCase: {
    getUser: {
      summary: 'One API node with two assertions',
      value: { name: 'get user', folder: 'users', description: 'Reads user 1', tags: ['smoke'], flow },
    },
  },
  replaceTestCase: {
    getUser: {
      summary: 'The whole test case again',
      value: { name: 'get user', folder: 'users', description: 'Reads user 1 with a token', tags: ['smoke'], flow },
    },
  },
  updateTestCase: {
    tags: { summary: 'Change the tags only', value: { tags: ['smoke', 'users'] } },
  },
  validateTestCase: {
    getUser: {
      summary: 'A test case as the designer holds it, checked without saving',
      value: { name: 'get user', folder: 'users', tags: ['smoke'], flow },
    },
  },
  debugTestCase: {
    getUser: {
      summary: 'Run a draft of a test case on staging, 60 s at most',
      value: {
        testCase: { name: 'get user', folder: 'users', tags: ['smoke'], flow },
        environment: 'staging',
        variables: { build: '1.4.2' },
        timeout: 60,
      },
    },
  },
  createRunner: {
    smoke: {
      summary: 'Every test case in folder users tagged smoke',
      value: { name: 'smoke', description: 'Smoke tests', folder: 'users', tags: ['smoke'], order: 'name' },
    },
  },
  replaceRunner: {
    smoke: {
      summary: 'The whole runner again',
      value: {
        name: 'smoke',
        description: 'Smoke tests of the users API',
        folder: 'users',
        tags: ['smoke'],
        order: 'name',
      },
    },
  },
  updateRunner: {
    order: { summary: 'Run in creation order', value: { order: 'createdAt' } },
  },
  controlRun: {
    pause: { summary: 'Pause the load', value: { action: 'pause', reason: 'deploying the database' } },
    scale: { summary: 'Scale to 50 VUs from now to the end', value: { action: 'scale', vus: 50 } },
  },
  startRun: {
    smoke: {
      summary: 'Run smoke on staging with a build number',
      value: { runner: 'smoke', environment: 'staging', timeout: 600, variables: { build: '1.4.2' } },
    },
  },
  createDeployment: {
    nightly: {
      summary: 'Every night at 02:00 Berlin time, with an incoming webhook and a failure hook',
      value: {
        name: 'staging-nightly',
        runner: 'smoke',
        environment: 'staging',
        schedule: '0 2 * * *',
        timezone: 'Europe/Berlin',
        webhookEnabled: true,
        webhooks: {
          onFailure: [{ url: 'https://hooks.example.com/assay', method: 'POST', headers: { 'X-Team': 'users' } }],
        },
      },
    },
  },
  updateDeployment: {
    weekdays: { summary: 'Move the schedule to weekday mornings', value: { schedule: '30 6 * * 1-5' } },
  },
  createDesign: {
    getUser: {
      summary: 'A mocked GET /users/{id} with two answers',
      value: {
        method: 'GET',
        path: '/users/{id}',
        name: 'Get a user',
        responses: [
          { status: 200, code: 1, name: 'Ada', data: { id: 1, name: 'Ada Lovelace' } },
          { status: 404, code: 1, name: 'unknown', data: { error: 'not found' } },
        ],
      },
    },
  },
  createMockCollection: {
    users: {
      summary: 'Users with CRUD routes on /users, seeded with two records',
      value: {
        name: 'users',
        basePath: '/users',
        seed: [
          { id: 1, name: 'Ada' },
          { id: 2, name: 'Grace' },
        ],
      },
    },
  },
  replaceMockCollection: {
    renamed: {
      summary: 'The same records under /people',
      value: { name: 'users', basePath: '/people', seed: [{ id: 1, name: 'Ada' }] },
    },
  },
  updateMockCollection: {
    basePath: { summary: 'Move the CRUD routes', value: { basePath: '/members' } },
  },
  replaceDesign: {
    getUser: {
      summary: 'The whole design again',
      value: {
        method: 'GET',
        path: '/users/{id}',
        name: 'Get a user',
        responses: [{ status: 200, code: 1, name: 'Grace', data: { id: 1, name: 'Grace Hopper' } }],
      },
    },
  },
  updateDesign: {
    delay: { summary: 'Rename it', value: { name: 'Get one user' } },
  },
  importDesigns: {
    yaml: {
      summary: 'An OpenAPI document as YAML text',
      value: {
        document:
          'openapi: 3.0.3\ninfo: {title: Pets, version: "1"}\npaths:\n  /pets:\n    get:\n      responses:\n        "200":\n          description: the pets\n          content:\n            application/json:\n              schema: {type: array, items: {type: object, properties: {name: {type: string}}}}\n',
      },
    },
  },
  putMockSettings: {
    record: {
      summary: 'Record what a real service answers',
      value: { proxy: { url: 'https://api.example.com/v2', mode: 'record' }, seed: 42 },
    },
    off: { summary: 'Proxy off (serve the designs)', value: { proxy: null } },
  },
  sampleFromSchema: {
    fast: {
      summary: 'Sample data for a schema',
      value: {
        schema: {
          type: 'object',
          required: ['id', 'email'],
          properties: { id: { type: 'integer' }, email: { type: 'string', format: 'email' } },
        },
        mode: 'fast',
      },
    },
  },
  relayRequest: {
    get: {
      summary: 'A GET with one header',
      value: {
        method: 'GET',
        url: 'http://localhost:3000/health',
        headers: [['Accept', 'application/json']],
        timeoutMs: 5000,
      },
    },
  },
  callDeploymentWebhook: {
    ci: {
      summary: 'A CI pipeline after deploying build 1.4.2',
      value: {
        trigger: 'github-actions',
        version: '1.4.2',
        variables: { build: '1.4.2' },
        metadata: { commit: 'a1b2c3d', branch: 'main' },
      },
    },
  },
};

const environment = {
  id: ids.env,
  name: 'staging',
  description: 'The staging stack',
  variables: { base: 'https://staging.example.com', retries: 3, token: { secret: true, value: '***' } },
  servers: { users: 'https://users.staging.example.com/api' },
  createdAt: AT,
  updatedAt: AT,
};
const testCase = {
  id: ids.tc,
  name: 'get user',
  folder: 'users',
  description: 'Reads user 1',
  tags: ['smoke'],
  flow,
  dataSets: [],
  authProfile: null,
  reusable: false,
  version: 3,
  createdAt: AT,
  updatedAt: AT,
};
const folder = {
  id: `fld_${ULID}`,
  path: 'users',
  hooks: {
    code: "function beforeRequest() { $request.headers['x-suite'] = 'users'; }",
  },
  authProfile: null,
  createdAt: AT,
  updatedAt: AT,
};
const file = {
  id: `file_${ULID}`,
  name: 'fixtures/avatar.png',
  contentType: 'image/png',
  size: 5120,
  sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  createdAt: AT,
  updatedAt: AT,
};
const runner = {
  id: ids.rnr,
  name: 'smoke',
  description: 'Smoke tests',
  testCaseIds: [],
  folder: 'users',
  tags: ['smoke'],
  order: 'name',
  loadProfile: null,
  variableScope: 'testCase',
  durability: 'node',
  concurrency: 1,
  bail: 0,
  originLimits: null,
  createdAt: AT,
  updatedAt: AT,
};
const links = {
  self: `/v1/runs/${ids.run}`,
  results: `/v1/runs/${ids.run}/results`,
  temporal: `http://localhost:8233/namespaces/default/workflows/run-${ids.run}`,
};
const runStarted = { runId: ids.run, status: 'queued', runner: 'smoke', environment: 'staging', createdAt: AT, links };
const runCompleted = {
  runId: ids.run,
  status: 'completed',
  runner: 'smoke',
  environment: 'staging',
  trigger: 'api',
  durability: 'node',
  concurrency: 4,
  bail: 0,
  originLimits: null,
  timeout: 600,
  variables: { build: '1.4.2' },
  createdAt: AT,
  startedAt: AT,
  result: 'passed',
  summary: { total: 1, passed: 1, failed: 0, skipped: 0 },
  duration: 4512,
  completedAt: LATER,
  links,
};
const runRunning = {
  ...runCompleted,
  status: 'running',
  result: undefined,
  summary: undefined,
  duration: undefined,
  completedAt: undefined,
  progress: { completed: 3, total: 10, percentage: 30, running: 4 },
  estimatedCompletion: LATER,
};
const debugRun = {
  runId: ids.run,
  status: 'queued',
  runner: null,
  environment: 'staging',
  trigger: 'debug',
  durability: 'node',
  timeout: 60,
  variables: { build: '1.4.2' },
  createdAt: AT,
  testCaseId: ids.tc,
  links,
};
const runFromWorkflow = {
  runId: ids.run,
  status: 'running',
  source: 'workflow',
  storeUnavailable: true,
  runner: 'smoke',
  environment: 'staging',
  trigger: 'api',
  startedAt: AT,
  progress: { completed: 3, total: 10, percentage: 30 },
  estimatedCompletion: LATER,
  links,
};
const deployment = {
  id: ids.dep,
  name: 'staging-nightly',
  runner: 'smoke',
  environment: 'staging',
  schedule: '0 2 * * *',
  timezone: 'Europe/Berlin',
  enabled: true,
  scheduleState: {
    status: 'active',
    scheduleId: `assay-deployment-${ids.dep}`,
    nextRunTimes: ['2026-11-21T01:00:00.000Z', '2026-11-22T01:00:00.000Z'],
  },
  webhookEnabled: true,
  webhookRequireAuth: true,
  webhookUrl: `${BASE}/webhooks/deploy/wh_4f0c9d2e7a1b`,
  webhooks: {
    onComplete: [],
    onFailure: [{ url: 'https://hooks.example.com/assay', method: 'POST', headers: { 'X-Team': '***' } }],
  },
  loadProfile: null,
  durability: null,
  concurrency: null,
  bail: null,
  originLimits: null,
  createdAt: AT,
  updatedAt: AT,
};
const design = {
  id: ids.dsg,
  method: 'GET',
  path: '/users/{id}',
  name: 'Get a user',
  description: '',
  requestSchema: null,
  responseSchemas: null,
  responses: [{ status: 200, code: 1, name: 'Ada', data: { id: 1, name: 'Ada Lovelace' } }],
  mockUrl: `${BASE}/mock/${ids.ws}/users/{id}`,
  createdAt: AT,
  updatedAt: AT,
};

const mockCollection = {
  id: `mcol_${ULID}`,
  name: 'users',
  basePath: '/users',
  idField: 'id',
  seedFrom: null,
  seedCount: 2,
  records: 2,
  mockUrl: `${BASE}/mock/${ids.ws}/users`,
  createdAt: AT,
  updatedAt: AT,
};

/** Drops the members set to undefined (JSON has none). */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Answer examples, by name (operations pick theirs in api/openapi/operations.ts). */
export const RESPONSE_EXAMPLES = {
  workspaces: {
    summary: "The key's workspace",
    value: {
      items: [
        {
          id: ids.ws,
          name: 'default',
          createdAt: AT,
          current: true,
          key: { id: ids.key, name: 'ci', prefix: 'ak_7Hq2', scope: 'run' },
        },
      ],
      nextCursor: null,
    },
  },
  environment: { summary: 'An environment (the secret masked)', value: environment },
  environments: { summary: 'A page of environments', value: { items: [environment], nextCursor: null } },
  testCase: { summary: 'A test case', value: testCase },
  testCases: {
    summary: 'A page of test cases',
    value: { items: [testCase], nextCursor: 'WyJ1c2VycyIsImdldCB1c2VyIl0' },
  },
  folder: { summary: 'A folder with hooks', value: folder },
  folders: { summary: 'A page of folders', value: { items: [folder], nextCursor: null } },
  file: { summary: 'An uploaded image', value: file },
  files: { summary: 'A page of files', value: { items: [file], nextCursor: null } },
  runner: { summary: 'A runner', value: runner },
  runners: { summary: 'A page of runners', value: { items: [runner], nextCursor: null } },
  runStarted: { summary: 'A run started', value: runStarted },
  debugRun: { summary: 'A debug run of a draft of test case tc_…, queued', value: debugRun },
  testCaseValid: {
    summary: 'The test case would be saved: its flow with node ids',
    value: { valid: true, flow },
  },
  runRunning: { summary: 'A run under way', value: plain(runRunning) },
  runCompleted: { summary: 'A run that passed', value: runCompleted },
  runFromWorkflow: {
    summary: 'A run under way while the database does not answer (from its workflow)',
    value: runFromWorkflow,
  },
  runs: {
    summary: 'The latest run',
    value: {
      items: [runCompleted],
      nextCursor: 'WyIyMDI2LTExLTIwVDA5OjMwOjAwLjAwMFoiLCJydW5fMDFKRDdRNFo4SzJNM040UDVRNlI3UzhUOVYiXQ',
    },
  },
  results: {
    summary: 'The results of a run that passed',
    value: {
      runId: ids.run,
      status: 'completed',
      runner: 'smoke',
      environment: 'staging',
      result: 'passed',
      summary: { total: 1, passed: 1, failed: 0, skipped: 0 },
      duration: 4512,
      completedAt: LATER,
      details: {
        testCases: [
          {
            testCaseId: ids.tc,
            name: 'get user',
            folder: 'users',
            status: 'passed',
            duration: 41.2,
            assertions: 2,
            passedAssertions: 2,
            failures: [],
            nodes: [
              {
                id: 'getUser',
                type: 'api',
                status: 'passed',
                duration: 41.2,
                request: { method: 'GET', url: 'https://staging.example.com/users/1' },
                response: { status: 200, timeMs: 41.2, size: 38, truncated: false },
              },
            ],
          },
        ],
      },
      links,
    },
  },
  resultsFailed: {
    summary: 'The results of a run that failed: a node error with its errorCode',
    value: {
      runId: ids.run,
      status: 'completed',
      runner: 'smoke',
      environment: 'staging',
      result: 'failed',
      summary: { total: 1, passed: 0, failed: 1, skipped: 0 },
      duration: 512,
      completedAt: LATER,
      details: {
        testCases: [
          {
            testCaseId: ids.tc,
            name: 'legacy redirect',
            folder: 'users',
            status: 'failed',
            duration: 12.4,
            assertions: 0,
            passedAssertions: 0,
            failures: [
              {
                node: 'legacy',
                message: 'More than 2 redirects from https://staging.example.com/old/users/1 (maxRedirects 2)',
                errorCode: 'TOO_MANY_REDIRECTS',
              },
            ],
            nodes: [
              {
                id: 'legacy',
                type: 'api',
                status: 'failed',
                duration: 12.4,
                request: { method: 'GET', url: 'https://staging.example.com/old/users/1' },
                response: { timeMs: 12.4, size: 0, truncated: false },
                error: 'More than 2 redirects from https://staging.example.com/old/users/1 (maxRedirects 2)',
                errorCode: 'TOO_MANY_REDIRECTS',
              },
            ],
          },
        ],
      },
      links,
    },
  },
  controlled: {
    summary: 'Paused',
    value: {
      runId: ids.run,
      control: {
        seq: 1,
        paused: true,
        stopped: false,
        commands: [
          {
            seq: 1,
            action: 'pause',
            reason: 'deploying the database',
            by: 'key:ci',
            at: '2026-05-04T10:15:02.000Z',
          },
        ],
      },
    },
  },
  cancelled: { summary: 'Cancellation requested', value: { runId: ids.run, status: 'running', cancelRequested: true } },
  deliveries: {
    summary: 'One delivered webhook',
    value: {
      items: [
        {
          id: ids.dlv,
          event: 'onFailure',
          position: 0,
          url: 'https://hooks.example.com/assay',
          method: 'POST',
          status: 'delivered',
          attempts: 1,
          lastStatusCode: 200,
          lastError: null,
          deliveredAt: LATER,
          createdAt: LATER,
          updatedAt: LATER,
        },
      ],
      nextCursor: null,
    },
  },
  libraries: {
    summary: 'The libraries',
    value: {
      items: [
        {
          global: '_',
          name: 'lodash',
          package: 'lodash',
          version: '4.17.21',
          kind: 'builtin',
          url: `${BASE}/libs/lodash@4.17.21.js`,
          size: 73015,
          sha256: 'b0b8bfbb4fd0b5b2a1c5c1ff5b1c2ce4d7f1ee3c5c7b0f0d6c2a3e0b9a1f4e2d',
        },
      ],
      nextCursor: null,
    },
  },
  deployment: { summary: 'A deployment', value: deployment },
  deploymentCreated: {
    summary: 'A deployment just made: its webhook token and signing secret are shown this once',
    value: { ...deployment, webhookToken: 'whk_9dQ2xV7mR4tP8sL1', signingSecret: 'whsec_Zx81kTq3Lm0pW5vY' },
  },
  deployments: { summary: 'A page of deployments', value: { items: [deployment], nextCursor: null } },
  design: { summary: 'A design', value: design },
  mockCollection: { summary: 'A data collection with CRUD routes on /users', value: mockCollection },
  mockCollections: { summary: 'A page of data collections', value: { items: [mockCollection], nextCursor: null } },
  mockRecords: {
    summary: "A page of a collection's records",
    value: {
      items: [
        { id: 1, name: 'Ada' },
        { id: 2, name: 'Grace' },
      ],
      nextCursor: null,
    },
  },
  designs: { summary: 'A page of designs', value: { items: [design], nextCursor: null } },
  designImport: {
    summary: 'One design made',
    value: {
      title: 'Pets',
      created: [{ ...design, path: '/pets', name: '', mockUrl: `${BASE}/mock/${ids.ws}/pets` }],
      skipped: [],
      warnings: [],
      normalised: [],
    },
  },
  mockSettings: {
    summary: 'The proxy validating against a staging service',
    value: { proxy: { url: 'https://staging.example.com', mode: 'validate' }, seed: null },
  },
  sample: { summary: 'Sample data', value: { mode: 'fast', data: { id: 42, email: 'user@example.com' } } },
  relay: {
    summary: 'What came back',
    value: {
      status: 200,
      statusText: 'OK',
      headers: [['Content-Type', 'application/json']],
      body: '{"status":"ok"}',
      bodyEncoding: 'utf8',
      timeMs: 12.4,
      size: 15,
      truncated: false,
    },
  },
  webhookRun: {
    summary: 'The run the call started',
    value: {
      runId: ids.run,
      status: 'queued',
      runner: 'smoke',
      environment: 'staging',
      deploymentId: ids.dep,
      createdAt: AT,
      links: { self: links.self, results: links.results },
    },
  },
} satisfies Record<string, Example>;

/** Names of {@link RESPONSE_EXAMPLES}. */
export type ResponseExampleName = keyof typeof RESPONSE_EXAMPLES;
