/**
 * Node results' `errorCode` (docs/flows.md "Error codes"), in one real run against loopback
 * servers: one test case per code, each failing its node that way for real — a closed port, a
 * server that hangs up or never answers, a URL that is no URL, the API's own port (refused by the
 * address policy as infrastructure, as in test/integration/security/address-policy.test.ts), a
 * redirect loop past `maxRedirects`, a body that is not in its `Content-Encoding`, an auth profile
 * whose token endpoint answers 400, variables that keep a node's output over its cap; a Poll node
 * refused at once; WebSocket and SSE handshakes refused or not event streams, a stream that never
 * opens, a message over 1 MiB, an `until` that throws; gRPC calls whose message, metadata or target
 * cannot be sent. Each result carries its code beside its error (and its `failures` entry the
 * same), passing and assertion-failed nodes carry none, the results document is what the API's
 * OpenAPI description says it is (`RunResults`, `NodeResult`), and the JUnit, HTML and terminal
 * reports made from it show the code.
 *
 * The table of docs/flows.md is read too: every code it lists is provoked here, or named in
 * {@link ELSEWHERE} with where it is tested or why a run cannot meet it.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { WebSocketServer } from 'ws';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { freePort } from '../../../src/net/free-port';
import { renderCli, renderHtml, renderJunit } from '../../../cli/reports/index';
import type { ReportInput } from '../../../cli/reports/model';
import { junitSchemaErrors, parseXml, testcases } from '../../fixtures/junit/validate';
import { GREETER_PROTO_PATH } from '../../helpers/grpc-server';

type Json = Record<string, any>;

/** docs/flows.md, read from the source tree (tests run from dist/). */
const FLOWS_DOC = path.resolve(__dirname, '../../../../docs/flows.md');

/**
 * Codes of the docs' table not provoked by this run, and why: where they are tested, or why a run
 * cannot meet them.
 */
const ELSEWHERE: Record<string, string> = {
  ECONNRESET: "the system's codes pass through as they are: ECONNREFUSED stands for them here",
  ENOTFOUND: 'as ECONNRESET (and a name that does not resolve depends on the machine’s resolver)',
  EAI_AGAIN: 'as ENOTFOUND',
  EHOSTUNREACH: 'as ECONNRESET',
  ENETUNREACH: 'as ECONNRESET',
  EPIPE: 'as ECONNRESET',
  ETIMEDOUT: 'as ECONNRESET',
  INPUT_TOO_LARGE: 'needs ASSAY_API_NODE_ACTIVITY=normal: test/integration/runs/payload-limits.test.ts',
  PROTO_INVALID: 'refused when a test case is saved (test/integration/async/grpc.test.ts)',
  METHOD_NOT_FOUND: 'as PROTO_INVALID',
  METHOD_NOT_SUPPORTED: 'as PROTO_INVALID',
  FILE_NOT_FOUND:
    'needs a workspace file: test/integration/runs/files.test.ts (nothing sent, the node failed naming the missing ref)',
};

const proto = fs.readFileSync(GREETER_PROTO_PATH, 'utf8');
const api = (id: string, request: Json, extra: Json = {}) => ({ type: 'api', id, request, ...extra });
const get = (url: string, extra: Json = {}) => ({ method: 'GET', url, ...extra });
const grpc = (id: string, extra: Json) => ({
  type: 'grpc',
  id,
  target: '{{closedGrpc}}',
  proto,
  service: 'assay.greeter.Greeter',
  method: 'SayHello',
  message: { name: 'Ada' },
  ...extra,
});

