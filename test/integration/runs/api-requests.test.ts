/**
 * What API nodes send and read (docs/flows.md "Request settings", "Auth", "Results"), in a real
 * run against servers on loopback: go-httpbin (gzip, deflate, redirects, any method, Digest), the
 * request verifier of test/helpers/request-verifier.ts (brotli, a gzip bomb, the request target as
 * received, OAuth 1.0, Hawk and AWS SigV4 checked on the server side) and an HTTPS server with a
 * self-signed certificate. One run of one runner; each test case holds the nodes of one concern,
 * their assertions the expected behaviour; credentials come from secret variables, which the
 * results never show.
 */
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startHttpbin } from '../../helpers/newman';
import { startSelfSignedHttps, startVerifier, VERIFIER_SECRETS, type Verifier } from '../../helpers/request-verifier';

type Node = Record<string, unknown>;
const is = (target: string, expected: unknown) => ({ target, operator: 'equals', expected });
const absent = (target: string) => ({ target, operator: 'notExists' });
const api = (id: string, request: Record<string, unknown>, assertions: unknown[] = []): Node => ({
  type: 'api',
  id,
  request,
  assertions: [...assertions],
});

const DIGEST_PASSWORD = 'digest-pass-5f1';

const TEST_CASES: Array<{ name: string; flow: Node[] }> = [
  {
    name: 'encodings',
    flow: [
      api('gzip', { method: 'GET', url: '{{httpbin}}/gzip' }, [is('response.body.gzipped', true)]),
      api('deflate', { method: 'GET', url: '{{httpbin}}/deflate' }, [is('response.body.deflated', true)]),
      api('br', { method: 'GET', url: '{{verifier}}/br' }, [
        is('response.body.n', 42),
        is('response.contentEncoding', 'br'),
      ]),
      api('acceptEncoding', { method: 'GET', url: '{{httpbin}}/headers' }, [
        is('response.body.headers.`Accept-Encoding`[0]', 'gzip, deflate, br'),
      ]),
      api(
        'ownAcceptEncoding',
        { method: 'GET', url: '{{httpbin}}/headers', headers: { 'accept-encoding': 'identity' } },
        [is('response.body.headers.`Accept-Encoding`[0]', 'identity')],
      ),
      api('bomb', { method: 'GET', url: '{{verifier}}/bomb' }, [is('response.status', 200)]),
    ],
  },
  {
    name: 'redirects',
    flow: [
      api(
        'postBecomesGet',
        { method: 'POST', url: '{{httpbin}}/redirect-to?url=/anything&status_code=302', body: { a: 1 } },
        [
          is('response.body.method', 'GET'),
          is('response.body.data', ''),
          absent('response.body.headers.`Content-Type`'),
        ],
      ),
      api(
        'keepMethod',
        {
          method: 'POST',
          url: '{{httpbin}}/redirect-to?url=/anything&status_code=302',
          body: { a: 1 },
          followOriginalHttpMethod: true,
        },
        [is('response.body.method', 'POST'), is('response.body.json.a', 1)],
      ),
      api('temporary', { method: 'POST', url: '{{httpbin}}/redirect-to?url=/anything&status_code=307', body: 'kept' }, [
        is('response.body.method', 'POST'),
        is('response.body.data', 'kept'),
      ]),
      api('notFollowed', { method: 'GET', url: '{{httpbin}}/redirect/1', followRedirects: false }, [
        is('response.status', 302),
      ]),
      api('withinMax', { method: 'GET', url: '{{httpbin}}/redirect/2', maxRedirects: 2 }, [is('response.status', 200)]),
      api(
        'authorizationDropped',
        {
          method: 'GET',
          url: '{{httpbin}}/redirect-to?url={{httpbinByName}}/anything',
          headers: { Authorization: 'Bearer tok-1234' },
        },
        [absent('response.body.headers.Authorization'), is('$contains(response.body.url, "//localhost:")', true)],
      ),
      api(
        'authorizationKept',
        {
          method: 'GET',
          url: '{{httpbin}}/redirect-to?url={{httpbinByName}}/anything',
          headers: { Authorization: 'Bearer tok-1234' },
          followAuthorizationHeader: true,
        },
        [is('response.body.headers.Authorization[0]', 'Bearer tok-1234')],
      ),
      api(
        'sameHostKeepsIt',
        { method: 'GET', url: '{{httpbin}}/redirect-to?url=/anything', headers: { Authorization: 'Bearer tok-1234' } },
        [is('response.body.headers.Authorization[0]', 'Bearer tok-1234')],
      ),
      // A redirect's Set-Cookie (k=v; Path=/cookies by default) is sent on the next hop of the chain only.
      api('cookieOfARedirect', { method: 'GET', url: '{{httpbin}}/cookies/set?k=v' }, [is('response.body.k', 'v')]),
      api(
        'chainCookieReplacesWritten',
        { method: 'GET', url: '{{httpbin}}/cookies/set?k=v', headers: { Cookie: 'k=old; other=1' } },
        [is('response.body', { other: '1', k: 'v' })],
      ),
      api('chainCookiesNotKept', { method: 'GET', url: '{{httpbin}}/cookies' }, [absent('response.body.k')]),
      api('noRefererByDefault', { method: 'GET', url: '{{httpbin}}/redirect-to?url=/anything' }, [
        absent('response.body.headers.Referer'),
      ]),
      api('refererOnRedirect', { method: 'GET', url: '{{httpbin}}/redirect/2', refererOnRedirect: true }, [
        is(
          '$contains(response.body.headers.Referer[0], /^http:\\/\\/127\\.0\\.0\\.1:[0-9]+\\/relative-redirect\\/1$/)',
          true,
        ),
      ]),
    ],
  },
  {
    name: 'too many redirects',
    flow: [api('overMax', { method: 'GET', url: '{{httpbin}}/redirect/3', maxRedirects: 2 })],
  },
  {
    name: 'methods and bodies',
    flow: [
      api('custom', { method: 'MY-METHOD', url: '{{httpbin}}/anything' }, [is('response.body.method', 'MY-METHOD')]),
      api('getPruned', { method: 'GET', url: '{{httpbin}}/anything', body: { x: 1 } }, [
        is('response.body.data', ''),
        absent('response.body.headers.`Content-Type`'),
      ]),
      api('getKept', { method: 'GET', url: '{{httpbin}}/anything', body: { x: 1 }, alwaysSendBody: true }, [
        is('response.body.data', '{"x":1}'),
        is('response.body.headers.`Content-Type`[0]', 'application/json'),
      ]),
      api('purgePruned', { method: 'PURGE', url: '{{httpbin}}/anything', body: 'text' }, [
        is('response.body.method', 'PURGE'),
        is('response.body.data', ''),
      ]),
      api('deleteSent', { method: 'DELETE', url: '{{httpbin}}/anything', body: 'bye' }, [
        is('response.body.data', 'bye'),
      ]),
    ],
  },
  {
    name: 'url encoding',
    flow: [
      api('normalised', { method: 'GET', url: "{{verifier}}/raw/{a}?q='x y'" }, [
        is('response.body.url', '/raw/%7Ba%7D?q=%27x%20y%27'),
      ]),
      api('asWritten', { method: 'GET', url: "{{verifier}}/raw/{a}?q='x'&p=%zz", disableUrlEncoding: true }, [
        is('response.body.url', "/raw/{a}?q='x'&p=%zz"),
      ]),
    ],
  },
  {
    name: 'tls unchecked',
    flow: [
      api('anyCertificate', { method: 'GET', url: '{{tls}}/', strictSSL: false }, [is('response.body.secure', true)]),
    ],
  },
  { name: 'tls checked', flow: [api('selfSigned', { method: 'GET', url: '{{tls}}/' })] },
  {
    name: 'auth',
    flow: [
      api(
        'digestMd5',
        {
          method: 'GET',
          url: '{{httpbin}}/digest-auth/auth/user/{{digestPassword}}',
          auth: { type: 'digest', username: 'user', password: '{{digestPassword}}' },
        },
        [is('response.status', 200), is('response.body.authorized', true)],
      ),
      api(
        'digestSha256',
        {
          method: 'GET',
          url: '{{httpbin}}/digest-auth/auth/user/{{digestPassword}}/SHA-256',
          auth: { type: 'digest', username: 'user', password: '{{digestPassword}}' },
        },
        [is('response.status', 200)],
      ),
      api(
        'digestWrong',
        {
          method: 'GET',
          url: '{{httpbin}}/digest-auth/auth/user/{{digestPassword}}',
          auth: { type: 'digest', username: 'user', password: 'not-the-password' },
        },
        [is('response.status', 401)],
      ),
      api(
        'oauthHeader',
        {
          method: 'GET',
          url: '{{verifier}}/oauth1/photos?size=original&file=vacation.jpg',
          auth: {
            type: 'oauth1',
            consumerKey: VERIFIER_SECRETS.oauth1.consumerKey,
            consumerSecret: '{{oauthConsumerSecret}}',
            token: VERIFIER_SECRETS.oauth1.token,
            tokenSecret: '{{oauthTokenSecret}}',
            realm: 'Photos',
          },
        },
        [is('response.status', 200)],
      ),
      api(
        'oauthQueryForm',
        {
          method: 'POST',
          url: '{{verifier}}/oauth1/form?x=1',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'a=1&b=two+words',
          auth: {
            type: 'oauth1',
            consumerKey: VERIFIER_SECRETS.oauth1.consumerKey,
            consumerSecret: '{{oauthConsumerSecret}}',
            token: VERIFIER_SECRETS.oauth1.token,
            tokenSecret: '{{oauthTokenSecret}}',
            signatureMethod: 'HMAC-SHA256',
            placement: 'query',
          },
        },
        [is('response.status', 200)],
      ),
      api(
        'oauthPlaintext',
        {
          method: 'GET',
          url: '{{verifier}}/oauth1/plain',
          auth: {
            type: 'oauth1',
            consumerKey: VERIFIER_SECRETS.oauth1.consumerKey,
            consumerSecret: '{{oauthConsumerSecret}}',
            token: VERIFIER_SECRETS.oauth1.token,
            tokenSecret: '{{oauthTokenSecret}}',
            signatureMethod: 'PLAINTEXT',
          },
        },
        [is('response.status', 200)],
      ),
      api(
        'hawkPayload',
        {
          method: 'POST',
          url: '{{verifier}}/hawk/items?x=1',
          body: { a: 1 },
          auth: { type: 'hawk', id: VERIFIER_SECRETS.hawk.id, key: '{{hawkKey}}', includePayloadHash: true, ext: 'e' },
        },
        [is('response.status', 200), is('response.body.payloadHashed', true)],
      ),
      api(
        'hawkGet',
        {
          method: 'GET',
          url: '{{verifier}}/hawk/r',
          auth: { type: 'hawk', id: VERIFIER_SECRETS.hawk.id, key: '{{hawkKey}}' },
        },
        [is('response.status', 200)],
      ),
      api(
        'awsHeader',
        {
          method: 'GET',
          url: '{{verifier}}/aws/items?b=2&a=1',
          auth: {
            type: 'awsv4',
            accessKeyId: VERIFIER_SECRETS.aws.accessKeyId,
            secretAccessKey: '{{awsSecret}}',
            region: 'eu-west-1',
            service: 'execute-api',
          },
        },
        [is('response.status', 200)],
      ),
      api(
        'awsPostSession',
        {
          method: 'POST',
          url: '{{verifier}}/aws/items',
          body: { name: 'x' },
          auth: {
            type: 'awsv4',
            accessKeyId: VERIFIER_SECRETS.aws.accessKeyId,
            secretAccessKey: '{{awsSecret}}',
            sessionToken: '{{awsSession}}',
            service: 'execute-api',
          },
        },
        [is('response.status', 200)],
      ),
      api(
        'awsQuery',
        {
          method: 'GET',
          url: '{{verifier}}/aws/presigned?x=1',
          auth: {
            type: 'awsv4',
            accessKeyId: VERIFIER_SECRETS.aws.accessKeyId,
            secretAccessKey: '{{awsSecret}}',
            service: 'execute-api',
            placement: 'query',
          },
        },
        [is('response.status', 200)],
      ),
    ],
  },
];

