/**
 * Auth profiles against a real OAuth 2.0 server on loopback (oauth2-mock-server: real signed JWTs,
 * client credentials, password and refresh token grants) and an API under test that accepts only
 * the tokens that server issued and that have not expired: client authentication with Basic and in
 * the body, a token expiring mid-run renewed once, a 401 renewing once, a failing token endpoint,
 * bearer/basic/apiKey profiles, precedence and `none`, one token for 100 virtual users, the token in
 * no row, answer or Temporal history, and a worker killed with SIGKILL that resumes with the cached
 * token.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Events, OAuth2Server } from 'oauth2-mock-server';
import type { Payload } from '@temporalio/common';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { processEnv, spawnAssay, type AssayProcess } from '../../helpers/processes';
import { temporalClient } from '../../helpers/temporal';
import { payloadCodec } from '../../../src/temporal/codec';

type Json = Record<string, any>;

/** One token request the OAuth server answered. */
interface TokenCall {
  clientId: string;
  basic: boolean;
  body: Record<string, string>;
  accessToken?: string;
}

/** The OAuth 2.0 server, with every token request recorded and per-client behaviour. */
async function startOAuth() {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  const calls: TokenCall[] = [];
  /** Token lifetime per client id (seconds); default 3600. */
  const ttl = new Map<string, number>();
  /** Clients the server refuses with 400 invalid_client. */
  const refused = new Set<string>();
  const clientOf = (req: any): { clientId: string; basic: boolean } => {
    const auth = String(req.headers.authorization ?? '');
    if (auth.startsWith('Basic ')) {
      const [id] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
      return { clientId: decodeURIComponent(id!.replace(/\+/g, ' ')), basic: true };
    }
    return { clientId: String(req.body?.client_id ?? ''), basic: false };
  };
  server.service.on(Events.BeforeTokenSigning, (token: any, req: any) => {
    const seconds = ttl.get(clientOf(req).clientId);
    if (seconds !== undefined) token.payload.exp = Math.floor(Date.now() / 1000) + seconds;
    token.payload.jti = `${Date.now()}-${Math.random()}`;
  });
  server.service.on(Events.BeforeResponse, (response: any, req: any) => {
    const { clientId, basic } = clientOf(req);
    const call: TokenCall = { clientId, basic, body: { ...req.body } };
    calls.push(call);
    if (refused.has(clientId)) {
      response.statusCode = 400;
      response.body = { error: 'invalid_client', error_description: 'Client authentication failed' };
      return;
    }
    const seconds = ttl.get(clientId);
    if (seconds !== undefined) response.body.expires_in = seconds;
    call.accessToken = response.body.access_token;
  });
  return {
    url: server.issuer.url!,
    calls,
    ttl,
    refused,
    count: (clientId: string) => calls.filter((c) => c.clientId === clientId).length,
    tokens: () => calls.map((c) => c.accessToken).filter((t): t is string => !!t),
    stop: () => server.stop(),
  };
}

/**
 * The API under test: `/check` answers 200 only for a Bearer token the OAuth server issued and that
 * has not expired (else 401); `/flaky` answers 401 to the first token it sees, then like `/check`;
 * `/echo` answers the request's headers and query.
 */
async function startApi(issued: () => string[]) {
  const rejected = new Set<string>();
  /** The headers and query of every `/echo` request, by its `n` query parameter. */
  const received = new Map<string, { headers: http.IncomingHttpHeaders; query: Record<string, string> }>();
  let flakySeen = false;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/echo') {
      const query = Object.fromEntries(url.searchParams);
      if (query.n) received.set(query.n, { headers: req.headers, query });
      return send(200, { headers: req.headers, query });
    }
    const auth = String(req.headers.authorization ?? '');
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (url.pathname === '/flaky' && !flakySeen && token) {
      flakySeen = true;
      rejected.add(token);
    }
    const claims =
      token.split('.').length === 3 ? JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) : {};
    const valid = issued().includes(token) && !rejected.has(token) && claims.exp * 1000 > Date.now();
    send(valid ? 200 : 401, { ok: valid });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const get = (path: string, extra: Json = {}) => ({
  type: 'api',
  request: { method: 'GET', url: `{{api}}${path}` },
  assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
  ...extra,
});

