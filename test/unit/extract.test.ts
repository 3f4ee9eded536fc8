/**
 * Extracting variables on API nodes (`extract`, docs/flows.md "Extracting variables"): names set
 * from JSONata over the response after it arrives, in order, before the assertions, which see
 * them; later nodes' templates and expressions see them too; a failing expression fails the node
 * naming `extract.<name>`; `undefined` removes the variable. Run in-process through the direct port
 * (activities/direct-port.ts) against a real HTTP server on 127.0.0.1. Validation refuses a
 * non-string expression.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestCaseResult } from '../../src/domain/types';
import { validateFlow } from '../../src/validation/flow';
import { useInterpreter } from '../helpers/interpreter';

describe('API node extract', function () {
  this.timeout(30_000);
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'r-42' });
    res.end(JSON.stringify({ token: 'tok-1', user: { id: 7, tags: ['a', 'b'] } }));
  });
  let base = '';
  const interpreter = useInterpreter();

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (seen.length = 0));

  function run(flow: unknown[], variables: Record<string, unknown> = {}): Promise<TestCaseResult> {
    return interpreter.run(flow, { name: 'x', variables: { base, ...variables } });
  }

  it('sets variables from the response that its own assertions and later nodes read', async () => {
    const result = await run([
      {
        type: 'api',
        id: 'login',
        request: { method: 'GET', url: '{{base}}/login' },
        extract: {
          token: 'response.body.token',
          userId: 'response.body.user.id',
          requestId: 'response.headers.`x-request-id`',
          // A later extraction sees an earlier one.
          bearer: '"Bearer " & variables.token',
        },
        assertions: [{ target: 'variables.userId', operator: 'equals', expected: 7 }],
      },
      { type: 'api', id: 'me', request: { method: 'GET', url: '{{base}}/users/{{userId}}?t={{token}}' } },
      {
        type: 'assert',
        id: 'check',
        assertions: [
          { target: 'variables.bearer', operator: 'equals', expected: 'Bearer tok-1' },
          { target: 'variables.requestId', operator: 'equals', expected: 'r-42' },
        ],
      },
    ]);
    expect(result.status, JSON.stringify(result.failures)).to.equal('passed');
    expect(seen).to.deep.equal(['/login', '/users/7?t=tok-1']);
    expect(result.nodes[0]!.variablesSet).to.deep.equal({
      token: 'tok-1',
      userId: 7,
      requestId: 'r-42',
      bearer: 'Bearer tok-1',
    });
  });

  it('fails the node naming the extraction whose expression fails, and removes a variable set to undefined', async () => {
    const failed = await run([
      { type: 'api', id: 'a', request: { method: 'GET', url: '{{base}}/a' }, extract: { bad: '$number("x") +' } },
    ]);
    expect(failed.status).to.equal('failed');
    expect(failed.nodes[0]!.error).to.match(/^extract\.bad: /);

    const removed = await run(
      [
        {
          type: 'api',
          id: 'a',
          request: { method: 'GET', url: '{{base}}/a' },
          extract: { old: 'response.body.missing' },
        },
        {
          type: 'assert',
          id: 'gone',
          assertions: [{ target: '$exists(variables.old)', operator: 'equals', expected: false }],
        },
      ],
      { old: 'before' },
    );
    expect(removed.status, JSON.stringify(removed.failures)).to.equal('passed');
  });

  it('is validated: an expression must be a string', () => {
    const issues = validateFlow([
      { type: 'api', id: 'a', request: { method: 'GET', url: 'http://x' }, extract: { token: 42 } },
    ] as never);
    expect(JSON.stringify(issues)).to.contain('extract');
    expect(
      validateFlow([
        { type: 'api', id: 'a', request: { method: 'GET', url: 'http://x' }, extract: { t: 'response.body' } },
      ] as never),
    ).to.deep.equal([]);
  });
});
