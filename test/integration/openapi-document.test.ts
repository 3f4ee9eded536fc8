/**
 * Assay's own OpenAPI document (issue 16 item 6; api/openapi/*, docs/api.md "The OpenAPI
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
 *   status is one the document lists, and each answer's body validates against the documented schema.
 */
import { expect } from 'chai';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Validator } from '@seriousme/openapi-schema-validator';
import { appRouters, startTestApp, type TestApp } from '../helpers/app';
import { apiOperations } from '../../api/openapi/operations';
import { openApiPath } from '../../api/openapi/document';
import { ENVIRONMENT_SCHEMAS } from '../../api/routes/environments';
import { DEPLOYMENT_SCHEMAS } from '../../api/routes/deployments';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, { content: Record<string, { schema: unknown; examples?: Record<string, { value: unknown }> }> }> };
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
  'createEnvironment',
  'createTestCase',
  'createRunner',
  'startRun',
  'createDeployment',
  'createDesign',
  'importDesigns',
  'sampleFromSchema',
  'relayRequest',
  'listEnvironments',
  'getEnvironment',
  'listTestCases',
  'getTestCase',
  'listRunners',
  'getRunner',
  'listRunnerTestCases',
  'listRuns',
  'getRun',
  'getRunResults',
  'listRunDeliveries',
  'listLibraries',
  'listDeployments',
  'getDeployment',
  'listDesigns',
  'getDesign',
  'replaceEnvironment',
  'updateEnvironment',
  'replaceTestCase',
  'updateTestCase',
  'replaceRunner',
  'updateRunner',
  'updateDeployment',
  'replaceDesign',
  'updateDesign',
  'callDeploymentWebhook',
  'runDeployment',
  'rotateDeploymentWebhook',
  'rotateDeploymentSigningSecret',
  'cancelRun',
  'deleteRun',
  'deleteDesign',
  'deleteDeployment',
  'deleteRunner',
  'deleteTestCase',
  'deleteEnvironment',
];

describe('the OpenAPI document (GET /v1/openapi.json)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let doc: Doc;
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

  /** A validator for answer schemas: JSON Schema 2020-12 (OpenAPI 3.1's dialect), `$ref`s into the document's components. */
  const answers = new Ajv2020({ strict: false, allErrors: true });
  addFormats(answers);
  function answerValidator(schema: unknown) {
    return answers.compile({ allOf: [schema], components: { schemas: doc.components.schemas } });
  }
  function expectValid(schema: unknown, value: unknown, label: string) {
    const validate = answerValidator(schema);
    expect(validate(value), `${label}: ${JSON.stringify(validate.errors)}\n${String(JSON.stringify(value)).slice(0, 2000)}`).to.equal(true);
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

  it('documents exactly the routes the real app registers under /v1 and /webhooks', () => {
    const routers = appRouters(app);
    expect(routers.length, 'routers found in the app').to.be.greaterThan(10);
    const served = new Set<string>();
    for (const router of routers) {
      for (const layer of router.stack) {
        const path = String(layer.path);
        if (!/^\/(v1|webhooks)\//.test(path)) continue;
        for (const method of layer.methods) if (method !== 'HEAD') served.add(`${method} ${openApiPath(path)}`);
      }
    }
    const documented = new Set(operations().map(({ method, path }) => `${method} ${path}`));
    expect(served.size).to.be.greaterThan(40);
    expect([...served].filter((k) => !documented.has(k)), 'routes missing from the document').to.deep.equal([]);
    expect([...documented].filter((k) => !served.has(k)), 'documented operations no route serves').to.deep.equal([]);
  });

  it("takes its request body schemas from the routes' validation (the same objects, not copies)", () => {
    const ops = apiOperations(app.config);
    const byId = (id: string) => ops.find((o) => o.operationId === id)!;
    expect(byId('createEnvironment').body!.schema).to.equal(ENVIRONMENT_SCHEMAS.create);
    expect(byId('updateDeployment').body!.schema).to.equal(DEPLOYMENT_SCHEMAS.patch);
    // A config-dependent limit reaches the document: the largest run timeout.
    const startRun = doc.paths['/v1/runs']!.post!;
    const timeout = (startRun.requestBody!.content['application/json']!.schema.properties as Record<string, { maximum: number }>).timeout!;
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
    let requestExamples = 0;
    let responseExamples = 0;
    for (const { method, path, op } of operations()) {
      for (const media of Object.values(op.requestBody?.content ?? {})) {
        const validate = requests.compile(media.schema);
        for (const [name, example] of Object.entries(media.examples ?? {})) {
          expect(validate(example.value), `${method} ${path} request example ${name}: ${JSON.stringify(validate.errors)}`).to.equal(true);
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
    expect(requests.compile(env.schema)({ ...(env.examples!.staging!.value as object), colour: 'red' })).to.equal(false);
  });

  it('walks every operation against the running API: examples accepted, answers as documented', async () => {
    const all = operations();
    expect([...WALK].sort(), 'the walk covers every operation').to.deep.equal(all.map((o) => o.op.operationId).sort());
    const params: Record<string, string> = {};
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
      if (id === 'getOpenApiDocument') key = null;
      const res = await app.request(method, url, example, { key, headers });
      const label = `${id}: ${method} ${url} → ${res.status} ${String(JSON.stringify(res.body)).slice(0, 600)}`;
      // Accepted: the example body passes validation (the relay's target may be down: 502 is an answer).
      if (id === 'relayRequest') expect(res.status, label).to.not.be.oneOf([400, 413, 415, 422]);
      else if (id === 'deleteRun') expect(res.status, label).to.be.oneOf([204, 409]);
      else expect(res.status, label).to.be.within(200, 299);
      const response = op.responses[String(res.status)];
      expect(response, `${label}: status not documented`).to.not.equal(undefined);
      if (res.status >= 400) {
        expect(res.headers.get('content-type'), label).to.match(/^application\/problem\+json/);
        expectValid({ $ref: '#/components/schemas/Problem' }, res.body, label);
      } else if (res.status !== 204) {
        const documented = response!.content?.['application/json'];
        expect(documented, `${label}: no documented body`).to.not.equal(undefined);
        expectValid(documented!.schema, res.body, label);
      }
      checked.push(id);
      // What later operations need.
      if (id === 'createEnvironment') params.environmentName = res.body.name;
      if (id === 'createTestCase') params.testCaseId = res.body.id;
      if (id === 'createRunner') params.runnerName = res.body.name;
      if (id === 'startRun') params.runId = res.body.runId;
      if (id === 'createDeployment') {
        params.deploymentId = res.body.id;
        params.webhookId = String(res.body.webhookUrl).split('/').pop()!;
        webhookToken = res.body.webhookToken;
      }
      if (id === 'createDesign') params.designId = res.body.id;
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
