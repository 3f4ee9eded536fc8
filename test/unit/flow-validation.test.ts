import { expect } from 'chai';
import { validateDataSets, validateFlow } from '../../src/validation/flow';
import { assignNodeIds } from '../../src/flow/tree';
import type { FlowNode } from '../../src/domain/types';

const api = (extra: Record<string, unknown> = {}) => ({
  type: 'api',
  request: { method: 'GET', url: 'http://x' },
  ...extra,
});

describe('flow validation (src/validation/flow)', () => {
  it('accepts a valid flow', () => {
    expect(
      validateFlow([api({ assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }] })]),
    ).to.deep.equal([]);
  });

  it('names the field at fault', () => {
    const issues = validateFlow([api(), { type: 'api', request: { method: 'GET /x', url: '' } }]);
    const paths = issues.map((i) => i.path.join('.'));
    expect(paths).to.include('flow.1.request.method');
    expect(paths).to.include('flow.1.request.url');
  });

  it('takes any method token (RFC 9110 §9.1) but CONNECT, the request settings and each auth scheme', () => {
    const request = (extra: Record<string, unknown>) => [
      { type: 'api', request: { method: 'GET', url: 'http://x', ...extra } },
    ];
    for (const method of ['PURGE', 'PROPFIND', 'MY-METHOD', 'm!#$%&*+.^_`|~'])
      expect(validateFlow(request({ method })), method).to.deep.equal([]);
    expect(validateFlow(request({ method: 'connect' }))).to.deep.equal([
      {
        path: ['flow', 0, 'request', 'method'],
        message: 'CONNECT opens a tunnel to a proxy; an API node cannot send it',
      },
    ]);
    const settings = {
      maxRedirects: 3,
      followOriginalHttpMethod: true,
      followAuthorizationHeader: true,
      strictSSL: false,
      disableUrlEncoding: true,
      alwaysSendBody: true,
    };
    expect(validateFlow(request(settings))).to.deep.equal([]);
    for (const auth of [
      { type: 'digest', username: '{{user}}', password: '{{password}}' },
      { type: 'oauth1', consumerKey: 'k', consumerSecret: 's', signatureMethod: 'HMAC-SHA256', placement: 'query' },
      { type: 'hawk', id: 'i', key: 'k', algorithm: 'sha1', includePayloadHash: true },
      { type: 'awsv4', accessKeyId: 'a', secretAccessKey: 's', region: 'eu-west-1', service: 'execute-api' },
    ])
      expect(validateFlow(request({ auth })), auth.type).to.deep.equal([]);
    expect(validateFlow(request({ auth: { type: 'digest', username: 'u' } }))).to.deep.equal([
      { path: ['flow', 0, 'request', 'auth', 'password'], message: 'is required' },
    ]);
    expect(validateFlow(request({ auth: { type: 'hawk', id: 'i', key: 'k', password: 'x' } }))).to.deep.equal([
      { path: ['flow', 0, 'request', 'auth', 'password'], message: 'is not a known field' },
    ]);
    const ntlm = validateFlow(request({ auth: { type: 'ntlm', username: 'u', password: 'p' } }));
    expect(ntlm).to.deep.equal([
      {
        path: ['flow', 0, 'request', 'auth', 'type'],
        message: 'must be one of "digest", "oauth1", "hawk", "awsv4"',
      },
    ]);
    expect(validateFlow(request({ maxRedirects: 51 })).map((i) => i.path.join('.'))).to.deep.equal([
      'flow.0.request.maxRedirects',
    ]);
  });

  it('rejects unknown node types and unknown fields', () => {
    expect(validateFlow([{ type: 'teleport' }]).map((i) => i.path.join('.'))).to.include('flow.0.type');
    const unknownField = validateFlow([api({ colour: 'red' })]);
    expect(unknownField).to.deep.include({ path: ['flow', 0, 'colour'], message: 'is not a known field' });
  });

  it('rejects a node id used twice', () => {
    const issues = validateFlow([api({ id: 'a' }), api({ id: 'a' })]);
    expect(issues).to.deep.equal([{ path: ['flow', 1, 'id'], message: '"a" is already the id of the node at flow.0' }]);
  });

  it('rejects expressions that do not parse, bad regexes, regexes RE2 cannot run, bad schemas, missing expected', () => {
    const issues = validateFlow([
      api({
        assertions: [
          { target: 'response.status = ', operator: 'exists' },
          { target: 'response.body.name', operator: 'matches', expected: '(' },
          { target: 'response.body.name', operator: 'matches', expected: '(a)\\1' },
          { target: 'response.body', operator: 'matchesSchema', expected: { type: 'nonsense' } },
          { target: 'response.status', operator: 'equals' },
          { target: 'response.status', operator: 'inRange', expected: [300, 200] },
        ],
      }),
    ]);
    const byPath = Object.fromEntries(issues.map((i) => [i.path.join('.'), i.message]));
    expect(byPath['flow.0.assertions.0.target']).to.contain('not a valid JSONata expression');
    expect(byPath['flow.0.assertions.1.expected']).to.contain('not a valid regular expression');
    expect(byPath['flow.0.assertions.2.expected']).to.contain('backreferences are not supported');
    expect(byPath['flow.0.assertions.3.expected']).to.contain('not a valid JSON Schema');
    expect(byPath['flow.0.assertions.4.expected']).to.equal('is required for equals');
    expect(byPath['flow.0.assertions.5.expected']).to.contain('[min, max]');
  });

  it('gives nodes without an id one that is not taken', () => {
    const flow = assignNodeIds([api(), api({ id: 'n1' }), api()] as unknown as FlowNode[]);
    expect(flow.map((n) => n.id)).to.deep.equal(['n2', 'n1', 'n3']);
  });
});

