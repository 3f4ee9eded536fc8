/**
 * Script checks (`$test(name, fn)`, docs/flows.md "Scripts") and the Postman compatibility library
 * (`postman@1.0.0`, src/sandbox/postman/pm.js) in the real sandbox: checks that pass, throw, are
 * async or use a `done` callback; checks recorded before a script throws are kept; the 200 cap;
 * and the `pm` object's response assertions, variables, pre-request template resolution and
 * unsupported calls, each with the message Newman gives.
 */
import { expect } from 'chai';
import { Sandbox, type ScriptInput, type ScriptResult } from '../../../src/sandbox/sandbox';
import { testEgressPolicy } from '../../helpers/app';

describe('script checks and the Postman compatibility library', function () {
  this.timeout(60_000);
  let sandbox: Sandbox;
  let n = 0;
  before(() => {
    sandbox = new Sandbox({ timeoutMs: 3000, policy: testEgressPolicy() });
  });
  after(async () => sandbox?.dispose());

  const response = {
    status: 404,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-trace': 'abc' },
    body: { error: 'no such user', id: 7 },
    time: 12.5,
  };
  function respond(code: string, extra: Partial<ScriptInput> = {}): Promise<ScriptResult> {
    return sandbox.execute({
      runId: `checks-${++n}`,
      script: { code, libs: ['postman@1.0.0'] },
      hook: 'afterResponse',
      variables: { base: 'http://127.0.0.1:1' },
      label: 'n1',
      testCase: { id: 'tc', name: 'tc' },
      request: { method: 'GET', url: 'http://127.0.0.1:1/users/7', headers: {} },
      response,
      ...extra,
    });
  }
  const pmHook = (body: string) =>
    `async function afterResponse() { await AssayPostman.test({ $request, $response, $context, $test, console, info: { requestName: 'get user' } }, [function (pm, postman, tests, responseBody, responseCode) { {\n${body}\n} }]); }`;

  it('$test records passing, failing, async, done-callback and boolean checks in order', async () => {
    const r = await respond(`async function afterResponse() {
      $test('sync pass', () => {});
      $test('sync fail', () => { throw new Error('status was ' + $response.status); });
      $test('async fail', async () => { await new Promise((r) => setTimeout(r, 5)); throw new TypeError('late'); });
      $test('done pass', (done) => setTimeout(() => done(), 5));
      $test('done fail', (done) => setTimeout(() => done(new Error('callback said no')), 5));
      $test('done never', (done) => {});
      $test('boolean', $response.status === 404);
    }`);
    expect(r.ok, JSON.stringify(r.error)).to.equal(true);
    expect(r.tests).to.deep.equal([
      { name: 'sync pass', passed: true },
      { name: 'sync fail', passed: false, message: 'Error: status was 404' },
      { name: 'async fail', passed: false, message: 'TypeError: late' },
      { name: 'done pass', passed: true },
      { name: 'done fail', passed: false, message: 'Error: callback said no' },
      { name: 'done never', passed: false, message: 'Error: done() was never called' },
      { name: 'boolean', passed: true },
    ]);
  });

  it('keeps the checks recorded before the script threw, and stops at 200', async () => {
    const thrown = await respond(`async function afterResponse() { $test('first', () => {}); null.x; }`);
    expect(thrown.ok).to.equal(false);
    expect(thrown.error?.message).to.match(/TypeError/);
    expect(thrown.tests).to.deep.equal([{ name: 'first', passed: true }]);
    const many = await respond(
      `async function afterResponse() { for (let i = 0; i < 500; i++) $test('t' + i, () => {}); }`,
    );
    expect(many.tests).to.have.length(200);
  });

  it("pm.response assertions give Newman's messages", async () => {
    const r = await respond(
      pmHook(`
      pm.test('status 404', () => pm.response.to.have.status(404));
      pm.test('status 200', () => pm.response.to.have.status(200));
      pm.test('reason', () => pm.response.to.have.status('Not Found'));
      pm.test('not found / client error', () => { pm.response.to.be.notFound; pm.response.to.be.clientError; pm.response.to.be.error; });
      pm.test('ok', () => pm.response.to.be.ok);
      pm.test('header', () => pm.response.to.have.header('X-Trace', 'abc'));
      pm.test('header missing', () => pm.response.to.have.header('X-Nope'));
      pm.test('json body path', () => pm.response.to.have.jsonBody('error', 'no such user'));
      pm.test('expect', () => pm.expect(pm.response.json().id).to.be.above(10));
      pm.test('schema', () => pm.response.to.have.jsonSchema({ type: 'object', required: ['name'] }));
      tests['legacy'] = responseCode.code === 404 && responseBody.includes('no such user');
    `),
    );
    expect(r.ok, JSON.stringify(r.error)).to.equal(true);
    const byName = Object.fromEntries(r.tests!.map((t) => [t.name, t]));
    expect(byName['status 404']).to.deep.equal({ name: 'status 404', passed: true });
    expect(byName['status 200']!.message).to.equal(
      'AssertionError: expected response to have status code 200 but got 404',
    );
    expect(byName['reason']!.passed).to.equal(true);
    expect(byName['not found / client error']!.passed).to.equal(true);
    expect(byName['ok']!.message).to.equal(
      "AssertionError: expected response to have status reason 'OK' but got 'NOT FOUND'",
    );
    expect(byName['header']!.passed).to.equal(true);
    expect(byName['header missing']!.message).to.equal(
      "AssertionError: expected response to have header with key 'X-Nope'",
    );
    expect(byName['json body path']!.passed).to.equal(true);
    expect(byName['expect']!.message).to.equal('AssertionError: expected 7 to be above 10');
    expect(byName['schema']!.message).to.match(
      /^AssertionError: expected data to satisfy schema but found following errors: \n.*name/,
    );
    expect(byName['legacy']!.passed).to.equal(true);
  });

  it('pm variables are the test case variables; unsupported calls fail their check with a clear message', async () => {
    const r = await respond(
      pmHook(`
      pm.environment.set('token', 'T');
      pm.collectionVariables.set('n', 2);
      postman.setEnvironmentVariable('legacy', 'L');
      pm.test('reads', () => { pm.expect(pm.variables.get('base')).to.equal('http://127.0.0.1:1'); pm.expect(pm.environment.get('token')).to.equal('T'); });
      pm.test('replaceIn', () => pm.expect(pm.variables.replaceIn('{{base}}/x/{{n}}')).to.equal('http://127.0.0.1:1/x/2'));
      pm.test('vault', () => pm.vault.get('a'));
      pm.environment.unset('base');
    `),
    );
    expect(r.variables).to.deep.equal({ token: 'T', n: 2, legacy: 'L' });
    const vault = r.tests!.find((t) => t.name === 'vault')!;
    expect(vault.message).to.equal(
      'Error: pm.vault is not supported by Assay\'s Postman compatibility (see docs/import-postman.md, "Scripts: the pm object")',
    );
    expect(r.tests!.filter((t) => t.passed).map((t) => t.name)).to.deep.equal(['reads', 'replaceIn']);
  });

  it('a pre-request script sees the request as written and its variables reach its own request', async () => {
    const r = await sandbox.execute({
      runId: `checks-${++n}`,
      script: {
        code: `async function beforeRequest() {
          await AssayPostman.prerequest({ $request, $context, $test, console, info: {}, template: { method: 'POST', url: '{{base}}/items/{{id}}', headers: { 'X-Sig': '{{sig}}' }, body: { at: '{{stamp}}' }, auth: { type: 'basic', username: '{{user}}', password: 'pw' } } },
            [function (pm) { { pm.environment.set('id', 41 + 1); pm.variables.set('stamp', 'S'); pm.environment.set('sig', pm.request.url.toString()); pm.request.headers.add({ key: 'X-Added', value: 'yes' }); } }]);
        }`,
        libs: ['postman@1.0.0'],
      },
      hook: 'beforeRequest',
      variables: { base: 'http://api.test', user: 'ada' },
      label: 'n1',
      testCase: { id: 'tc', name: 'tc' },
      request: { method: 'POST', url: 'http://api.test/items/{{id}}', headers: {} },
    });
    expect(r.ok, JSON.stringify(r.error)).to.equal(true);
    expect(r.request).to.deep.equal({
      method: 'POST',
      url: 'http://api.test/items/42',
      headers: {
        'X-Sig': 'http://api.test/items/42',
        'X-Added': 'yes',
        Authorization: `Basic ${Buffer.from('ada:pw').toString('base64')}`,
      },
      body: { at: 'S' },
    });
  });
  it('each Postman script runs on its own: one that throws keeps its checks and variables, the next still runs', async () => {
    const r = await respond(
      `async function afterResponse() { await AssayPostman.test({ $request, $response, $context, $test, console, info: {} }, [
        function (pm) { pm.environment.set('a', 1); pm.test('first', () => {}); throw new Error('one'); },
        function (pm, postman, tests) { tests['legacy'] = true; pm.test('second', () => {}); throw new TypeError('two'); },
      ]); }`,
    );
    expect(r.ok).to.equal(false);
    expect(r.error!.message).to.equal('Error: one (and 1 more script error: TypeError: two)');
    expect(r.variables).to.include({ a: 1 });
    expect(r.tests!.map((t) => t.name)).to.deep.equal(['first', 'second', 'legacy']);
  });

  it("Sugar's prototype methods exist in the Postman library's realm only, never for the test case's other scripts", async () => {
    const testCase = { id: 'tc-sugar', name: 'tc-sugar' };
    const postman = await respond(pmHook(`pm.test('sugar', () => pm.expect('abc'.has('b')).to.equal(true));`), {
      runId: 'checks-sugar',
      testCase,
    });
    expect(postman.tests).to.deep.equal([{ name: 'sugar', passed: true }]);
    const plain = await sandbox.execute({
      runId: 'checks-sugar',
      testCase,
      script: { code: `$test('no sugar here', typeof ''.has === 'undefined' && typeof [].none === 'undefined');` },
      variables: {},
      label: 'n2',
    });
    expect(plain.tests).to.deep.equal([{ name: 'no sugar here', passed: true }]);
  });

  it("pm.iterationData and pm.info.iteration are the enclosing Iteration node's row, through loops in between", async () => {
    const row = { nodeId: 'rows', index: 1, iteration: 2, item: { user: 'ada' }, as: 'row' };
    const inner = { nodeId: 'postman_run', index: 4, iteration: 5 };
    const r = await respond(
      pmHook(`
      pm.test('row', () => pm.expect(pm.iterationData.toObject()).to.eql({ user: 'ada' }));
      pm.test('iteration', () => pm.expect(pm.info.iteration).to.equal(1));
    `),
      { loop: inner, loops: [row, inner] },
    );
    expect(
      r.tests!.every((t) => t.passed),
      JSON.stringify(r.tests),
    ).to.equal(true);
    const none = await respond(
      pmHook(
        `pm.test('empty', () => pm.expect(pm.iterationData.toObject()).to.eql({})); pm.test('zero', () => pm.expect(pm.info.iteration).to.equal(0));`,
      ),
      { loop: inner },
    );
    expect(
      none.tests!.every((t) => t.passed),
      JSON.stringify(none.tests),
    ).to.equal(true);
  });
});