const oauth2 = (clientId: string, extra: Json = {}) => ({
  grant: 'client_credentials',
  tokenUrl: '{{oauthUrl}}/token',
  clientId,
  clientSecret: '{{clientSecret}}',
  scopes: ['read', 'write'],
  audience: 'https://api.example',
  ...extra,
});

let runnerCount = 0;
/** Creates the test cases and a runner of them, runs it, and answers the run, its results and its test cases' results. */
async function run(
  app: TestApp,
  /** `folder`: a subfolder of the run's own folder for that test case. */
  cases: Array<{ name: string; flow: unknown[]; authProfile?: string; folder?: string }>,
  runner: Json = {},
  body: Json = {},
) {
  const folder = `f${++runnerCount}`;
  for (const c of cases) {
    const res = await app.request('POST', '/v1/test-cases', {
      ...c,
      folder: c.folder ? `${folder}/${c.folder}` : folder,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  }
  const made = await app.request('POST', '/v1/runners', { name: folder, folder, order: 'createdAt', ...runner });
  expect(made.status, JSON.stringify(made.body)).to.equal(201);
  const started = await app.request('POST', '/v1/runs', { runner: folder, environment: 'local', ...body });
  expect(started.status, JSON.stringify(started.body)).to.equal(201);
  const done = await waitForRun(app, started.body.runId, 90_000);
  const results = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
  return {
    runId: started.body.runId as string,
    run: done,
    results,
    cases: (results.details?.testCases ?? []) as any[],
  };
}

describe('auth profiles', function () {
  this.timeout(120_000);
  let app: TestApp;
  let oauth: Awaited<ReturnType<typeof startOAuth>>;
  let api: Awaited<ReturnType<typeof startApi>>;
  const runIds: string[] = [];

  before(async () => {
    oauth = await startOAuth();
    [app, api] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_LOAD_THREADS: '2' } }),
      startApi(() => oauth.tokens()),
    ]);
    const env = await app.request('POST', '/v1/environments', {
      name: 'local',
      variables: {
        api: api.url,
        oauthUrl: oauth.url,
        clientSecret: { value: 's3cret+/=pass', secret: true },
      },
    });
    expect(env.status).to.equal(201);
  });
  after(async () => {
    await app?.stop();
    await api?.close();
    await oauth?.stop();
  });

  it('manages profiles: secrets sealed and answered "***", fields named when invalid, unknown names refused at save', async () => {
    const made = await app.request('POST', '/v1/auth-profiles', {
      name: 'static',
      type: 'bearer',
      config: { token: 'static-token-123' },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    expect(made.body.config).to.deep.equal({ token: '***' });
    const row = (await app.dataSource.query("SELECT config FROM auth_profiles WHERE name = 'static'")) as Json[];
    expect(JSON.stringify(row)).not.to.contain('static-token-123');
    // "***" keeps the stored value.
    const kept = await app.request('PUT', '/v1/auth-profiles/static', {
      name: 'static',
      type: 'bearer',
      config: { token: '***' },
    });
    expect(kept.status).to.equal(200);

    const bad = await app.request('POST', '/v1/auth-profiles', {
      name: 'bad',
      type: 'oauth2',
      config: { grant: 'implicit', tokenUrl: 'ftp://x', clientId: 'c' },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors.map((e: Json) => e.field)).to.include.members(['config.grant', 'config.tokenUrl']);
    const badKey = await app.request('POST', '/v1/auth-profiles', {
      name: 'bad',
      type: 'apiKey',
      config: { name: 'X-Key', value: 'abcd', in: 'cookie' },
    });
    expect(badKey.status).to.equal(400);
    expect(badKey.body.errors.map((e: Json) => e.field)).to.include('config.in');

    const unknown = await app.request('POST', '/v1/test-cases', {
      name: 'u',
      folder: 'unknown',
      authProfile: 'nope',
      flow: [get('/echo', { authProfile: 'nope2' })],
    });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.errors.map((e: Json) => e.field)).to.have.members(['authProfile', 'flow[0].authProfile']);
    const runner = await app.request('POST', '/v1/runners', { name: 'u', folder: 'unknown', authProfile: 'nope' });
    expect(runner.status).to.equal(400);
    expect(runner.body.errors[0].field).to.equal('authProfile');
  });

  it('client credentials with Basic and with body client authentication, one token per profile for the whole run', async () => {
    for (const [name, clientAuthentication] of [
      ['cc-basic', 'basic'],
      ['cc-body', 'body'],
    ] as const) {
      const res = await app.request('POST', '/v1/auth-profiles', {
        name,
        type: 'oauth2',
        config: oauth2(`client-${name}`, { clientAuthentication }),
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.config.clientSecret).to.equal('{{clientSecret}}');
    }
    const { run: done, cases } = await run(app, [
      { name: 'basic', authProfile: 'cc-basic', flow: [get('/check', { id: 'a' }), get('/check', { id: 'b' })] },
      { name: 'body', authProfile: 'cc-body', flow: [get('/check', { id: 'c' })] },
    ]);
    expect(done.status, JSON.stringify(cases)).to.equal('completed');
    expect(done.result).to.equal('passed');
    const basic = oauth.calls.filter((c) => c.clientId === 'client-cc-basic');
    const body = oauth.calls.filter((c) => c.clientId === 'client-cc-body');
    expect(basic).to.have.length(1);
    expect(body).to.have.length(1);
    expect(basic[0]!.basic).to.equal(true);
    expect(basic[0]!.body).to.deep.include({
      grant_type: 'client_credentials',
      scope: 'read write',
      audience: 'https://api.example',
    });
    expect(basic[0]!.body).not.to.have.property('client_secret');
    expect(body[0]!.basic).to.equal(false);
    expect(body[0]!.body).to.deep.include({ client_id: 'client-cc-body', client_secret: 's3cret+/=pass' });
    const node = cases[0].nodes[0];
    expect(node.request.auth).to.deep.equal({ profile: 'cc-basic', type: 'oauth2' });
  });

  it('renews a token that expires mid-run once, and a token the API refuses (401) once, whose second answer counts', async () => {
    oauth.ttl.set('client-short', 2);
    await app.request('POST', '/v1/auth-profiles', { name: 'short', type: 'oauth2', config: oauth2('client-short') });
    await app.request('POST', '/v1/auth-profiles', { name: 'flaky', type: 'oauth2', config: oauth2('client-flaky') });
    const { run: done, cases } = await run(app, [
      {
        name: 'expiring',
        authProfile: 'short',
        flow: [
          get('/check', { id: 'before' }),
          { type: 'wait', id: 'pause', ms: 2100 },
          get('/check', { id: 'after' }),
        ],
      },
      { name: 'refused', authProfile: 'flaky', flow: [get('/flaky', { id: 'flaky' })] },
    ]);
    expect(done.result, JSON.stringify(cases)).to.equal('passed');
    expect(oauth.count('client-short')).to.equal(2);
    expect(oauth.count('client-flaky')).to.equal(2);
    const flaky = cases[1].nodes[0];
    expect(flaky.status).to.equal('passed');
    expect(flaky.response.status).to.equal(200);
  });

  it('fails the node with the token endpoint status and error text (RFC 6749 §5.2)', async () => {
    oauth.refused.add('client-bad');
    await app.request('POST', '/v1/auth-profiles', {
      name: 'bad-client',
      type: 'oauth2',
      config: oauth2('client-bad'),
    });
    const { run: done, cases } = await run(app, [
      { name: 'refused', authProfile: 'bad-client', flow: [get('/check')] },
    ]);
    expect(done.result).to.equal('failed');
    expect(cases[0].nodes[0].error).to.equal(
      'auth profile "bad-client": token endpoint answered 400 invalid_client: Client authentication failed',
    );
    const now = await app.request('POST', '/v1/auth-profiles/bad-client/token', { environment: 'local' });
    expect(now.status).to.equal(502);
    expect(now.body.detail).to.contain('400 invalid_client');
    const ok = await app.request('POST', '/v1/auth-profiles/cc-basic/token', { environment: 'local' });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body.tokenType).to.equal('Bearer');
    expect(ok.body.preview).to.match(/^.{1,4}…$/);
  });

  it('applies bearer, basic and apiKey profiles with precedence node > test case > folder > runner, `none` and the node’s own header winning', async () => {
    await app.request('POST', '/v1/auth-profiles', {
      name: 'basic-p',
      type: 'basic',
      config: { username: 'ann', password: 'pässword' },
    });
    await app.request('POST', '/v1/auth-profiles', {
      name: 'key-h',
      type: 'apiKey',
      config: { name: 'X-Api-Key', value: 'key-value-1', in: 'header' },
    });
    await app.request('POST', '/v1/auth-profiles', {
      name: 'key-q',
      type: 'apiKey',
      config: { name: 'api_key', value: 'key-value-2', in: 'query' },
    });
    const echo = (id: string, extra: Json = {}) => get('/echo', { id, ...extra });
    // A folder's profile (the folder resource) applies below it, over the runner's; a test case's over the folder's.
    const sub = `f${runnerCount + 1}/sub`;
    expect(
      (await app.request('PUT', `/v1/folders/${encodeURIComponent(sub)}`, { authProfile: 'nope' })).status,
    ).to.equal(400);
    expect(
      (await app.request('PUT', `/v1/folders/${encodeURIComponent(sub)}`, { authProfile: 'key-h' })).status,
    ).to.equal(201);
    const { run: done, cases } = await run(
      app,
      [
        {
          name: 'case level',
          authProfile: 'static',
          flow: [
            echo('inherits'),
            echo('node', { authProfile: 'key-h' }),
            echo('query', { authProfile: 'key-q' }),
            echo('off', { authProfile: 'none' }),
            { ...echo('own'), request: { method: 'GET', url: '{{api}}/echo', headers: { Authorization: 'Mine' } } },
          ],
        },
        { name: 'runner level', flow: [echo('runner')] },
        { name: 'folder level', folder: 'sub', flow: [echo('folder')] },
        { name: 'case over folder', folder: 'sub', authProfile: 'static', flow: [echo('case')] },
      ],
      { authProfile: 'basic-p' },
    );
    expect(done.result, JSON.stringify(cases)).to.equal('passed');
    const [first, second, third, fourth] = cases;
    const seen = (c: Json, id: string) => c.nodes.find((n: Json) => n.id === id);
    const results = (await app.request('GET', `/v1/runs/${done.id}/results`)).body;
    expect(JSON.stringify(results)).not.to.contain('static-token-123');
    expect(JSON.stringify(results)).not.to.contain('key-value-1');
    expect(seen(first, 'inherits').request.auth).to.deep.equal({ profile: 'static', type: 'bearer' });
    expect(seen(first, 'node').request.auth).to.deep.equal({ profile: 'key-h', type: 'apiKey' });
    expect(seen(first, 'off').request.auth).to.equal(undefined);
    expect(seen(second, 'runner').request.auth).to.deep.equal({ profile: 'basic-p', type: 'basic' });
    expect(seen(third, 'folder').request.auth).to.deep.equal({ profile: 'key-h', type: 'apiKey' });
    expect(seen(fourth, 'case').request.auth).to.deep.equal({ profile: 'static', type: 'bearer' });

    // What the API under test received (the echoed credentials are masked in the results).
    const at = (n: string, extra: Json = {}) => ({ ...get(`/echo?n=${n}`), id: n, ...extra });
    const probe = await run(app, [
      {
        name: 'probe',
        authProfile: 'static',
        flow: [
          {
            ...at('p1'),
            // A hook that logs the echoed credential and keeps it in a variable: both masked.
            script: {
              code: "async function afterResponse() { console.log('got', $response.body.headers.authorization); $context.set('seen', $response.body.headers.authorization); }",
            },
          },
          at('p2', { authProfile: 'key-h' }),
          at('p3', { authProfile: 'key-q' }),
          at('p4', { authProfile: 'none' }),
          at('p5', { authProfile: 'basic-p' }),
          { ...at('p6'), request: { method: 'GET', url: '{{api}}/echo?n=p6', headers: { Authorization: 'Mine' } } },
        ],
      },
    ]);
    const got = (n: string) => api.received.get(n)!;
    expect(got('p1').headers.authorization).to.equal('Bearer static-token-123');
    expect(got('p2').headers['x-api-key']).to.equal('key-value-1');
    expect(got('p2').headers.authorization).to.equal(undefined);
    expect(got('p3').query.api_key).to.equal('key-value-2');
    expect(got('p4').headers.authorization).to.equal(undefined);
    expect(got('p5').headers.authorization).to.equal(`Basic ${Buffer.from('ann:pässword').toString('base64')}`);
    expect(got('p6').headers.authorization).to.equal('Mine');
    const p1 = probe.cases[0].nodes.find((n: Json) => n.id === 'p1');
    expect(p1.logs.map((l: Json) => l.message ?? l.args ?? l).join(' ')).to.contain('Bearer ***');
    expect(JSON.stringify(p1)).not.to.contain('static-token-123');
    const p3 = probe.cases[0].nodes.find((n: Json) => n.id === 'p3');
    expect(p3.request.url).to.match(/api_key=\*\*\*$/);
    expect(probe.run.result, JSON.stringify(probe.cases)).to.equal('passed');
  });

  it('refuses to delete a profile that a test case, runner or folder names (409 naming them)', async () => {
    const res = await app.request('DELETE', '/v1/auth-profiles/basic-p');
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('in-use');
    expect(res.body.runners).to.include('f4');
    expect(res.body.detail).to.contain('runner "f4"');
    const key = await app.request('DELETE', '/v1/auth-profiles/key-q');
    expect(key.status).to.equal(409);
    expect(key.body.testCases.map((t: Json) => t.name)).to.include('case level');
    const folderUser = await app.request('DELETE', '/v1/auth-profiles/key-h');
    expect(folderUser.status).to.equal(409);
    expect(folderUser.body.folders).to.include('f4/sub');
    await app.request('POST', '/v1/auth-profiles', { name: 'unused', type: 'bearer', config: { token: 'abcdefgh' } });
    expect((await app.request('DELETE', '/v1/auth-profiles/unused')).status).to.equal(204);
  });

  it('shares one token between 100 virtual users of a performance run', async () => {
    await app.request('POST', '/v1/auth-profiles', { name: 'load', type: 'oauth2', config: oauth2('client-load') });
    const { run: done, runId } = await run(
      app,
      [{ name: 'load', authProfile: 'load', flow: [get('/check')] }],
      {},
      { performance: { executor: 'constant-vus', vus: 100, duration: '2s' } },
    );
    runIds.push(runId);
    const perf = (await app.request('GET', `/v1/runs/${runId}/results`)).body.performance;
    expect(done.status, JSON.stringify(done)).to.equal('completed');
    expect(perf.requests).to.be.greaterThan(100);
    expect(perf.failedRequests).to.equal(0);
    expect(oauth.count('client-load')).to.equal(1);
  });

  it('writes no token to any row, answer or Temporal history; the decoded history shows no secret variable either', async () => {
    const tokens = oauth.tokens();
    expect(tokens.length).to.be.greaterThan(5);
    // The basic profile's literal password, and the credential it makes (the echo endpoint answers it back).
    const basic = Buffer.from('ann:pässword', 'utf8').toString('base64');
    const secrets = [...tokens, 's3cret+/=pass', 'static-token-123', 'key-value-1', 'key-value-2', 'pässword', basic];
    const leaks = (text: string) => secrets.filter((s) => text.includes(s)).map((s) => s.slice(0, 12));
    const tables = [
      'runs',
      'run_test_case_results',
      'auth_profiles',
      'auth_tokens',
      'environments',
      'test_cases',
      'runners',
      'run_load_shards',
    ];
    for (const table of tables) {
      const rows = await app.dataSource.query(`SELECT * FROM ${table}`);
      expect(leaks(JSON.stringify(rows)), table).to.deep.equal([]);
    }
    expect((await app.dataSource.query('SELECT * FROM auth_tokens')).length).to.be.greaterThan(0);
    const runs = (await app.request('GET', '/v1/runs?limit=100')).body.items as Json[];
    const client = await temporalClient();
    const codec = payloadCodec({ secretKeys: app.config.secretKeys, dataDir: app.config.dataDir });
    expect(runs.length).to.be.greaterThan(5);
    for (const r of runs) {
      const id = (r.runId ?? r.id) as string;
      for (const path of [`/v1/runs/${id}`, `/v1/runs/${id}/results`]) {
        const res = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${app.key}` } });
        expect(leaks(await res.text()), path).to.deep.equal([]);
      }
      // The run workflow's history, its payloads decrypted.
      const history = await client.workflow.getHandle(`run-${id}`).fetchHistory();
      const payloads: Payload[] = [];
      const walk = (v: unknown) => {
        if (!v || typeof v !== 'object') return;
        if ((v as Payload).data instanceof Uint8Array && (v as Payload).metadata) payloads.push(v as Payload);
        else for (const x of Object.values(v)) walk(x);
      };
      walk(history);
      expect(payloads.length).to.be.greaterThan(0);
      const decoded = await codec.decode(payloads);
      const text = decoded.map((p) => Buffer.from(p.data ?? []).toString('utf8')).join('\n');
      expect(text).to.contain('"authProfile"');
      // What the workflow code sees (the worker's view) holds the environment's secret variable
      // (it fills {{clientSecret}}); the profile's sealed literals and the tokens never.
      expect(text).to.contain('s3cret+/=pass');
      expect(leaks(text.split('s3cret+/=pass').join('')), `history of ${id}`).to.deep.equal([]);
      // What the codec server shows the workspace's own key (the Web UI, the CLI): no secret at all,
      // the secret variable in none of its forms either (docs/codec.md "Secrets in histories").
      const shown = codec
        .decodeFor(payloads, { workspaceId: app.workspaceId })
        .map((p) => Buffer.from(p.data ?? []).toString('utf8'))
        .join('\n');
      expect(shown).to.contain('"authProfile"');
      const variableForms = [
        's3cret+/=pass',
        encodeURIComponent('s3cret+/=pass'),
        Buffer.from('s3cret+/=pass').toString('base64'),
      ];
      expect(leaks(shown), `decoded history of ${id}`).to.deep.equal([]);
      expect(
        variableForms.filter((f) => shown.includes(f)),
        `decoded history of ${id}`,
      ).to.deep.equal([]);
    }
    for (const name of ['static', 'cc-basic', 'basic-p', 'key-h']) {
      const res = await app.request('GET', `/v1/auth-profiles/${name}`);
      expect(leaks(JSON.stringify(res.body))).to.deep.equal([]);
    }
  });
});

describe('auth profiles: a worker killed while a run holds a token', function () {
  this.timeout(120_000);
  let app: TestApp;
  let oauth: Awaited<ReturnType<typeof startOAuth>>;
  let api: Awaited<ReturnType<typeof startApi>>;
  const children: AssayProcess[] = [];

  before(async () => {
    oauth = await startOAuth();
    [app, api] = await Promise.all([startTestApp(), startApi(() => oauth.tokens())]);
  });
  after(async () => {
    for (const c of children) await c.kill();
    await app?.stop();
    await api?.close();
    await oauth?.stop();
  });

  it('resumes on another worker with the cached token, asking the token endpoint for none', async () => {
    await app.request('POST', '/v1/environments', {
      name: 'local',
      variables: { api: api.url, oauthUrl: oauth.url, clientSecret: { value: 'durable-secret', secret: true } },
    });
    await app.request('POST', '/v1/auth-profiles', {
      name: 'durable',
      type: 'oauth2',
      config: oauth2('client-durable'),
    });
    const first = spawnAssay('worker', processEnv(app, { ASSAY_LOG_LEVEL: 'warn' }));
    children.push(first);
    const res = await app.request('POST', '/v1/test-cases', {
      name: 'durable',
      folder: 'durable',
      authProfile: 'durable',
      flow: [get('/check', { id: 'one' }), { type: 'wait', id: 'pause', ms: 4000 }, get('/check', { id: 'two' })],
    });
    expect(res.status).to.equal(201);
    await app.request('POST', '/v1/runners', { name: 'durable', folder: 'durable' });
    const { runId } = (await app.request('POST', '/v1/runs', { runner: 'durable', environment: 'local' })).body;
    await eventually(async () => oauth.count('client-durable') === 1, 60_000, 50);
    // The first request went out with it; kill the worker during the wait.
    await new Promise((r) => setTimeout(r, 500));
    await first.kill();
    const second = spawnAssay('worker', processEnv(app, { ASSAY_LOG_LEVEL: 'warn' }));
    children.push(second);
    const done = await waitForRun(app, runId, 90_000);
    expect(done.result).to.equal('passed');
    expect(oauth.count('client-durable')).to.equal(1);
  });
});