/** One test case per code: its name is the code, its one (or last) node `n` fails that way. */
function errorCases(apiPort: number): Array<{ code: string; error: RegExp; flow: Json[] }> {
  const own = `127.0.0.1:${apiPort}`;
  return [
    {
      code: 'ECONNREFUSED',
      error: /^Could not reach http:\/\/127\.0\.0\.1:\d+\/: ECONNREFUSED/,
      flow: [api('n', get('{{closed}}/'))],
    },
    {
      code: 'NETWORK_ERROR',
      error: /^Request GET http:\/\/127\.0\.0\.1:\d+\/ failed: /,
      flow: [api('n', get('{{hangup}}/'))],
    },
    {
      code: 'TIMEOUT',
      error: /^No complete response from GET http:\/\/127\.0\.0\.1:\d+\/hang within 300 ms$/,
      flow: [api('n', get('{{base}}/hang', { timeoutMs: 300 }))],
    },
    {
      code: 'INVALID_URL',
      error: /^"\{\{nowhere\}\}\/x" is not a valid absolute URL$/,
      flow: [api('n', get('{{nowhere}}/x'))],
    },
    {
      code: 'ADDRESS_NOT_ALLOWED',
      error: /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/egress-probe was not sent \(ADDRESS_NOT_ALLOWED\): /,
      flow: [api('n', get(`http://${own}/v1/egress-probe`))],
    },
    {
      code: 'TOO_MANY_REDIRECTS',
      error: /^More than 2 redirects from http:\/\/127\.0\.0\.1:\d+\/loop \(maxRedirects 2\)$/,
      flow: [api('n', get('{{base}}/loop', { maxRedirects: 2 }))],
    },
    {
      code: 'DECODING_FAILED',
      error: /^The response to GET http:\/\/127\.0\.0\.1:\d+\/bogus-gzip could not be read: /,
      flow: [api('n', get('{{base}}/bogus-gzip'))],
    },
    {
      code: 'AUTH_PROFILE_FAILED',
      error: /^auth profile "broken-token": token endpoint answered 400 invalid_client: Client authentication failed/,
      flow: [api('n', get('{{base}}/json'), { authProfile: 'broken-token' })],
    },
    {
      // Three Context nodes set 600 KB of variables: the API node's output (its variables) stays over 512 KiB.
      code: 'RESULT_TOO_LARGE',
      error: /^the node result exceeds 512 KiB/,
      flow: [
        ...['a', 'b', 'c'].map((v) => ({ type: 'context', id: v, set: { [v]: `$pad("", 200000, "${v}")` } })),
        api('n', get('{{base}}/json')),
      ],
    },
    {
      code: 'HANDSHAKE_FAILED',
      error: /was not opened: the server answered 403 Forbidden instead of 101 Switching Protocols$/,
      flow: [{ type: 'websocket', id: 'n', url: '{{ws}}/forbidden' }],
    },
    {
      code: 'NOT_EVENT_STREAM',
      error: /answered 200 with Content-Type "application\/json", not text\/event-stream$/,
      flow: [{ type: 'sse', id: 'n', url: '{{base}}/json' }],
    },
    {
      code: 'MESSAGE_TOO_LARGE',
      error: /: a message over 1048576 bytes ended the connection$/,
      flow: [{ type: 'websocket', id: 'n', url: '{{ws}}/big' }],
    },
    {
      code: 'UNTIL_FAILED',
      error: /^until `\$error\("not this one"\)` failed: /,
      flow: [{ type: 'websocket', id: 'n', url: '{{ws}}/ticks', until: '$error("not this one")' }],
    },
    {
      code: 'MESSAGE_INVALID',
      error: /^the request message does not fit: .*has no field "nmae"/,
      flow: [grpc('n', { message: { nmae: 'Ada' } })],
    },
    {
      code: 'METADATA_INVALID',
      error: /^metadata: /,
      flow: [grpc('n', { metadata: { 'bad key': 'x' } })],
    },
    {
      code: 'INVALID_TARGET',
      error: /^"127\.0\.0\.1": a port is needed \(host:port\)$/,
      flow: [grpc('n', { target: '127.0.0.1' })],
    },
  ];
}