describe('API nodes: what they send and read (loopback servers)', function () {
  this.timeout(300_000);
  let app: TestApp;
  let httpbin: { url: string; stop(): void } | undefined;
  let verifier: Verifier | undefined;
  let tls: Verifier | undefined;
  let results: { details: { testCases: Array<{ name: string; status: string; nodes: Array<Record<string, any>> }> } };
  let run: { status: string; result: string };

  const testCase = (name: string) => results.details.testCases.find((t) => t.name === name)!;
  const node = (tc: string, id: string) => testCase(tc).nodes.find((n) => n.id === id)!;

  before(async () => {
    [app, httpbin, verifier, tls] = await Promise.all([
      startTestApp({ worker: true }),
      startHttpbin(),
      startVerifier(),
      startSelfSignedHttps(),
    ]);
    const port = new URL(httpbin.url).port;
    const secret = (value: string) => ({ value, secret: true });
    const env = await app.request('POST', '/v1/environments', {
      name: 'requests',
      variables: {
        httpbin: httpbin.url,
        httpbinByName: `http://localhost:${port}`,
        verifier: verifier.url,
        tls: tls.url,
        digestPassword: secret(DIGEST_PASSWORD),
        oauthConsumerSecret: secret(VERIFIER_SECRETS.oauth1.consumerSecret),
        oauthTokenSecret: secret(VERIFIER_SECRETS.oauth1.tokenSecret),
        hawkKey: secret(VERIFIER_SECRETS.hawk.key),
        awsSecret: secret(VERIFIER_SECRETS.aws.secretAccessKey),
        awsSession: secret(VERIFIER_SECRETS.aws.sessionToken),
      },
    });
    expect(env.status, JSON.stringify(env.body)).to.equal(201);
    for (const tc of TEST_CASES) {
      const created = await app.request('POST', '/v1/test-cases', { ...tc, folder: 'requests' });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
    }
    await app.request('POST', '/v1/runners', { name: 'requests', folder: 'requests' });
    const { runId } = (await app.request('POST', '/v1/runs', { runner: 'requests', environment: 'requests' })).body;
    run = await waitForRun(app, runId, 240_000);
    results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
  });
  after(async () => {
    httpbin?.stop();
    await Promise.all([app?.stop(), verifier?.close(), tls?.close()]);
  });

  /** The test case passed, or the failed assertions and node errors, to read in the failure. */
  function expectPassed(name: string): void {
    const tc = testCase(name);
    const failed = tc.nodes
      .filter((n) => n.status !== 'passed')
      .map((n) => ({
        id: n.id,
        error: n.error,
        failed: (n.assertions ?? []).filter((a: { passed: boolean }) => !a.passed),
      }));
    expect(failed, name).to.deep.equal([]);
    expect(tc.status).to.equal('passed');
  }

  it('decodes gzip, deflate and br, says so, sends Accept-Encoding, and stops a gzip bomb at the cap', () => {
    expectPassed('encodings');
    expect(node('encodings', 'gzip').response).to.include({ contentEncoding: 'gzip', truncated: false });
    expect(node('encodings', 'deflate').response.contentEncoding).to.equal('deflate');
    expect(node('encodings', 'br').response.encodedSize).to.be.below(node('encodings', 'br').response.size + 10);
    const cap = app.config.runs.maxResponseBytes;
    const bomb = node('encodings', 'bomb').response;
    expect(bomb).to.include({ status: 200, truncated: true, contentEncoding: 'gzip' });
    expect(bomb.size)
      .to.be.above(cap)
      .and.at.most(cap + 64 * 1024);
    expect(bomb.encodedSize).to.be.below(1024 * 1024);
  });

  it('follows redirects as the settings say: method, body, Authorization across hosts, the cap on hops, cookies within a chain, Referer', () => {
    expectPassed('redirects');
    expect(node('redirects', 'withinMax').response.redirects).to.equal(2);
    const over = node('too many redirects', 'overMax');
    expect(over.status).to.equal('failed');
    expect(over.error).to.match(
      /^More than 2 redirects from http:\/\/127\.0\.0\.1:\d+\/redirect\/3 \(maxRedirects 2\)$/,
    );
  });

  it('sends any method token, drops a GET or PURGE body unless kept, sends a DELETE body', () => {
    expectPassed('methods and bodies');
  });

  it('sends the URL as written with disableUrlEncoding, normalised otherwise', () => {
    expectPassed('url encoding');
  });

  it('refuses a self-signed certificate unless strictSSL is false', () => {
    expectPassed('tls unchecked');
    const strict = node('tls checked', 'selfSigned');
    expect(strict.status).to.equal('failed');
    expect(strict.error).to.match(/self[- ]signed certificate/i);
  });

  it('signs with Digest, OAuth 1.0, Hawk and AWS SigV4 from secret variables; results show them masked', () => {
    expectPassed('auth');
    expect(node('auth', 'digestMd5').request.auth).to.deep.equal({ type: 'digest', username: 'user', password: '***' });
    expect(node('auth', 'awsPostSession').request.auth).to.include({ secretAccessKey: '***', sessionToken: '***' });
    expect(node('auth', 'hawkGet').request.auth).to.include({ key: '***', id: VERIFIER_SECRETS.hawk.id });
    const flat = JSON.stringify(results);
    for (const secret of [
      DIGEST_PASSWORD,
      VERIFIER_SECRETS.oauth1.consumerSecret,
      VERIFIER_SECRETS.oauth1.tokenSecret,
      VERIFIER_SECRETS.hawk.key,
      VERIFIER_SECRETS.aws.secretAccessKey,
      VERIFIER_SECRETS.aws.sessionToken,
    ])
      expect(flat).to.not.include(secret);
  });

  it('the run fails only by the nodes meant to fail', () => {
    expect(run).to.include({ status: 'completed', result: 'failed' });
    const failed = results.details.testCases.filter((t) => t.status !== 'passed').map((t) => t.name);
    expect(failed).to.have.members(['too many redirects', 'tls checked']);
  });
});
