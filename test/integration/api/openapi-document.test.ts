/**
 * Assay's own OpenAPI document (api/openapi/*, docs/api.md "The OpenAPI
 * document"), against a real API on MariaDB and Temporal:
 *
 * - `GET /v1/openapi.json` answers without a key, and the document is valid OpenAPI 3.1
 *   (@seriousme/openapi-schema-validator, the official 3.1 schemas);
 * - the routes the real app's routers register under /v1 and /webhooks (read from their
 *   `router.stack`, never listed by hand) and the document's operations are the same set;
 * - the request body schemas in the document ARE the routes' validation schemas (same objects);
 * - every request example validates against its schema, every response example against its
 *   response schema;
 * - walking every operation once against the running API (creates with the documented examples,
 *   then reads, updates, the webhook, actions, deletes): each example body is accepted, each answer's
 *   status is one the document lists, and each answer's body validates against the documented schema;
 * - a test case's flow is a discriminated union (`FlowNode`) over every node type flow validation
 *   knows, recursive through child lists, made from validation's own schemas: it accepts the flows
 *   the API accepts (the recorded runs' flows, the examples) and refuses an unknown node type;
 * - Spectral's OpenAPI ruleset (`spectral:oas`, as `npm run lint` runs it) finds no error.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';
import { appRouters, startTestApp, type TestApp } from '../../helpers/app';
import { apiOperations } from '../../../api/openapi/operations';
import { openApiPath } from '../../../api/openapi/document';
import { Spectral, type ISpectralDiagnostic, type RulesetDefinition } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { ENVIRONMENT_SCHEMAS } from '../../../api/routes/environments';
import { DEPLOYMENT_SCHEMAS } from '../../../api/routes/deployments';
import { TEST_CASE_SCHEMAS } from '../../../api/routes/test-cases';
import { REQUEST_EXAMPLES } from '../../../api/openapi/examples';
import { DATA_SETS_SCHEMA, FLOW_SCHEMA } from '../../../api/openapi/flow';
import { NODE_TYPES, type FlowNode } from '../../../src/domain/types';
import { childLists, forEachNode } from '../../../src/flow/tree';
import { validateDataSets, validateFlow } from '../../../src/validation/flow';
import { CHILD_NODES, DATA_SET_TYPES, FLOW_NODE_TYPES, NODE_FIELDS } from '../../../src/validation/flow-schemas';
import { HISTORY_FIXTURES } from '../../helpers/temporal';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, unknown>;
    responses: Record<
      string,
      { content: Record<string, { schema: unknown; examples?: Record<string, { value: unknown }> }> }
    >;
  };
};
type Media = { schema: Record<string, unknown>; examples?: Record<string, { summary: string; value: unknown }> };
type Operation = {
  operationId: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { $ref?: string; content?: Record<string, Media> }>;
  security: unknown[];
};

/** Every operation of the document, once, in an order where each finds what it needs. */
const WALK = [
  'getOpenApiDocument',
  'listWorkspaces',
  // Sign-in with OpenID Connect off (the walk's app has none): config 200, login and callback 404, no session 401.
  'getSignInConfig',
  'startSignIn',
  'finishSignIn',
  'getSession',
  'signOut',
  'addMember',
  'listMembers',
  'getMember',
  'updateMember',
  'createKey',
  'listKeys',
  'getKey',
  'createEnvironment',
  'createAuthProfile',
  'createTestCase',
  'validateTestCase',
  'createRunner',
  'startRun',
  'debugTestCase',
  'createDeployment',
  'createDesign',
  'createMockCollection',
  'replaceFolder',
  'listFolders',
  'getFolder',
  'replaceFile',
  'listFiles',
  'getFile',
  'getFileContent',
  'importDesigns',
  'sampleFromSchema',
  'putMockSettings',
  'getMockSettings',
  'relayRequest',
  'listEnvironments',
  'getEnvironment',
  'listAuthProfiles',
  'getAuthProfile',
  'listTestCases',
  'getTestCase',
  'getTestCaseHistory',
  'listFlaky',
  'listRunners',
  'getRunner',
  'listRunnerTestCases',
  'listRuns',
  'getRun',
  'getRunResults',
  'getRunLive',
  'listRunDeliveries',
  'compareRuns',
  'compareRunWithBaseline',
  'listLibraries',
  'listDeployments',
  'getDeployment',
  'listDesigns',
  'getDesign',
  'listDesignRequests',
  'listMockRequests',
  'deleteMockRequests',
  'listMockCollections',
  'getMockCollection',
  'listMockRecords',
  'replaceEnvironment',
  'updateEnvironment',
  'replaceAuthProfile',
  'fetchAuthProfileToken',
  'replaceTestCase',
  'updateTestCase',
  'replaceRunner',
  'updateRunner',
  'updateDeployment',
  'replaceDesign',
  'updateDesign',
  'listTestCaseVersions',
  'getTestCaseVersion',
  'diffTestCaseVersions',
  'restoreTestCaseVersion',
  'listEnvironmentVersions',
  'getEnvironmentVersion',
  'diffEnvironmentVersions',
  'restoreEnvironmentVersion',
  'listRunnerVersions',
  'getRunnerVersion',
  'diffRunnerVersions',
  'restoreRunnerVersion',
  'listDesignVersions',
  'getDesignVersion',
  'diffDesignVersions',
  'restoreDesignVersion',
  'listAuthProfileVersions',
  'getAuthProfileVersion',
  'diffAuthProfileVersions',
  'restoreAuthProfileVersion',
  'replaceMockCollection',
  'updateMockCollection',
  'resetMockCollection',
  'discardMockScope',
  'callDeploymentWebhook',
  'callbackGet',
  'callbackPost',
  'callbackPut',
  'callbackPatch',
  'callbackDelete',
  'runDeployment',
  'rotateDeploymentWebhook',
  'rotateDeploymentSigningSecret',
  'controlRun',
  'cancelRun',
  'rerunRun',
  'replayRun',
  'resumeRun',
  'deleteRun',
  'revokeKey',
  'removeMember',
  'listAuditEvents',
  'exportAuditEvents',
  'deleteDesign',
  'deleteMockCollection',
  'deleteDeployment',
  'deleteRunner',
  'deleteTestCase',
  'deleteAuthProfile',
  'deleteEnvironment',
  'deleteFolder',
  'deleteFile',
];