/** Nodes of other kinds failed by a code: the code, and the node's flow. */
function otherKinds(apiPort: number): Array<{ name: string; code: string; flow: Json[] }> {
  return [
    {
      name: 'poll refused at once',
      code: 'INVALID_URL',
      flow: [{ type: 'poll', id: 'n', request: get('{{nowhere}}/job'), until: 'response.status = 200', interval: 10 }],
    },
    {
      name: 'websocket refused by the policy',
      code: 'ADDRESS_NOT_ALLOWED',
      flow: [{ type: 'websocket', id: 'n', url: `ws://127.0.0.1:${apiPort}/v1/egress-probe` }],
    },
    {
      name: 'websocket that never opens',
      code: 'TIMEOUT',
      flow: [{ type: 'websocket', id: 'n', url: '{{ws}}/hang', timeout: '300ms' }],
    },
    {
      name: 'grpc refused by the policy',
      code: 'ADDRESS_NOT_ALLOWED',
      flow: [grpc('n', { target: `127.0.0.1:${apiPort}` })],
    },
  ];
}

/** Failures without a code: a passing node, a failed assertion, a Poll condition that never held. */
const NO_CODE = [
  {
    name: 'passes',
    flow: [
      api('n', get('{{base}}/json'), {
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      }),
    ],
  },
  {
    name: 'assertion fails',
    flow: [
      api('n', get('{{base}}/json'), {
        assertions: [{ target: 'response.status', operator: 'equals', expected: 201 }],
      }),
    ],
  },
  {
    name: 'poll condition never holds',
    flow: [
      {
        type: 'poll',
        id: 'n',
        request: get('{{closed}}/job'),
        until: 'response.status = 200',
        interval: 10,
        maxAttempts: 2,
      },
    ],
  },
];

/**
 * The run's loopback servers: HTTP (a redirect loop, a gzip header on plain bytes, a request left
 * unanswered, a token endpoint that refuses, JSON) with WebSocket upgrades (403, never answered, a
 * message over 1 MiB, ticks), a TCP server that hangs up on every request, and a closed port.
 */
async function startServers(): Promise<{ vars: Record<string, string>; close(): Promise<void> }> {
  const sockets = new Set<Duplex>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    req.resume();
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    if (url.pathname === '/bogus-gzip')
      return res
        .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        .end('{"this":"is not gzip"}');
    if (url.pathname === '/hang') return; // never answered: closed with the server
    if (url.pathname === '/token')
      return json(400, { error: 'invalid_client', error_description: 'Client authentication failed' });
    return json(200, { ok: true });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4 * 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    sockets.add(socket);
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/forbidden')
      return void socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    if (url.pathname === '/hang') return; // the handshake is never answered
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (url.pathname === '/big') return ws.send('x'.repeat(1024 * 1024 + 4096));
      let i = 0;
      const tick = setInterval(() => {
        if (ws.readyState !== ws.OPEN || i >= 50) return clearInterval(tick);
        ws.send(JSON.stringify({ i: i++ }));
      }, 20);
      timers.add(tick);
    });
  });
  const hangup = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.once('data', () => s.end());
    s.on('error', () => undefined);
  });
  const listen = (srv: net.Server) =>
    new Promise<number>((resolve) =>
      srv.listen(0, '127.0.0.1', () => resolve((srv.address() as net.AddressInfo).port)),
    );
  const [port, hangupPort, closedPort] = await Promise.all([listen(server), listen(hangup), freePort()]);
  return {
    vars: {
      base: `http://127.0.0.1:${port}`,
      ws: `ws://127.0.0.1:${port}`,
      hangup: `http://127.0.0.1:${hangupPort}`,
      closed: `http://127.0.0.1:${closedPort}`,
      closedGrpc: `127.0.0.1:${closedPort}`,
    },
    async close() {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      wss.close();
      await Promise.all([new Promise((r) => server.close(r)), new Promise((r) => hangup.close(r))]);
    },
  };
}

