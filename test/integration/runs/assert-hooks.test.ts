/**
 * Assert nodes, the format operators and hooks at three levels, through a real run on a real
 * worker against a real HTTP server on loopback: an Assert node that passes, one skipped by
 * `skipIf`, one that fails and stops the test case (also from inside a loop), one that fails with
 * `continueOnFailure`; hooks of the test case and of two nested folders run in the onion order
 * around an API node (a script records the order); a failing outer hook names its level; the
 * folder resource's CRUD and its problem answers naming the field at fault.
 */
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';

type Json = Record<string, any>;

/** A hook script that appends `before` / `after` to the variable `order` (`also`: more of beforeRequest). */
const recorder = (before: string, after: string, also = '') => ({
  code: [
    `function beforeRequest() { $context.set('order', [...($context.get('order') || []), '${before}']); ${also}}`,
    `function afterResponse() { $context.set('order', [...($context.get('order') || []), '${after}']); }`,
  ].join('\n'),
});

describe('Assert nodes, format operators and hooks at three levels', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;
  let cases: Json[];
  let run: Json;

  const byName = (name: string) => cases.find((c) => c.name === name)!;
  const node = (tc: Json, id: string) => tc.nodes.find((n: Json) => n.id === id);

  before(async () => {
    [app, target] = await Promise.all([startTestApp({ worker: true }), startTarget()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    // Folder hooks: `ah` (outer; it also sets a header) and `ah/sub` (inner).
    const put = async (path: string, body: Json) => {
      const res = await app.request('PUT', `/v1/folders/${encodeURIComponent(path)}`, body);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    };
    await put('ah', { hooks: recorder('outer', 'outer-after', "$request.headers['x-folder'] = 'ah'; ") });
    await put('ah/sub', { hooks: recorder('inner', 'inner-after') });

    const testCases: Json[] = [
      {
        name: 'assert passes',
        folder: 'ah',
        flow: [
          {
            type: 'context',
            id: 'vars',
            set: {
              email: '"ada@example.com"',
              site: '"https://example.com/a?b=1"',
              id: '"123e4567-e89b-12d3-a456-426614174000"',
              at: '"2026-11-20T09:30:00Z"',
              doc: '"{\\"a\\": 1}"',
            },
          },
          {
            type: 'assert',
            id: 'formats',
            assertions: [
              { target: 'variables.email', operator: 'isEmail' },
              { target: 'variables.site', operator: 'isUrl' },
              { target: 'variables.id', operator: 'isUuid' },
              { target: 'variables.at', operator: 'isIso8601' },
              { target: 'variables.doc', operator: 'isJson' },
              { target: 'testCase.name', operator: 'equals', expected: 'assert passes' },
            ],
          },
          {
            type: 'assert',
            id: 'skipped',
            skipIf: 'variables.email = "ada@example.com"',
            assertions: [{ target: 'variables.email', operator: 'isUuid' }],
          },
        ],
      },
      {
        name: 'assert stops',
        folder: 'ah',
        flow: [
          {
            type: 'loop',
            id: 'loop',
            count: 5,
            body: [
              {
                type: 'assert',
                id: 'inLoop',
                assertions: [{ target: 'loop.index', operator: 'lessThan', expected: 1 }],
              },
            ],
          },
          { type: 'api', id: 'after', request: { method: 'GET', url: '{{base}}/echo?never=1' } },
        ],
      },
      {
        name: 'assert continues',
        folder: 'ah',
        flow: [
          {
            type: 'assert',
            id: 'soft',
            continueOnFailure: true,
            assertions: [
              { name: 'bad email', target: '"bob@"', operator: 'isEmail' },
              { target: '1', operator: 'equals', expected: 1 },
            ],
          },
          { type: 'context', id: 'later', set: { ran: 'true' } },
        ],
      },
      {
        name: 'onion',
        folder: 'ah/sub',
        hooks: recorder('tc', 'tc-after'),
        flow: [
          {
            type: 'api',
            id: 'call',
            request: { method: 'GET', url: '{{base}}/echo?id=123e4567-e89b-12d3-a456-426614174000' },
            script: recorder('node', 'node-after'),
            assertions: [
              { target: 'response.body.query.id', operator: 'isUuid' },
              { target: 'response.body.headers."x-folder"', operator: 'equals', expected: 'ah' },
            ],
          },
          {
            type: 'assert',
            id: 'order',
            assertions: [
              {
                target: "$join(variables.order, '>')",
                operator: 'equals',
                expected: 'tc>outer>inner>node>node-after>inner-after>outer-after>tc-after',
              },
            ],
          },
        ],
      },
      {
        name: 'outer hook fails',
        folder: 'ah',
        hooks: { code: "function beforeRequest() {\n  throw new Error('no token');\n}" },
        flow: [{ type: 'api', id: 'guarded', request: { method: 'GET', url: '{{base}}/echo?guarded=1' } }],
      },
    ];
    for (const tc of testCases) {
      const res = await app.request('POST', '/v1/test-cases', tc);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    await app.request('POST', '/v1/runners', { name: 'ah', folder: 'ah', order: 'createdAt' });
    const { runId } = (await app.request('POST', '/v1/runs', { runner: 'ah', environment: 'local' })).body;
    run = await waitForRun(app, runId, 90_000);
    cases = (await app.request('GET', `/v1/runs/${runId}/results`)).body.details.testCases;
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  it('an Assert node passes with the format operators true, and one whose skipIf holds is skipped with the reason', () => {
    const tc = byName('assert passes');
    expect(tc.status).to.equal('passed');
    expect(node(tc, 'formats')).to.include({ type: 'assert', status: 'passed' });
    expect(node(tc, 'formats').assertions.map((a: Json) => `${a.operator}:${a.passed}`)).to.deep.equal([
      'isEmail:true',
      'isUrl:true',
      'isUuid:true',
      'isIso8601:true',
      'isJson:true',
      'equals:true',
    ]);
    expect(node(tc, 'skipped')).to.include({ status: 'skipped', reason: 'skipIf held (true)' });
    expect(node(tc, 'skipped').assertions).to.equal(undefined);
    expect(tc).to.include({ assertions: 6, passedAssertions: 6 });
  });

  it('a failed Assert node fails the test case and stops its remaining nodes, also from inside a loop', () => {
    const tc = byName('assert stops');
    expect(tc.status).to.equal('failed');
    expect(node(tc, 'loop')).to.include({ status: 'failed', iterations: 2, stoppedBy: 'assert' });
    expect(node(tc, 'after')).to.include({ status: 'skipped' });
    expect(node(tc, 'after').reason).to.equal('not run: Assert node inLoop failed (continueOnFailure is false)');
    expect(node(tc, 'after').response).to.equal(undefined);
    expect(tc).to.include({ assertions: 2, passedAssertions: 1 });
    expect(tc.failures).to.have.length(1);
    expect(tc.failures[0]).to.include({ node: 'inLoop', operator: 'lessThan', expected: 1, actual: 1 });
    // Only the onion test case's API node reached the target: neither the skipped node nor the guarded one sent.
    expect(target.hits.get('/echo')).to.equal(1);
  });

  it('with continueOnFailure the flow goes on, but the test case still fails', () => {
    const tc = byName('assert continues');
    expect(tc.status).to.equal('failed');
    expect(node(tc, 'soft').status).to.equal('failed');
    expect(node(tc, 'later')).to.include({ status: 'passed' });
    expect(tc.failures).to.have.length(1);
    expect(tc.failures[0]).to.include({ node: 'soft', assertion: 'bad email', operator: 'isEmail' });
    expect(tc.failures[0].message).to.equal('expected an e-mail address, got "bob@"');
  });

  it('runs hooks in the onion order: test case → folders (outermost first) → node, then back out; folder hooks reach a subfolder', () => {
    const tc = byName('onion');
    expect(tc.status, JSON.stringify(tc.failures)).to.equal('passed');
    expect(node(tc, 'call').assertions.every((a: Json) => a.passed)).to.equal(true);
    expect(node(tc, 'order')).to.include({ status: 'passed' });
    // A test case directly in `ah` got the outer folder's hooks only.
    expect(byName('outer hook fails').status).to.equal('failed');
  });

  it('a failing outer hook fails the node naming its level and line, and nothing is sent', () => {
    const guarded = node(byName('outer hook fails'), 'guarded');
    expect(guarded.status).to.equal('failed');
    expect(guarded.error).to.match(/^test case beforeRequest failed \(line 2, column \d+\): Error: no token/);
    expect(target.hits.get('/echo')).to.equal(1);
    expect(run.status).to.equal('completed');
  });

  it('answers the folder resource (create, replace, get, list, delete) and refuses bad input naming the field', async () => {
    const path = encodeURIComponent('crud/one');
    const created = await app.request('PUT', `/v1/folders/${path}`, { authProfile: 'none' });
    expect(created.status).to.equal(201);
    expect(created.headers.get('location')).to.equal(`/v1/folders/${path}`);
    expect(created.body).to.include({ path: 'crud/one', hooks: null, authProfile: 'none' });
    const replaced = await app.request('PUT', `/v1/folders/${encodeURIComponent('/crud//one/')}`, {
      hooks: { code: 'function beforeRequest() {}' },
    });
    expect(replaced.status).to.equal(200);
    expect(replaced.body).to.include({ id: created.body.id, authProfile: null });
    expect((await app.request('GET', `/v1/folders/${path}`)).body.hooks).to.deep.equal({
      code: 'function beforeRequest() {}',
    });
    const list = (await app.request('GET', '/v1/folders')).body.items.map((f: Json) => f.path);
    expect(list).to.deep.equal(['ah', 'ah/sub', 'crud/one']);

    const badCode = await app.request('PUT', `/v1/folders/${path}`, { hooks: { code: 'function (' } });
    expect(badCode.status).to.equal(400);
    expect(badCode.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(badCode.body.code).to.equal('validation-failed');
    expect(badCode.body.errors[0].field).to.equal('hooks.code');
    const unknown = await app.request('PUT', `/v1/folders/${path}`, { hook: {} });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.errors[0]).to.include({ field: 'hook', detail: 'is not a known field' });
    const top = await app.request('PUT', `/v1/folders/${encodeURIComponent('/')}`, {});
    expect(top.status).to.equal(400);
    expect(top.body.errors[0].field).to.equal('path');

    expect((await app.request('DELETE', `/v1/folders/${path}`)).status).to.equal(204);
    const gone = await app.request('GET', `/v1/folders/${path}`);
    expect(gone.status).to.equal(404);
    expect(gone.body.code).to.equal('not-found');
  });

  it('validates Assert nodes and test case hooks when saved, naming the field at fault', async () => {
    const res = await app.request('POST', '/v1/test-cases', {
      name: 'bad',
      hooks: { code: 'function afterResponse( {' },
      flow: [
        { type: 'assert', id: 'a', skipIf: '(', assertions: [{ target: 'x', operator: 'isJson', expected: 1 }] },
        { type: 'assert', id: 'b', assertions: [] },
        { type: 'assert', id: 'c', assertions: [{ target: 'x', operator: 'equals' }], stopOnFailure: true },
      ],
    });
    expect(res.status).to.equal(400);
    const fields = res.body.errors.map((e: Json) => e.field);
    expect(fields).to.include.members(['flow[1].assertions', 'flow[2].stopOnFailure']);
    const hooksOnly = await app.request('POST', '/v1/test-cases', {
      name: 'bad hooks',
      hooks: { code: 'function afterResponse( {' },
      flow: [{ type: 'assert', id: 'a', skipIf: '(', assertions: [{ target: 'x', operator: 'isJson', expected: 1 }] }],
    });
    expect(hooksOnly.status).to.equal(400);
    expect(hooksOnly.body.errors.map((e: Json) => e.field)).to.include.members([
      'flow[0].skipIf',
      'flow[0].assertions[0].expected',
    ]);
    const hooksBad = await app.request('POST', '/v1/test-cases', {
      name: 'bad hooks 2',
      hooks: { code: 'function afterResponse( {' },
      flow: [],
    });
    expect(hooksBad.status).to.equal(400);
    expect(hooksBad.body.errors[0].field).to.equal('hooks.code');
    // Stored hooks are answered, and removed with null.
    const ok = await app.request('POST', '/v1/test-cases', {
      name: 'hooks kept',
      hooks: { code: '// none' },
      flow: [],
    });
    expect(ok.body.hooks).to.deep.equal({ code: '// none' });
    const patched = await app.request('PATCH', `/v1/test-cases/${ok.body.id}`, { hooks: null });
    expect(patched.status).to.equal(200);
    expect(patched.body.hooks).to.equal(undefined);
  });
});
