/**
 * The prepared request path of load tests (activities/prepared-request.ts) against the general path
 * (activities/nodes.ts → activities/api-request.ts): the same flow, run through the interpreter's
 * direct port once each way against the same loopback server, gives the same test case result
 * (statuses, assertions with their actual values, failures with their messages and codes, response
 * sizes, content codings, redirects), timings left out. Cases cover what the prepared path does
 * itself (JSON and text bodies, gzip, a body over the cap, HEAD, a templated POST, statuses a node
 * expects or not, a time limit, a refused connection, an address the policy refuses) and what it
 * hands over (a redirect chain with a cookie, an invalid URL); and the load part's measurements
 * (src/perf/metrics.ts) of the same iterations are the same both ways.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { loadConfig } from '../../src/config';
import { policyFromConfig, type AddressPolicy } from '../../src/net/address-policy';
import { directPorts } from '../../activities/direct-port';
import { FlowInterpreter } from '../../src/flow';
import type { FlowNode, TestCaseDefinition, TestCaseResult } from '../../src/domain/types';
import { readsNoBodies, startLoadPart, VU_ORIGINS, VuConnections } from '../../activities/load-part';
import { createPreparedSender, sendsPrepared } from '../../activities/prepared-request';
import { validateProfile } from '../../src/perf/profile';
import type { Sandbox } from '../../src/sandbox/sandbox';

const BIG = 'x'.repeat(5000);

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const json = (status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
  switch (url.pathname) {
    case '/item':
      return json(200, { id: 1, name: 'Ada', tags: ['a'] }, { 'x-trace': 'abc' });
    case '/text':
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end('plain words');
    case '/gzip': {
      const body = zlib.gzipSync(JSON.stringify({ zipped: true, pad: BIG }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      return void res.end(body);
    }
    case '/big':
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end(BIG);
    case '/missing':
      return json(404, { error: 'no such item' });
    case '/echo': {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => json(201, { got: JSON.parse(body || 'null'), type: req.headers['content-type'] }));
      return;
    }
    case '/slow':
      setTimeout(() => json(200, { late: true }), 1500).unref();
      return;
    case '/redirect':
      res.writeHead(302, { location: '/landing', 'set-cookie': 'session=s1; Path=/' });
      return void res.end('moved');
    case '/landing':
      return json(200, { cookie: req.headers.cookie ?? null, method: req.method });
    default:
      return json(500, { path: url.pathname });
  }
}

/** The result without what differs from one run to the next (times, sizes of time-dependent parts). */
function comparable(result: TestCaseResult): unknown {
  return JSON.parse(
    JSON.stringify(result, (key, value: unknown) =>
      ['duration', 'timeMs', 'finishedAtMs', 'startedAt', 'finishedAt', 'time'].includes(key) ? undefined : value,
    ),
  );
}