describe('node results carry errorCode (docs/flows.md "Error codes")', function () {
  this.timeout(180_000);
  let app: TestApp;
  let servers: Awaited<ReturnType<typeof startServers>>;
  let run: Json;
  let results: Json;
  let cases: ReturnType<typeof errorCases>;
  let others: ReturnType<typeof otherKinds>;

  const testCase = (name: string): Json => {
    const tc = results.details.testCases.find((t: Json) => t.name === name);
    expect(tc, name).to.not.equal(undefined);
    return tc;
  };
  const node = (name: string): Json => testCase(name).nodes.find((n: Json) => n.id === 'n');

  before(async () => {
    [app, servers] = await Promise.all([startTestApp({ worker: true }), startServers()]);
    const apiPort = Number(new URL(app.url).port);
    cases = errorCases(apiPort);
    others = otherKinds(apiPort);
    const env = await app.request('POST', '/v1/environments', { name: 'codes', variables: servers.vars });
    expect(env.status, JSON.stringify(env.body)).to.equal(201);
    const profile = await app.request('POST', '/v1/auth-profiles', {
      name: 'broken-token',
      type: 'oauth2',
      config: { grant: 'client_credentials', tokenUrl: '{{base}}/token', clientId: 'assay', clientSecret: 'not-it' },
    });
    expect(profile.status, JSON.stringify(profile.body)).to.equal(201);
    const all = [
      ...cases.map((c) => ({ name: c.code, flow: c.flow })),
      ...others.map((c) => ({ name: c.name, flow: c.flow })),
      ...NO_CODE,
    ];
    for (const tc of all) {
      const made = await app.request('POST', '/v1/test-cases', { ...tc, folder: 'codes' });
      expect(made.status, `${tc.name}: ${JSON.stringify(made.body)}`).to.equal(201);
    }
    expect((await app.request('POST', '/v1/runners', { name: 'codes', folder: 'codes' })).status).to.equal(201);
    const started = await app.request('POST', '/v1/runs', { runner: 'codes', environment: 'codes' });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    run = await waitForRun(app, started.body.runId, 150_000);
    results = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
  });
  after(async () => {
    await servers?.close();
    await app?.stop();
  });

  it('the run completes, failed by the nodes meant to fail', () => {
    expect(run).to.include({ status: 'completed', result: 'failed' });
    expect(testCase('passes').status).to.equal('passed');
    const failed = results.details.testCases.filter((t: Json) => t.status === 'failed').map((t: Json) => t.name);
    expect(failed).to.have.members([
      ...cases.map((c) => c.code),
      ...others.map((c) => c.name),
      'assertion fails',
      'poll condition never holds',
    ]);
  });

  /** Every test case failed by a code: its name, the code, and what its error says (when checked here). */
  const failedByCode = () => [
    ...cases.map((c) => ({ name: c.code, code: c.code, error: c.error as RegExp | undefined })),
    ...others.map((o) => ({ name: o.name, code: o.code, error: undefined })),
  ];

  it('each failed node has its code beside its error, and its failures entry the same', () => {
    const seen = failedByCode().map((c) => {
      const n = node(c.name);
      const failure = testCase(c.name).failures.find((f: Json) => f.node === 'n');
      return {
        name: c.name,
        status: n.status,
        errorCode: n.errorCode,
        error: c.error ? c.error.test(n.error) : typeof n.error === 'string',
        failure: failure && { errorCode: failure.errorCode, message: failure.message === n.error },
      };
    });
    expect(seen).to.deep.equal(
      failedByCode().map((c) => ({
        name: c.name,
        status: 'failed',
        errorCode: c.code,
        error: true,
        failure: { errorCode: c.code, message: true },
      })),
      JSON.stringify(
        results.details.testCases.map((t: Json) => ({ name: t.name, node: t.nodes.at(-1) })),
        null,
        1,
      ),
    );
  });

  it('a passed node, a failed assertion and a Poll condition that never held have no errorCode', () => {
    expect(node('passes')).to.not.have.property('errorCode');
    expect(node('passes')).to.not.have.property('error');
    for (const name of ['assertion fails', 'poll condition never holds']) {
      expect(node(name).status, name).to.equal('failed');
      expect(node(name), name).to.not.have.property('errorCode');
      for (const f of testCase(name).failures) expect(f, name).to.not.have.property('errorCode');
    }
    // The last attempt's error is in the message and in `attempts`, not a code of the node's.
    expect(node('poll condition never holds').error).to.match(
      /did not hold after 2 attempts \(last error: .*ECONNREFUSED/,
    );
  });

  it('every code of the docs table is provoked here or named with where it is tested', () => {
    const doc = fs.readFileSync(FLOWS_DOC, 'utf8');
    const section = doc.slice(doc.indexOf('### Error codes'));
    const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| `errorCode`')));
    const documented = new Set(
      table
        .split('\n')
        .filter((line) => line.startsWith('| `') && !line.startsWith('| `errorCode`'))
        .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]!)),
    );
    expect(documented.size).to.be.above(15);
    const provoked = new Set([...cases.map((c) => c.code), ...others.map((o) => o.code)]);
    const untested = [...documented].filter((code) => !provoked.has(code) && !(code in ELSEWHERE));
    expect(untested, 'documented codes with no test').to.deep.equal([]);
    const undocumented = [...provoked, ...Object.keys(ELSEWHERE)].filter((code) => !documented.has(code));
    expect(undocumented, 'codes tested but not in the table').to.deep.equal([]);
  });

  it("the results document is what the OpenAPI description's RunResults says: NodeResult and TestCaseFailure declare errorCode", async () => {
    const doc = (await app.request('GET', '/v1/openapi.json', undefined, { key: null })).body;
    const schemas = doc.components.schemas;
    expect(schemas.NodeResult.properties.errorCode).to.include({ type: 'string' });
    expect(schemas.TestCaseFailure.properties.errorCode).to.include({ type: 'string' });
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile({ allOf: [{ $ref: '#/components/schemas/RunResults' }], components: { schemas } });
    expect(validate(results), JSON.stringify(validate.errors)).to.equal(true);
    // The schema is not a formality: a result whose errorCode is not a string is refused.
    const wrong = structuredClone(results);
    wrong.details.testCases[0].nodes.at(-1).errorCode = 42;
    expect(validate(wrong)).to.equal(false);
  });

  it('the JUnit, HTML and terminal reports of the results show each code with its error', async () => {
    const input: ReportInput = {
      run: run as ReportInput['run'],
      results: results as ReportInput['results'],
      links: {},
    };
    const xml = renderJunit(input);
    expect(await junitSchemaErrors(xml)).to.deep.equal([]);
    const byName = new Map(testcases(parseXml(xml)).map((t) => [t.getAttribute('name'), t]));
    for (const c of failedByCode()) {
      const error = Array.from(byName.get(c.name)!.getElementsByTagName('error'))[0];
      const full = `${c.code}: ${node(c.name).error}`;
      // The attribute is cut at 500 characters (the element has it whole).
      expect(error?.getAttribute('message'), c.name).to.equal(full.length > 500 ? `${full.slice(0, 499)}…` : full);
      expect(error?.textContent, c.name).to.include(`: ${full}`);
    }
    const plain = Array.from(byName.get('assertion fails')!.getElementsByTagName('failure'))[0]!;
    expect(plain.getAttribute('message')).to.match(/^response\.status equals: /);

    const html = renderHtml(input);
    const shown = [...html.matchAll(/<code data-error-code>([A-Z_]+)<\/code>/g)].map((m) => m[1]);
    // Twice each: in the test case's failures and in its node.
    for (const code of new Set(failedByCode().map((c) => c.code)))
      expect(shown.filter((s) => s === code).length, code).to.equal(
        2 * failedByCode().filter((c) => c.code === code).length,
      );
    expect(shown.length).to.equal(2 * failedByCode().length);

    const text = renderCli(input, { color: false });
    expect(text).to.include(
      `: TOO_MANY_REDIRECTS: More than 2 redirects from ${servers.vars.base}/loop (maxRedirects 2)`,
    );
  });
});
