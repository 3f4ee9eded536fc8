/**
 * Servers and environments that inherit, as pure functions: the merge of an `extends` chain, the
 * save-time checks of `extends` (cycles, missing parents, the depth bound), base URLs and their
 * joins, the servers a flow names, and the interpreter failing a node that names an unknown server
 * without sending anything (docs/reuse.md).
 */
import { expect } from 'chai';
import { extendsProblem, MAX_EXTENDS_DEPTH, mergeEnvironmentChain } from '../../src/store/environments';
import {
  joinServerUrl,
  missingServers,
  missingServersMessage,
  serverUrlProblem,
  UnknownServerError,
} from '../../src/flow/servers';
import { FlowInterpreter, resolveRequest, type InterpreterPort } from '../../src/flow';
import { validateFlow } from '../../src/validation/flow';
import type { ApiNode, FlowNode, RunSettings } from '../../src/domain/types';

const SETTINGS: RunSettings = {
  apiNodeActivity: 'local',
  requestTimeoutMs: 5000,
  maxResponseBytes: 1024,
  testCasesPerExecution: 100,
  maxLoopIterations: 10,
  segmentHistoryEvents: 1000,
};
const dynamic = { uuid: () => 'u', now: () => 0, random: () => 0 };
const api = (url: string, extra: Partial<ApiNode> = {}): ApiNode => ({
  type: 'api',
  id: 'n1',
  request: { method: 'GET', url },
  ...extra,
});

describe('environments that inherit: merge and checks', () => {
  it('merges a chain root first: a child overrides its parent, a grandparent value stays visible', () => {
    const sealed = { secret: true as const, sealed: 'v1:abc' };
    const merged = mergeEnvironmentChain([
      {
        name: 'root',
        variables: { a: 'root', b: 'root', token: sealed },
        servers: { users: 'http://r', orders: 'http://r' },
      },
      { name: 'mid', variables: { b: 'mid' }, servers: { orders: 'http://m' } },
      { name: 'leaf', variables: { c: 'leaf' }, servers: null },
    ]);
    expect(merged.variables).to.deep.equal({ a: 'root', b: 'mid', token: sealed, c: 'leaf' });
    expect(merged.variableFrom).to.deep.equal({ a: 'root', b: 'mid', token: 'root', c: 'leaf' });
    expect(merged.servers).to.deep.equal({ users: 'http://r', orders: 'http://m' });
    expect(merged.serverFrom).to.deep.equal({ users: 'root', orders: 'mid' });
  });

  it('refuses a parent that does not exist, itself, and cycles through others', () => {
    const links = new Map<string, string | null>([
      ['a', null],
      ['b', 'a'],
      ['c', 'b'],
    ]);
    expect(extendsProblem(links, 'c', 'b')).to.equal(undefined);
    expect(extendsProblem(links, 'd', 'nope')).to.match(/no environment named "nope"/);
    expect(extendsProblem(new Map([...links, ['a', 'a']]), 'a', 'a')).to.match(/cannot extend itself/);
    expect(extendsProblem(new Map([...links, ['a', 'c']]), 'a', 'c')).to.equal('would make a cycle: a → c → b → a');
    expect(extendsProblem(new Map([...links, ['a', 'b']]), 'a', 'b')).to.equal('would make a cycle: a → b → a');
  });

  it(`bounds a chain at ${MAX_EXTENDS_DEPTH} environments, counting those that extend the one saved`, () => {
    const links = new Map<string, string | null>([['e1', null]]);
    for (let i = 2; i <= MAX_EXTENDS_DEPTH; i++) links.set(`e${i}`, `e${i - 1}`);
    expect(extendsProblem(links, `e${MAX_EXTENDS_DEPTH}`, `e${MAX_EXTENDS_DEPTH - 1}`)).to.equal(undefined);
    const deeper = new Map([...links, ['e11', `e${MAX_EXTENDS_DEPTH}`]]);
    expect(extendsProblem(deeper, 'e11', `e${MAX_EXTENDS_DEPTH}`)).to.match(/more than 10 environments/);
    // A new root above e1 makes e10's chain 11 long.
    const above = new Map([...links, ['top', null], ['e1', 'top']]);
    expect(extendsProblem(above, 'e1', 'top')).to.match(/more than 10 environments \(e10 → .* → e1…\)/);
  });
});