describe('flow validation of control nodes, scripts and data sets', () => {
  const ctx = (id: string) => ({ type: 'context', id, set: { a: '1' } });
  const paths = (issues: Array<{ path: Array<string | number>; message: string }>) =>
    Object.fromEntries(issues.map((i) => [i.path.join('.'), i.message]));

  it('accepts every node type nested in each other', () => {
    const flow = [
      {
        type: 'if',
        condition: 'true',
        then: [{ type: 'loop', count: 2, body: [ctx('c1')] }],
        else: [{ type: 'wait', ms: 10 }],
      },
      {
        type: 'iteration',
        items: '[1,2]',
        as: 'n',
        breakCondition: 'loop.index = 1',
        body: [{ type: 'parallel', concurrency: 2, children: [ctx('c2'), ctx('c3')] }],
      },
      {
        type: 'script',
        variable: 'v',
        script: {
          code: 'async function generateValue() { return 1 }',
          libs: ['crypto-js@4.2.0', 'https://cdn.example/lib.umd.js'],
        },
      },
    ];
    expect(validateFlow(flow)).to.deep.equal([]);
  });

  it('names the nested field at fault, with its path through branches and bodies', () => {
    const issues = validateFlow([
      { type: 'if', condition: 'true', then: [{ type: 'loop', count: 2, body: [{ type: 'wait', ms: -1 }] }] },
    ]);
    expect(issues.map((i) => i.path.join('.'))).to.include('flow.0.then.0.body.0.ms');
  });

  it('requires exactly one of count/while, items/dataSet, ms/expression', () => {
    const p = paths(
      validateFlow([
        { type: 'loop', body: [] },
        { type: 'loop', count: 1, while: 'true', body: [] },
        { type: 'iteration', body: [] },
        { type: 'wait' },
      ]),
    );
    expect(p['flow.0']).to.equal('a Loop node needs exactly one of count and while');
    expect(p['flow.1']).to.equal('a Loop node needs exactly one of count and while');
    expect(p['flow.2']).to.equal('an Iteration node needs exactly one of items and dataSet');
    expect(p['flow.3']).to.equal('a Wait node needs exactly one of ms and expression');
  });

  it('rejects references to nothing: an unknown node id in an expression, an unknown data set', () => {
    const p = paths(
      validateFlow(
        [
          { type: 'api', id: 'login', request: { method: 'GET', url: 'http://x' } },
          {
            type: 'if',
            condition: 'nodes.login.response.status = 200 and nodes.logout.response.status = 200',
            then: [],
          },
          { type: 'iteration', dataSet: 'users', body: [] },
        ],
        ['flow'],
        ['accounts'],
      ),
    );
    expect(p['flow.1.condition']).to.equal('refers to nodes.logout, but no node has the id "logout"');
    expect(p['flow.2.dataSet']).to.equal('no data set named "users" is attached to the test case');
  });

  it('accepts references to ids that will be given automatically', () => {
    expect(
      validateFlow([
        { type: 'api', request: { method: 'GET', url: 'http://x' } },
        { type: 'context', set: { s: 'nodes.n1.response.status' } },
      ]),
    ).to.deep.equal([]);
  });

  it('rejects script code that does not parse (with its line) and library entries that are neither URLs nor predefined', () => {
    const p = paths(
      validateFlow([
        { type: 'script', script: { code: 'const a = 1;\nconst = 2;', libs: ['lodash', 'ftp://x/y.js'] } },
      ]),
    );
    expect(p['flow.0.script.code']).to.match(/does not parse: .* \(line 2\)/);
    expect(p['flow.0.script.libs.0']).to.contain('predefined library');
    expect(p['flow.0.script.libs.1']).to.contain('http(s) URL');
  });

  it('validates data sets: shape, unique names, CSV that parses', () => {
    expect(
      validateDataSets([
        { name: 'a', type: 'json', data: [1] },
        { name: 'b', type: 'csv', csv: 'x,y\n1,2' },
      ]),
    ).to.deep.equal([]);
    expect(paths(validateDataSets([{ name: 'a', type: 'json', data: {} }]))['dataSets.0.data']).to.equal(
      'must be array',
    );
    const p = paths(
      validateDataSets([
        { name: 'dup', type: 'csv', csv: 'x\n1' },
        { name: 'dup', type: 'csv', csv: 'x,y\n"1,2' },
      ]),
    );
    expect(p['dataSets.1.name']).to.equal('"dup" is used by another data set');
    expect(p['dataSets.1.csv']).to.match(/^does not parse/);
  });

  it('numbers nodes without ids depth first through the tree', () => {
    const flow = assignNodeIds([
      { type: 'if', condition: 'true', then: [ctx(undefined as never), ctx('mine')] },
      ctx(undefined as never),
    ] as unknown as FlowNode[]);
    expect(flow.map((n) => n.id)).to.deep.equal(['n1', 'n3']);
    expect((flow[0] as { then: FlowNode[] }).then.map((n) => n.id)).to.deep.equal(['n2', 'mine']);
  });

  it("Ref nodes: a clone's flow is checked as a flow of its own (its ids apart), a live link carries none, inputs parse", () => {
    const clone = {
      id: 'login',
      type: 'ref',
      mode: 'clone',
      testCaseId: 'tc_1',
      inputs: { user: 'nodes.first.response.body.user' },
      flow: [api({ id: 'first' }), { type: 'context', set: { t: 'nodes.first.response.body' } }],
    };
    // "first" is the id of a caller node and of a sub-flow node: two flows, two namespaces.
    expect(validateFlow([api({ id: 'first' }), clone])).to.deep.equal([]);
    const issues = validateFlow([
      { type: 'ref', mode: 'ref', testCaseId: 'tc_1', flow: [] },
      { ...clone, inputs: { user: '(' }, flow: [{ type: 'context', set: { t: 'nodes.nope' } }] },
    ]);
    expect(issues.map((i) => i.path.join('.'))).to.have.members([
      'flow.0.flow',
      'flow.1.inputs.user',
      'flow.1.flow.0.set.t',
    ]);
    expect(validateFlow([{ type: 'ref', testCaseId: 'tc_1' }]).map((i) => i.path.join('.'))).to.deep.equal([
      'flow.0.mode',
    ]);
  });
});