describe('the prepared request path of load tests', function () {
  let server: http.Server;
  let base: string;
  let policy: AddressPolicy;
  let refusing: AddressPolicy;
  const sandbox = {} as Sandbox;
  const settings = { requestTimeoutMs: 30_000, maxResponseBytes: 4096 } as never;

  before(async () => {
    server = http.createServer(handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const config = loadConfig({
      ASSAY_EGRESS_PRIVATE_FOR_NODES: 'loopback',
      ASSAY_DATA_DIR: '/tmp/assay-unit-prepared-request',
    });
    policy = policyFromConfig(config, { connections: null });
    refusing = policyFromConfig(loadConfig({ ASSAY_DATA_DIR: '/tmp/assay-unit-prepared-request' }), {
      connections: null,
    });
  });

  after(async () => {
    await policy.close();
    await refusing.close();
    server.closeAllConnections();
    server.close();
  });

  const testCase = (flow: unknown[]): TestCaseDefinition =>
    ({ id: 'tc', name: 'tc', folder: '', tags: [], dataSets: {}, flow: flow as FlowNode[] }) as TestCaseDefinition;

  /** Runs `flow` both ways (prepared with bodies kept, and dropped when nothing reads them). */
  async function bothWays(flow: unknown[], over: AddressPolicy = policy) {
    const tc = testCase(flow);
    const ports = directPorts({ sandbox, agent: over.agent('node') });
    const options = { runId: 'r', settings, deadlineMs: Date.now() + 60_000 };
    const general = await FlowInterpreter.runTestCaseWithVariables(ports(options), tc, { base });
    const prepared = await FlowInterpreter.runTestCaseWithVariables(
      ports({ ...options, prepared: { discardBody: readsNoBodies(tc) } }),
      tc,
      { base },
    );
    return { general: general.result, prepared: prepared.result };
  }

  const api = (id: string, request: Record<string, unknown>, assertions: unknown[] = [], extra = {}) => ({
    type: 'api',
    id,
    request,
    assertions,
    ...extra,
  });

  const cases: Array<[string, unknown[]]> = [
    [
      'JSON body, headers and status read by assertions',
      [
        api('get', { method: 'GET', url: '{{base}}/item' }, [
          { target: 'response.status', operator: 'equals', expected: 200 },
          { target: 'response.body.name', operator: 'equals', expected: 'Ada' },
          { target: 'response.headers."x-trace"', operator: 'equals', expected: 'abc' },
          { target: 'response.body.tags', operator: 'contains', expected: 'b' },
        ]),
      ],
    ],
    [
      'a text body',
      [
        api('text', { method: 'GET', url: '{{base}}/text' }, [
          { target: 'response.body', operator: 'equals', expected: 'plain words' },
        ]),
      ],
    ],
    [
      'a gzip body decoded (over the cap once decoded)',
      [
        api('gzip', { method: 'GET', url: '{{base}}/gzip' }, [
          { target: 'response.status', operator: 'equals', expected: 200 },
        ]),
      ],
    ],
    [
      'a body over the cap',
      [
        api('big', { method: 'GET', url: '{{base}}/big' }, [
          { target: 'response.size', operator: 'greaterThan', expected: 1 },
        ]),
      ],
    ],
    [
      'a body over the cap, read',
      [
        api('big', { method: 'GET', url: '{{base}}/big' }, [
          { target: 'response.body', operator: 'equals', expected: 'x' },
        ]),
      ],
    ],
    [
      'HEAD',
      [
        api('head', { method: 'HEAD', url: '{{base}}/item' }, [
          { target: 'response.size', operator: 'equals', expected: 0 },
        ]),
      ],
    ],
    [
      'a templated JSON POST',
      [
        api('post', { method: 'post', url: '{{base}}/echo', body: { name: '{{base}}', n: 3 } }, [
          { target: 'response.status', operator: 'equals', expected: 201 },
          { target: 'response.body.got.name', operator: 'equals', expected: 'nope' },
        ]),
      ],
    ],
    [
      'a status the node expects and one it does not',
      [
        api('expected', { method: 'GET', url: '{{base}}/missing' }, [
          { target: 'response.status', operator: 'equals', expected: 404 },
        ]),
        api('unexpected', { method: 'GET', url: '{{base}}/missing' }, [
          { target: 'response.status', operator: 'equals', expected: 200 },
        ]),
      ],
    ],
    ['a time limit', [api('slow', { method: 'GET', url: '{{base}}/slow', timeoutMs: 200 })]],
    ['a refused connection', [api('refused', { method: 'GET', url: 'http://127.0.0.1:9/none' })]],
    [
      'a redirect chain with a cookie',
      [
        api('redirect', { method: 'GET', url: '{{base}}/redirect' }, [
          { target: 'response.body.cookie', operator: 'equals', expected: 'session=s1' },
        ]),
      ],
    ],
    [
      'a redirect not followed',
      [
        api('redirect', { method: 'GET', url: '{{base}}/redirect', followRedirects: false }, [
          { target: 'response.status', operator: 'equals', expected: 302 },
        ]),
      ],
    ],
    ['an invalid URL', [api('invalid', { method: 'GET', url: 'not a url' })]],
    [
      'an extract then a templated URL',
      [
        api('first', { method: 'GET', url: '{{base}}/item' }, [], { extract: { id: 'response.body.id' } }),
        api('second', { method: 'GET', url: '{{base}}/missing?id={{id}}' }),
      ],
    ],
  ];

  for (const [name, flow] of cases)
    it(`gives the general path's result: ${name}`, async () => {
      const { general, prepared } = await bothWays(flow);
      expect(comparable(prepared)).to.deep.equal(comparable(general));
    });

  it("gives the general path's result for an address the policy refuses", async () => {
    const { general, prepared } = await bothWays([api('refused', { method: 'GET', url: '{{base}}/item' })], refusing);
    expect(general.failures[0]?.errorCode).to.equal('ADDRESS_NOT_ALLOWED');
    expect(comparable(prepared)).to.deep.equal(comparable(general));
  });

  it('the cases are not vacuous: they pass and fail as written', async () => {
    const { general } = await bothWays(cases[0]![1]);
    expect(general.status).to.equal('failed');
    expect(general.assertions).to.equal(4);
    expect(general.passedAssertions).to.equal(3);
    const { general: redirect } = await bothWays(cases[10]![1]);
    expect(redirect.status).to.equal('passed');
  });

  it('takes only nodes that need nothing of the general path', () => {
    const input = {
      runId: 'r',
      label: 'n',
      request: {
        method: 'GET',
        url: 'http://x/',
        headers: {},
        timeoutMs: 1,
        followRedirects: true,
        maxResponseBytes: 1,
      },
      variables: {},
      deadlineMs: 0,
    } as never as Parameters<typeof sendsPrepared>[0];
    expect(sendsPrepared(input)).to.equal(true);
    expect(sendsPrepared({ ...input, script: { code: 'x' } } as never)).to.equal(false);
    expect(sendsPrepared({ ...input, retry: { attempts: 3 } } as never)).to.equal(false);
    expect(sendsPrepared({ ...input, authProfile: { name: 'p' } } as never)).to.equal(false);
    expect(sendsPrepared({ ...input, request: { ...input.request, auth: { type: 'basic' } } } as never)).to.equal(
      false,
    );
    expect(sendsPrepared({ ...input, request: { ...input.request, file: { file: 'f' } } } as never)).to.equal(false);
  });

  it('drops bodies only where nothing of the test case reads them', () => {
    const status = [{ target: 'response.status', operator: 'equals', expected: 200 }];
    expect(
      readsNoBodies(testCase([api('a', { method: 'GET', url: 'x' }, status), { type: 'wait', id: 'w', ms: 1 }])),
    ).to.equal(true);
    expect(
      readsNoBodies(
        testCase([api('a', { method: 'GET', url: 'x' }, [{ target: 'response.body.id', operator: 'exists' }])]),
      ),
    ).to.equal(false);
    expect(
      readsNoBodies(
        testCase([api('a', { method: 'GET', url: 'x' }, [{ target: '$count(response.headers)', operator: 'exists' }])]),
      ),
    ).to.equal(false);
    expect(
      readsNoBodies(testCase([api('a', { method: 'GET', url: 'x' }, status, { extract: { id: 'response.status' } })])),
    ).to.equal(false);
    expect(
      readsNoBodies(
        testCase([api('a', { method: 'GET', url: 'x' }, status), { type: 'assert', id: 's', assertions: [] }]),
      ),
    ).to.equal(false);
    expect(
      readsNoBodies({ ...testCase([api('a', { method: 'GET', url: 'x' }, status)]), hooks: { code: '' } } as never),
    ).to.equal(false);
  });

  it('a sender used directly counts a dropped body and keeps none', async () => {
    const send = createPreparedSender(policy.agent('node'));
    const out = await send(
      {
        runId: 'r',
        label: 'n',
        request: {
          method: 'GET',
          url: `${base}/big`,
          headers: {},
          timeoutMs: 5000,
          followRedirects: true,
          maxResponseBytes: 100_000,
        },
        variables: {},
        deadlineMs: Date.now() + 10_000,
      } as never,
      { discardBody: true },
    );
    expect(out.exchange?.status).to.equal(200);
    expect(out.exchange?.size).to.equal(BIG.length);
    expect(out.exchange?.body).to.equal(undefined);
    expect(out.attempts).to.have.length(1);
  });

  it("a load part's measurements are the same both ways", async () => {
    const flow = [
      api('get', { method: 'GET', url: '{{base}}/item' }, [
        { target: 'response.status', operator: 'equals', expected: 200 },
      ]),
      api('miss', { method: 'GET', url: '{{base}}/missing' }, [
        { target: 'response.status', operator: 'equals', expected: 200 },
      ]),
      api('gzip', { method: 'GET', url: '{{base}}/gzip' }),
    ];
    const plan = {
      runId: 'r',
      workspaceId: 'w',
      environment: 'e',
      variables: { base },
      settings: { requestTimeoutMs: 30_000, maxResponseBytes: 1 << 20 },
      testCases: [testCase(flow)],
      performance: {
        // Arrival rate: the same 12 iterations both ways, at most one under way at a time.
        profile: validateProfile({
          executor: 'constant-arrival-rate',
          rate: 40,
          timeUnit: '1s',
          duration: '300ms',
          preAllocatedVUs: 1,
          maxVUs: 1,
        }).profile,
      },
    } as never;
    const ports = directPorts({ sandbox, agent: policy.agent('node') });
    const measure = async (requestPath: 'prepared' | 'general') => {
      const part = startLoadPart({ runId: 'r', plan, part: 0, parts: 1, requestPath }, ports, undefined, (origin) =>
        policy.connection('node', origin),
      );
      await part.done;
      const { all, byName } = part.state().metrics;
      return {
        requests: all.requests,
        failed: all.failed,
        checks: [all.checks, all.passedChecks],
        received: part.state().metrics.bytesReceived,
        sent: part.state().metrics.bytesSent,
        names: Object.fromEntries(
          Object.entries(byName).map(([n, s]) => [n, [s.requests, s.failed, s.checks, s.passedChecks]]),
        ),
      };
    };
    const general = await measure('general');
    const prepared = await measure('prepared');
    expect(general.requests).to.be.greaterThan(0);
    expect(general.failed).to.be.greaterThan(0);
    const perIteration = (m: typeof general) => ({
      failedShare: m.failed / m.requests,
      checkShare: m.checks[1]! / m.checks[0]!,
      receivedPerRequest: m.received / m.requests,
      sentPerRequest: m.sent / m.requests,
    });
    expect(perIteration(prepared)).to.deep.equal(perIteration(general));
    expect(Object.keys(prepared.names).sort()).to.deep.equal(Object.keys(general.names).sort());
  });
});

describe("load parts' VU connections", () => {
  /** A stand-in connection that records whether it was destroyed. */
  const fake = (origin: string) => {
    const client = { origin, destroyed: false, destroy: async () => void (client.destroyed = true) };
    return client;
  };

  it('gives each VU one connection of its own per origin, lent to one request at a time', () => {
    const made: Array<ReturnType<typeof fake>> = [];
    const connections = new VuConnections((origin) => {
      const c = fake(origin);
      made.push(c);
      return c as never;
    });
    const vu1 = connections.of(1)!;
    const first = vu1('http://a')!;
    // A second request of the same VU while the first is under way (a Parallel node's lane): not lent.
    expect(vu1('http://a')).to.equal(undefined);
    first.release();
    const again = vu1('http://a')!;
    expect(again.dispatcher).to.equal(first.dispatcher);
    again.release();
    const other = connections.of(2)!('http://a')!;
    expect(other.dispatcher).not.to.equal(first.dispatcher);
    expect(vu1('http://b')!.dispatcher).not.to.equal(first.dispatcher);
    expect(made.map((c) => c.origin)).to.deep.equal(['http://a', 'http://a', 'http://b']);
    connections.close();
    expect(made.every((c) => c.destroyed)).to.equal(true);
  });

  it(`keeps at most ${VU_ORIGINS} origins per VU; none without a way to connect`, () => {
    const connections = new VuConnections((origin) => fake(origin) as never);
    const vu = connections.of(7)!;
    for (let i = 0; i < VU_ORIGINS; i++) expect(vu(`http://h${i}`)).not.to.equal(undefined);
    expect(vu('http://one-more')).to.equal(undefined);
    expect(new VuConnections().of(1)).to.equal(undefined);
  });
});