describe('servers: URLs, joins and references', () => {
  it('accepts absolute http(s) base URLs, with templates, and refuses the rest', () => {
    expect(serverUrlProblem('https://users.example.com/api/')).to.equal(undefined);
    expect(serverUrlProblem('https://{{tenant}}.example.com')).to.equal(undefined);
    expect(serverUrlProblem('users.example.com')).to.match(/absolute http/);
    expect(serverUrlProblem('ftp://x')).to.match(/absolute http/);
    expect(serverUrlProblem('https://x/?a=1')).to.match(/query or fragment/);
  });

  it('joins a base and a path with exactly one slash', () => {
    expect(joinServerUrl('http://h/api/', '/users')).to.equal('http://h/api/users');
    expect(joinServerUrl('http://h/api', 'users')).to.equal('http://h/api/users');
    expect(joinServerUrl('http://h//', '//users')).to.equal('http://h/users');
    expect(joinServerUrl('http://h/', '?q=1')).to.equal('http://h?q=1');
    expect(joinServerUrl('http://h/', '')).to.equal('http://h/');
  });

  it('resolves `server` and {{server.<name>}} before templates; a plan without servers is filled as before', () => {
    const servers = { users: 'http://{{host}}/api/', orders: 'http://o' };
    const vars = { host: 'u.test', id: 7 };
    const both = api('/users/{{id}}', {
      server: 'users',
      request: {
        method: 'POST',
        url: '/users/{{id}}',
        headers: { 'X-Orders': '{{server.orders}}' },
        body: { o: '{{ server.orders }}/x' },
      },
    });
    const r = resolveRequest(both, vars, dynamic, SETTINGS, servers);
    expect(r.url).to.equal('http://u.test/api/users/7');
    expect(r.headers).to.deep.equal({ 'X-Orders': 'http://o' });
    expect(r.body).to.deep.equal({ o: 'http://o/x' });
    // No servers in the plan: `{{server.x}}` is an ordinary (unknown) template, left as written.
    expect(resolveRequest(api('{{server.x}}/a'), {}, dynamic, SETTINGS).url).to.equal('{{server.x}}/a');
    // A variable `server` answers names the servers lack.
    expect(resolveRequest(api('{{server.x}}/a'), { server: { x: 'http://v' } }, dynamic, SETTINGS, {}).url).to.equal(
      'http://v/a',
    );
    expect(() => resolveRequest(api('{{server.ghost}}/a'), {}, dynamic, SETTINGS, servers))
      .to.throw(UnknownServerError)
      .with.property('message')
      .that.matches(/Server "ghost" is not defined .*its servers: users, orders/);
  });

  it('finds every server a flow names, nested nodes included, and says which are missing', () => {
    const flow: FlowNode[] = [
      api('/a', { id: 'top', server: 'users' }),
      {
        type: 'if',
        id: 'cond',
        condition: 'true',
        then: [
          {
            type: 'loop',
            id: 'l',
            count: 1,
            body: [api('{{server.payments}}/pay', { id: 'pay', name: 'pay it' })],
          },
        ],
      },
    ];
    const missing = missingServers([{ id: 'tc1', name: 'checkout', flow }], { users: 'http://u' }, {});
    expect(missing).to.deep.equal([
      { testCase: 'checkout', testCaseId: 'tc1', node: 'pay', nodeName: 'pay it', server: 'payments' },
    ]);
    expect(missingServersMessage(missing, 'staging', { users: 'http://u' })).to.equal(
      'Test case "checkout", node "pay it" (pay) names server "payments", which environment "staging" does not define (its servers: users)',
    );
    expect(missingServers([{ id: 'tc1', name: 'checkout', flow }], { users: 'u', payments: 'p' }, {})).to.deep.equal(
      [],
    );
  });

  it('refuses at save an absolute URL on a node that names a server, and a server name that is not an identifier', () => {
    const issues = validateFlow([api('https://elsewhere/x', { server: 'users' })]);
    expect(issues.map((i) => i.path.join('.'))).to.deep.equal(['flow.0.request.url']);
    const bad = validateFlow([api('/x', { server: 'no spaces' })]);
    expect(bad.map((i) => i.path.join('.'))).to.deep.equal(['flow.0.server']);
    expect(validateFlow([api('/x', { server: 'users_v2-eu' })])).to.deep.equal([]);
  });

  it('fails a node naming an unknown server with a clear message, sending nothing', async () => {
    let sent = 0;
    const port = {
      runId: 'run_x',
      settings: SETTINGS,
      dynamic,
      deadlineMs: Number.MAX_SAFE_INTEGER,
      servers: { users: 'http://u' },
      now: () => 0,
      executeApiNode: () => {
        sent += 1;
        return Promise.reject(new Error('must not be sent'));
      },
      beforeNode: () => undefined,
      afterNode: () => Promise.resolve(),
      evaluate: () => Promise.resolve(true),
    } as unknown as InterpreterPort;
    const result = await FlowInterpreter.runTestCase(
      port,
      { id: 'tc', name: 'tc', folder: '', tags: [], dataSets: {}, flow: [api('{{server.ghost}}/x', { id: 'g' })] },
      {},
    );
    expect(sent).to.equal(0);
    expect(result.status).to.equal('failed');
    expect(result.nodes[0]).to.include({ id: 'g', status: 'failed' });
    expect(result.nodes[0]!.error).to.match(
      /Server "ghost" is not defined by the run's environment \(its servers: users\)/,
    );
    expect(result.failures[0]).to.include({ node: 'g' });
  });
});