describe('the OpenAPI document (GET /v1/openapi.json)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let doc: Doc;
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );

  /** A validator for answer schemas: JSON Schema 2020-12 (OpenAPI 3.1's dialect), `$ref`s into the document's components. */
  const answers = new Ajv2020({ strict: false, allErrors: true });
  addFormats(answers);
  function answerValidator(schema: unknown) {
    return answers.compile({ allOf: [schema], components: { schemas: doc.components.schemas } });
  }
  function expectValid(schema: unknown, value: unknown, label: string) {
    const validate = answerValidator(schema);
    expect(
      validate(value),
      `${label}: ${JSON.stringify(validate.errors)}\n${String(JSON.stringify(value)).slice(0, 2000)}`,
    ).to.equal(true);
  }

  before(async () => {
    app = await startTestApp();
    const res = await app.request('GET', '/v1/openapi.json', undefined, { key: null });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    doc = res.body as Doc;
  });
  after(async () => {
    await app?.stop();
  });

  it('is served without an API key and is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).to.equal('3.1.0');
    const result = await new Validator().validate(doc as never);
    expect(result.valid, JSON.stringify(result.errors, null, 1)).to.equal(true);
    // A broken document is refused by the same validator (the check can fail).
    const broken = structuredClone(doc) as unknown as Record<string, unknown>;
    delete broken.info;
    expect((await new Validator().validate(broken as never)).valid).to.equal(false);
  });

  it('documents exactly the routes the real app registers under /v1, /webhooks and /callbacks', () => {
    const routers = appRouters(app);
    expect(routers.length, 'routers found in the app').to.be.greaterThan(10);
    const served = new Set<string>();
    for (const router of routers) {
      for (const layer of router.stack) {
        const path = String(layer.path);
        if (!/^\/(v1|webhooks|callbacks|auth)\//.test(path)) continue;
        for (const method of layer.methods) if (method !== 'HEAD') served.add(`${method} ${openApiPath(path)}`);
      }
    }
    const documented = new Set(operations().map(({ method, path }) => `${method} ${path}`));
    expect(served.size).to.be.greaterThan(40);
    expect(
      [...served].filter((k) => !documented.has(k)),
      'routes missing from the document',
    ).to.deep.equal([]);
    expect(
      [...documented].filter((k) => !served.has(k)),
      'documented operations no route serves',
    ).to.deep.equal([]);
  });

  it("takes its request body schemas from the routes' validation (the same objects, not copies)", () => {
    const ops = apiOperations(app.config);
    const byId = (id: string) => ops.find((o) => o.operationId === id)!;
    expect(byId('createEnvironment').body!.schema).to.equal(ENVIRONMENT_SCHEMAS.create);
    expect(byId('updateDeployment').body!.schema).to.equal(DEPLOYMENT_SCHEMAS.patch);
    // A test case body: the route's fields, with flow and data sets from flow validation's schemas (api/openapi/flow.ts).
    const testCase = byId('createTestCase').body!.schema as { properties: Record<string, unknown> };
    expect(testCase.properties.name).to.equal(TEST_CASE_SCHEMAS.full.properties.name);
    expect(testCase.properties.flow).to.equal(FLOW_SCHEMA);
    expect(testCase.properties.dataSets).to.equal(DATA_SETS_SCHEMA);
    // A config-dependent limit reaches the document: the largest run timeout.
    const startRun = doc.paths['/v1/runs']!.post!;
    const timeout = (
      startRun.requestBody!.content['application/json']!.schema.properties as Record<string, { maximum: number }>
    ).timeout!;
    expect(timeout.maximum).to.equal(app.config.runs.maxTimeoutSeconds);
  });

  it('every operation has an id, a scope note and problem answers as application/problem+json', () => {
    const ids = new Set<string>();
    for (const { method, path, op } of operations()) {
      expect(op.operationId, `${method} ${path}`).to.be.a('string');
      expect(ids.has(op.operationId), `duplicate operationId ${op.operationId}`).to.equal(false);
      ids.add(op.operationId);
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const ref = response.$ref!;
        expect(ref, `${method} ${path} ${status}`).to.match(/^#\/components\/responses\//);
        const shared = doc.components.responses[ref.split('/').pop()!]!;
        expect(Object.keys(shared.content)).to.deep.equal(['application/problem+json']);
      }
    }
    expect(doc.paths['/v1/runs']!.post!.security).to.deep.equal([{ apiKey: ['run'] }]);
    expect(doc.paths['/v1/environments']!.get!.security).to.deep.equal([{ apiKey: ['read'] }]);
    expect(doc.paths['/v1/openapi.json']!.get!.security).to.deep.equal([]);
  });

  it('every request example validates against its schema (as the API validates: ajv, strict), and every response example against its response schema', () => {
    const requests = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
    // A test case body's flow and data sets refer to the document's components; `discriminator` is OpenAPI's annotation.
    requests.addKeyword('components');
    requests.addKeyword('discriminator');
    let requestExamples = 0;
    let responseExamples = 0;
    for (const { method, path, op } of operations()) {
      for (const media of Object.values(op.requestBody?.content ?? {})) {
        const validate = requests.compile({ ...media.schema, components: { schemas: doc.components.schemas } });
        for (const [name, example] of Object.entries(media.examples ?? {})) {
          expect(
            validate(example.value),
            `${method} ${path} request example ${name}: ${JSON.stringify(validate.errors)}`,
          ).to.equal(true);
          requestExamples++;
        }
      }
      for (const [status, response] of Object.entries(op.responses)) {
        for (const media of Object.values(response.content ?? {})) {
          for (const [name, example] of Object.entries(media.examples ?? {})) {
            expectValid(media.schema, example.value, `${method} ${path} ${status} example ${name}`);
            responseExamples++;
          }
        }
      }
    }
    for (const [name, response] of Object.entries(doc.components.responses)) {
      for (const media of Object.values(response.content)) {
        for (const [example, { value }] of Object.entries(media.examples ?? {})) {
          expectValid(media.schema, value, `response ${name} example ${example}`);
          responseExamples++;
        }
      }
    }
    expect(requestExamples).to.be.greaterThan(15);
    expect(responseExamples).to.be.greaterThan(25);
    // The check can fail: an example with an unknown field is refused.
    const env = doc.paths['/v1/environments']!.post!.requestBody!.content['application/json']!;
    expect(requests.compile(env.schema)({ ...(env.examples!.staging!.value as object), colour: 'red' })).to.equal(
      false,
    );
  });

  it("describes a test case's flow as a discriminated union of every node type validation knows, recursive through child lists", () => {
    const schemas = doc.components.schemas as Record<string, Record<string, any>>;
    const component = (ref: string) => {
      expect(ref).to.match(/^#\/components\/schemas\//);
      return schemas[ref.split('/').pop()!]!;
    };
    const FLOW_NODE = '#/components/schemas/FlowNode';
    // The test case bodies (create, replace, patch) and the answer: flow items are the node union, data sets the data set union.
    const bodies = ['/v1/test-cases', '/v1/test-cases/{testCaseId}'].flatMap((p) =>
      Object.values(doc.paths[p]!).flatMap((op) => Object.values(op.requestBody?.content ?? {}).map((m) => m.schema)),
    );
    expect(bodies).to.have.length(3);
    for (const schema of [...bodies, schemas.TestCase!]) {
      const properties = schema.properties as Record<string, Record<string, unknown>>;
      expect(properties.flow, 'flow').to.deep.include({ type: 'array', items: { $ref: FLOW_NODE } });
      expect(properties.dataSets, 'dataSets').to.deep.include({
        type: 'array',
        items: { $ref: '#/components/schemas/DataSet' },
      });
    }
    // The rest of a body is the route's own schema.
    const createBody = bodies[0]! as { properties: Record<string, unknown> };
    for (const field of ['name', 'folder', 'description', 'tags'] as const)
      expect(createBody.properties[field], field).to.deep.equal(TEST_CASE_SCHEMAS.full.properties[field]);

    // One member per node type flow validation knows (its list, its table of fields, the domain's types), no other.
    expect([...FLOW_NODE_TYPES])
      .to.have.members(Object.keys(NODE_FIELDS))
      .and.to.have.members([...NODE_TYPES]);
    const union = schemas.FlowNode!;
    const members = (union.oneOf as Array<{ $ref: string }>).map((m) => m.$ref);
    const memberTypes = members.map((ref) => component(ref).properties.type.const as string);
    expect(memberTypes).to.deep.equal([...FLOW_NODE_TYPES]);
    expect(union.discriminator.propertyName).to.equal('type');
    expect(union.discriminator.mapping).to.deep.equal(
      Object.fromEntries(memberTypes.map((type, i) => [type, members[i]])),
    );
    for (const ref of members) {
      const node = component(ref);
      expect(node.required, ref).to.include('type');
      expect(node.additionalProperties, ref).to.equal(false);
      expect(Object.keys(node.properties), ref).to.include.members([
        'type',
        'id',
        'name',
        ...Object.keys(NODE_FIELDS[node.properties.type.const as FlowNode['type']].properties),
      ]);
    }

    // Child lists: the fields validation marks as children are those the tree walk (src/flow/tree.ts) follows,
    // and each is a list of the node union again.
    let childFields = 0;
    for (const type of FLOW_NODE_TYPES) {
      const fields = Object.entries(NODE_FIELDS[type].properties)
        .filter(([, s]) => s === CHILD_NODES)
        .map(([field]) => field);
      const sample = { type, ...Object.fromEntries(fields.map((f) => [f, []])) } as unknown as FlowNode;
      expect(
        childLists(sample).map((l) => l.field),
        type,
      ).to.have.members(fields);
      const node = component(union.discriminator.mapping[type]);
      for (const field of fields) {
        expect(node.properties[field], `${type}.${field}`).to.deep.equal({ type: 'array', items: { $ref: FLOW_NODE } });
        childFields++;
      }
    }
    expect(childFields, 'IF then/else, Loop body, Iteration body, Parallel children').to.equal(5);
    expect(schemas.IfNode!.properties.then.items.$ref).to.equal(FLOW_NODE);
    expect(schemas.LoopNode!.properties.body.items.$ref).to.equal(FLOW_NODE);

    // Data sets: the same shape of union over the data set types.
    const dataSet = schemas.DataSet!;
    const setMembers = (dataSet.oneOf as Array<{ $ref: string }>).map((m) => m.$ref);
    expect(setMembers.map((ref) => component(ref).properties.type.const)).to.deep.equal(DATA_SET_TYPES);
    expect(dataSet.discriminator).to.deep.equal({
      propertyName: 'type',
      mapping: Object.fromEntries(DATA_SET_TYPES.map((t, i) => [t, setMembers[i]])),
    });
  });

  it('accepts the flows and data sets the API accepts (recorded runs, the examples) and refuses an unknown node type, as validation does', () => {
    const createBody = doc.paths['/v1/test-cases']!.post!.requestBody!.content['application/json']!.schema;
    const validate = answerValidator(createBody);
    const documented = (flow: unknown, dataSets: unknown[] = []) => validate({ name: 'x', flow, dataSets });
    // Real flows: every test case of the recorded runs' plans (test/fixtures/histories; payloads in plain JSON), and the examples.
    const cases: Array<{ label: string; flow: FlowNode[]; dataSets: unknown[] }> = [];
    const collect = (value: unknown, label: string): void => {
      if (!value || typeof value !== 'object') return;
      const v = value as {
        testCases?: Array<{ name: string; flow?: FlowNode[]; dataSets?: Record<string, unknown[]> }>;
      };
      for (const tc of Array.isArray(v.testCases) ? v.testCases : []) {
        if (tc.flow)
          cases.push({
            label: `${label}: ${tc.name}`,
            flow: tc.flow,
            dataSets: Object.entries(tc.dataSets ?? {}).map(([name, data]) => ({ name, type: 'json', data })),
          });
      }
      for (const child of Object.values(value)) collect(child, label);
    };
    const payloads = (value: unknown, label: string): void => {
      if (!value || typeof value !== 'object') return;
      const p = value as { metadata?: { encoding?: string }; data?: string };
      if (
        p.metadata?.encoding &&
        Buffer.from(p.metadata.encoding, 'base64').toString() === 'json/plain' &&
        typeof p.data === 'string'
      ) {
        collect(JSON.parse(Buffer.from(p.data, 'base64').toString('utf8')), label);
      }
      for (const child of Object.values(value)) payloads(child, label);
    };
    for (const file of fs.readdirSync(HISTORY_FIXTURES).filter((f) => f.endsWith('.json')))
      payloads(JSON.parse(fs.readFileSync(path.join(HISTORY_FIXTURES, file), 'utf8')), file);
    for (const [id, examples] of Object.entries(REQUEST_EXAMPLES)) {
      for (const [name, { value }] of Object.entries(examples)) {
        const body = value as { flow?: FlowNode[]; dataSets?: unknown[] };
        if (body.flow) cases.push({ label: `${id} example ${name}`, flow: body.flow, dataSets: body.dataSets ?? [] });
      }
    }
    // The nesting of flow-validation's unit test, with both data set kinds.
    cases.push({
      label: 'every node nested',
      dataSets: [
        { name: 'users', type: 'json', data: [{ id: 1 }] },
        { name: 'orders', type: 'csv', csv: 'id,total\n1,9.5\n', cast: true },
      ],
      flow: [
        {
          type: 'if',
          condition: 'true',
          then: [{ type: 'loop', count: 2, body: [{ type: 'context', id: 'c1', set: { a: '1' } }] }],
          else: [{ type: 'wait', ms: 10 }],
        },
        {
          type: 'iteration',
          dataSet: 'orders',
          as: 'o',
          body: [
            {
              type: 'parallel',
              concurrency: 2,
              children: [
                {
                  type: 'api',
                  request: { method: 'POST', url: 'http://x/{{o.id}}', body: { total: '{{o.total}}' } },
                  retry: { attempts: 2, onStatus: [503, '5xx'] },
                },
              ],
            },
          ],
        },
        {
          type: 'script',
          variable: 'v',
          script: { code: 'async function generateValue() { return 1 }', libs: ['crypto-js@4.2.0'] },
        },
        {
          type: 'assert',
          skipIf: 'variables.v = 0',
          continueOnFailure: true,
          assertions: [{ target: 'variables.v', operator: 'isJson' }],
        },
        {
          type: 'ref',
          mode: 'clone',
          testCaseId: 'tc_login',
          inputs: { user: '"ada"' },
          outputs: { token: 'token' },
          flow: [{ type: 'context', id: 'c1', set: { token: '"t"' } }],
        },
        {
          type: 'callback',
          id: 'paid',
          timeout: '10m',
          match: "callback.body.status = 'paid'",
          count: 2,
          signature: { scheme: 'standard-webhooks', secret: '{{cbSecret}}' },
          respond: { status: 202, headers: { 'x-ack': '1' }, body: { ok: true } },
          assertions: [{ target: 'callback.body.amount', operator: 'equals', expected: 42 }],
        },
        {
          type: 'poll',
          id: 'export',
          request: { method: 'GET', url: 'http://x/jobs/{{jobId}}' },
          until: "response.body.status = 'done'",
          interval: 500,
          backoff: 'exponential',
          factor: 1.5,
          maxInterval: '30s',
          jitter: 0.1,
          maxAttempts: 20,
          timeout: 300,
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
        {
          type: 'websocket',
          id: 'ticks',
          url: 'ws://x/ticks',
          subprotocols: ['chat.v2'],
          headers: { 'x-token': 't' },
          send: [{ data: { say: 'hi' }, delayMs: 10 }, { data: 'bye' }],
          until: 'count >= 3',
          timeout: '5s',
          maxMessages: 50,
          assertions: [{ target: 'count', operator: 'greaterThan', expected: 0 }],
        },
        {
          type: 'sse',
          id: 'events',
          url: 'http://x/events',
          method: 'POST',
          body: { prompt: 'p' },
          until: "message.event = 'done'",
          timeout: 10,
        },
        {
          type: 'grpc',
          id: 'greet',
          target: 'grpc://x:50051',
          proto:
            'syntax = "proto3"; package demo; service Greeter { rpc SayHello (HelloRequest) returns (HelloReply); } message HelloRequest { string name = 1; } message HelloReply { string message = 1; }',
          service: 'demo.Greeter',
          method: 'SayHello',
          message: { name: '{{user}}' },
          metadata: { 'x-trace': 't' },
          deadlineMs: 2000,
          assertions: [{ target: 'response.status', operator: 'equals', expected: 0 }],
        },
        {
          type: 'mockVerify',
          id: 'verified',
          method: 'POST',
          path: '/payments/{id}',
          designId: '{{paymentsDesign}}',
          where: 'body.amount = 42',
          count: { min: 1, max: 2 },
          scope: 'run',
          assertions: [{ target: 'count', operator: 'greaterThan', expected: 0 }],
        },
      ] as unknown as FlowNode[],
    });
    const types = new Set<string>();
    for (const { label, flow, dataSets } of cases) {
      forEachNode(flow, (node) => types.add(node.type));
      const names = (dataSets as Array<{ name: string }>).map((d) => d.name);
      expect(
        [...validateFlow(flow, ['flow'], names), ...validateDataSets(dataSets)],
        `${label}: the API accepts it`,
      ).to.deep.equal([]);
      expect(documented(flow, dataSets), `${label}: ${JSON.stringify(validate.errors)}`).to.equal(true);
    }
    expect(cases.filter((c) => /\.json: /.test(c.label)).length, 'flows of the recorded runs').to.be.greaterThan(3);
    expect([...types], 'the flows cover every node type').to.have.members([...FLOW_NODE_TYPES]);

    // Refused by both: an unknown node type, at the top and inside an IF branch; an unknown field; an unknown data set type.
    const api = { type: 'api', request: { method: 'GET', url: 'http://x' } };
    const refused: Array<[string, unknown[], unknown[]]> = [
      ['unknown type', [{ type: 'teleport' }], []],
      [
        'unknown type in a branch',
        [{ type: 'if', condition: 'true', then: [api, { type: 'teleport', to: 'mars' }] }],
        [],
      ],
      ['unknown type in a loop body', [{ type: 'loop', count: 1, body: [{ type: 'Api', request: api.request }] }], []],
      ['unknown field', [{ ...api, colour: 'red' }], []],
      ['unknown data set type', [api], [{ name: 'x', type: 'xml', xml: '<a/>' }]],
    ];
    for (const [label, flow, dataSets] of refused) {
      expect([...validateFlow(flow), ...validateDataSets(dataSets)], `${label}: the API refuses it`).to.not.deep.equal(
        [],
      );
      expect(documented(flow, dataSets), `${label}: the document refuses it`).to.equal(false);
    }
  });

  it("Spectral's OpenAPI ruleset finds no error in it", async () => {
    const lint = async (document: unknown): Promise<ISpectralDiagnostic[]> => {
      const spectral = new Spectral();
      spectral.setRuleset({ extends: [oas] } as RulesetDefinition);
      return spectral.run(JSON.stringify(document, null, 2));
    };
    const results = await lint(doc);
    const format = (rs: ISpectralDiagnostic[]) =>
      rs.map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`).join('\n');
    expect(format(results.filter((r) => r.severity === 0)), 'errors').to.equal('');
    // Besides, only what .spectral.yaml turns off: roles in security requirements (OpenAPI 3.1 allows them for any scheme), and no contact.
    expect(
      format(results.filter((r) => !['oas3-operation-security-defined', 'info-contact'].includes(String(r.code)))),
      'other findings',
    ).to.equal('');
    for (const r of results.filter((r) => r.code === 'oas3-operation-security-defined'))
      expect(r.message, r.path.join('.')).to.match(/must be listed among scopes/);
    const schemes = Object.keys(
      (doc as unknown as { components: { securitySchemes: object } }).components.securitySchemes,
    );
    for (const { method, path, op } of operations()) {
      for (const requirement of op.security as Array<Record<string, string[]>>)
        expect(schemes, `${method} ${path}`).to.include.members(Object.keys(requirement));
    }
    // The check can fail: an array without items is an error.
    const broken = structuredClone(doc) as unknown as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    broken.components.schemas.IfNode!.properties.then = { type: 'array' };
    expect((await lint(broken)).filter((r) => r.severity === 0).map((r) => r.code)).to.deep.equal(['array-items']);
  });

  it('walks every operation against the running API: examples accepted, answers as documented', async () => {
    const all = operations();
    expect([...WALK].sort(), 'the walk covers every operation').to.deep.equal(all.map((o) => o.op.operationId).sort());
    const params: Record<string, string> = {
      folderPath: 'users/admin',
      token: 'no-such-token',
      scope: 'walk-scope',
      name: 'walk/report.csv',
      version: '1',
    };
    // The audit trail needs an `admin` key (api/scopes.ts); the walk's own key is `write`.
    const adminKey = await app.issueKey('admin');
    let webhookToken = '';
    const checked: string[] = [];
    for (const id of WALK) {
      const { method, path, op } = all.find((o) => o.op.operationId === id)!;
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
        expect(params[name], `${id}: no value for {${name}} yet`).to.be.a('string');
        return encodeURIComponent(params[name]!);
      });
      const media = op.requestBody?.content['application/json'];
      const example = media?.examples ? Object.values(media.examples)[0]!.value : undefined;
      const headers: Record<string, string> = {};
      let key: string | null | undefined;
      if (id === 'callDeploymentWebhook') {
        key = null;
        headers.authorization = `Bearer ${webhookToken}`;
      }
      if (id === 'getOpenApiDocument' || id.startsWith('callback')) key = null;
      if (id === 'listAuditEvents' || id === 'exportAuditEvents' || /Members?$|Keys?$/.test(id)) key = adminKey;
      if (['getSignInConfig', 'startSignIn', 'finishSignIn', 'getSession', 'signOut'].includes(id)) key = null;
      const res = await app.request(method, url, example, { key, headers });
      const label = `${id}: ${method} ${url} → ${res.status} ${String(JSON.stringify(res.body)).slice(0, 600)}`;
      // Accepted: the example body passes validation (the relay's target may be down: 502 is an answer).
      if (id === 'relayRequest') expect(res.status, label).to.not.be.oneOf([400, 413, 415, 422]);
      else if (id === 'deleteRun') expect(res.status, label).to.be.oneOf([204, 409]);
      // Made from the run started above, which may not have ended (409) or have nothing to rerun or resume (422).
      else if (['rerunRun', 'replayRun', 'resumeRun'].includes(id))
        expect(res.status, label).to.be.oneOf([201, 409, 422]);
      // The example's token endpoint is a template the environment does not fill: 502 is its answer.
      else if (id === 'fetchAuthProfileToken') expect(res.status, label).to.equal(502);
      // No Callback node waits at the walk's made-up address: 404 `callback-not-found`.
      else if (id.startsWith('callback')) {
        expect(res.status, label).to.equal(404);
        expect(res.body.code, label).to.equal('callback-not-found');
      }
      // Without an identity provider configured there is no sign-in to start or finish, and no session.
      else if (id === 'startSignIn' || id === 'finishSignIn') expect(res.status, label).to.equal(404);
      else if (id === 'getSession') expect(res.status, label).to.equal(401);
      // The walk's run is a functional one: no load to steer, 409 `run-not-controllable`.
      else if (id === 'controlRun') {
        expect(res.status, label).to.equal(409);
        expect(res.body.code, label).to.equal('run-not-controllable');
      }
      // The walk's run never ends (no worker): a comparison of it is 422 `run-not-ended`.
      else if (id === 'compareRuns' || id === 'compareRunWithBaseline') {
        expect(res.status, label).to.equal(422);
        expect(res.body.code, label).to.equal('run-not-ended');
      } else expect(res.status, label).to.be.within(200, 299);
      const response = op.responses[String(res.status)];
      expect(response, `${label}: status not documented`).to.not.equal(undefined);
      if (res.status >= 400) {
        expect(res.headers.get('content-type'), label).to.match(/^application\/problem\+json/);
        expectValid({ $ref: '#/components/schemas/Problem' }, res.body, label);
      } else if (id === 'getFileContent') {
        // The content as uploaded by `replaceFile` (no body: an empty file), of any media type.
        expect(response!.content?.['*/*'], `${label}: no documented body`).to.not.equal(undefined);
        expect(res.headers.get('content-length'), label).to.equal('0');
      } else if (id === 'exportAuditEvents') {
        // JSON lines, one audit event per line (docs/teams.md "Audit trail").
        expect(response!.content?.['application/x-ndjson'], `${label}: no documented body`).to.not.equal(undefined);
        expect(res.headers.get('content-type'), label).to.match(/^application\/x-ndjson/);
      } else if (res.status !== 204) {
        const documented = response!.content?.['application/json'];
        expect(documented, `${label}: no documented body`).to.not.equal(undefined);
        expectValid(documented!.schema, res.body, label);
      }
      checked.push(id);
      // What later operations need.
      if (id === 'createEnvironment') params.environmentName = res.body.name;
      if (id === 'createAuthProfile') params.profileName = res.body.name;
      if (id === 'createTestCase') params.testCaseId = res.body.id;
      if (id === 'createRunner') params.runnerName = res.body.name;
      if (id === 'startRun') params.runId = params.headRunId = res.body.runId;
      if (id === 'createDeployment') {
        params.deploymentId = res.body.id;
        params.webhookId = String(res.body.webhookUrl).split('/').pop()!;
        webhookToken = res.body.webhookToken;
      }
      if (id === 'createDesign') params.designId = res.body.id;
      if (id === 'createMockCollection') params.collectionId = res.body.id;
      if (id === 'addMember') params.userId = res.body.userId;
      if (id === 'createKey') params.keyId = res.body.id;
    }
    expect(checked).to.have.length(WALK.length);
  });

  it('serves the reference page at /docs with its scripts from this origin, outside the console and the key check', async () => {
    const page = await fetch(`${app.url}/docs`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("script-src 'self'");
    expect(csp).to.match(/connect-src 'self'/);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => String(m[1]));
    expect(scripts).to.have.length(2);
    for (const src of scripts) {
      expect(src).to.match(/^\/docs\/assets\//);
      const js = await fetch(`${app.url}${src}`);
      expect(js.status, src).to.equal(200);
      expect(js.headers.get('content-type'), src).to.match(/^text\/javascript/);
      expect((await js.arrayBuffer()).byteLength, src).to.be.greaterThan(100);
    }
    // Under /docs nothing falls to the web console's index.html (api/console.ts SERVICE_PATHS).
    for (const path of ['/docs/assets/nothing.js', '/docs/nothing', '/docs/assets/init.js/x']) {
      const missing = await fetch(`${app.url}${path}`);
      expect(missing.status, path).to.equal(404);
      expect(missing.headers.get('content-type'), path).to.match(/^application\/problem\+json/);
    }
  });
});
