/**
 * What requests send and read, side by side with Newman (docs/import-postman.md "Requests: settings
 * and auth"): the collection test/fixtures/postman/requests/ (compressed responses, redirects with
 * each `protocolProfileBehavior` setting, custom methods, body pruning, URLs as written, Digest,
 * OAuth 1.0, Hawk and AWS SigV4 auth, auth inherited from a folder, deliberately failing tests) is
 * run by Newman (its CLI, in its own process, with `--timeout-request`) and by Assay (imported with
 * `assay import postman --timeout-request`, run with `assay run --wait`) against the same go-httpbin
 * and request verifier (test/helpers/request-verifier.ts) on loopback. Every test (request :: test
 * name) must pass or fail the same in both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';
import {
  assayOutcomes,
  expectSameOutcomes,
  newmanOutcomes,
  POSTMAN_FIXTURES,
  runNewman,
  startHttpbin,
} from '../../helpers/newman';
import { startVerifier, type Verifier } from '../../helpers/request-verifier';

const FIXTURES = path.join(POSTMAN_FIXTURES, 'requests');
const COLLECTION = path.join(FIXTURES, 'requests.postman_collection.json');

describe('Postman requests: settings, encodings and auth pass/fail per test as in Newman', function () {
  this.timeout(300_000);
  let httpbin: { url: string; stop(): void } | undefined;
  let verifier: Verifier | undefined;
  let app: TestApp;
  let dir: string;

  before(async () => {
    [httpbin, verifier, app] = await Promise.all([startHttpbin(), startVerifier(), startTestApp({ worker: true })]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-postman-requests-'));
  });
  after(async () => {
    httpbin?.stop();
    await Promise.all([verifier?.close(), app?.stop()]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('imports the collection, runs it, and every test passes or fails as in Newman', async () => {
    const environment = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'requests.postman_environment.json'), 'utf8'));
    const set = (key: string, value: string) =>
      (environment.values.find((v: { key: string }) => v.key === key).value = value);
    set('baseUrl', httpbin!.url);
    set('baseUrlByName', httpbin!.url.replace('127.0.0.1', 'localhost'));
    set('verifierUrl', verifier!.url);
    const envFile = path.join(dir, 'env.json');
    fs.writeFileSync(envFile, JSON.stringify(environment));

    const ran = await runNewman(COLLECTION, ['-e', envFile, '--timeout-request', '20000'], dir);
    expect(ran.code, 'newman exit code (1: some tests fail on purpose)').to.equal(1);
    const newman = newmanOutcomes(ran.summary);

    const imported = await runCli(
      [
        'import',
        'postman',
        COLLECTION,
        '--environment',
        envFile,
        '--runner',
        'requests',
        '--timeout-request',
        '20000',
        '--json',
      ],
      { app, cwd: dir },
    );
    expect(imported.code, imported.stderr).to.equal(0);
    const report = JSON.parse(imported.stdout);
    // Everything in this collection is carried over.
    expect(report.untranslated, JSON.stringify(report.untranslated)).to.deep.equal([]);

    const run = await runCli(['run', '--runner', 'requests', '--env', 'requests-local', '--wait'], { app, cwd: dir });
    const runId = /Run (run_[0-9A-Za-z]+)/.exec(run.stderr)![1]!;
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    expect(run.code, run.stderr).to.equal(1); // deliberately failing tests
    const rows = expectSameOutcomes(newman, assayOutcomes(results));
    expect(rows.length).to.be.greaterThan(40);
    expect(rows.filter((r) => !r.newman).map((r) => r.key)).to.have.members([
      'Gzip :: deliberately wrong: not gzipped',
      'Not followed :: deliberately wrong: followed',
      'PUT form :: deliberately wrong: method',
      'Digest wrong password :: deliberately wrong: accepted',
    ]);
    if (process.env.ASSAY_PRINT_COMPARISON)
      console.log(`${rows.filter((r) => r.newman === r.assay).length} of ${rows.length} tests agree`);

    // The settings and auth as imported.
    const listed = (await app.request('GET', '/v1/test-cases?folder=Assay%20Postman%20requests')).body.items as Array<{
      id: string;
      name: string;
    }>;
    const flowOf = async (name: string) =>
      (await app.request('GET', `/v1/test-cases/${listed.find((t) => t.name === name)!.id}`)).body.flow as Array<{
        name: string;
        request: Record<string, unknown>;
      }>;
    const redirects = await flowOf('Redirects');
    const request = (name: string) => redirects.find((n) => n.name === name)!.request;
    expect(request('Not followed')).to.include({ followRedirects: false, timeoutMs: 20000 });
    expect(request('Within maxRedirects')).to.include({ maxRedirects: 2 });
    expect(request('Original method kept')).to.include({ followOriginalHttpMethod: true });
    const auth = await flowOf('Auth');
    expect(auth.find((n) => n.name === 'OAuth 1.0 in the query, HMAC-SHA256')!.request.auth).to.deep.include({
      type: 'oauth1',
      signatureMethod: 'HMAC-SHA256',
      placement: 'query',
      consumerSecret: '{{oauthConsumerSecret}}',
    });
    const pruned = (await flowOf('Methods and bodies')).find((n) => n.name === 'GET body pruned')!.request;
    expect(pruned.headers ?? {}).to.not.have.property('Content-Type');
  });

  it('lists what it cannot carry over: NTLM, RSA OAuth 1.0, other protocolProfileBehavior keys', async () => {
    const collection = {
      info: { name: 'unsupported', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
      item: [
        {
          name: 'ntlm',
          request: {
            method: 'GET',
            url: 'http://example.com/',
            auth: { type: 'ntlm', ntlm: [{ key: 'username', value: 'u' }] },
          },
        },
        {
          name: 'rsa',
          request: {
            method: 'GET',
            url: 'http://example.com/',
            auth: { type: 'oauth1', oauth1: [{ key: 'signatureMethod', value: 'RSA-SHA256' }] },
          },
        },
        {
          name: 'tls',
          protocolProfileBehavior: { tlsDisabledProtocols: ['TLSv1'], strictSSL: false },
          request: { method: 'CONNECT', url: 'http://example.com/' },
        },
      ],
    };
    const file = path.join(dir, 'unsupported.json');
    fs.writeFileSync(file, JSON.stringify(collection));
    const dry = await runCli(['import', 'postman', file, '--dry-run', '--json'], { app, cwd: dir });
    expect(dry.code, dry.stderr).to.equal(0);
    const messages = (JSON.parse(dry.stdout).untranslated as Array<{ at: string; message: string }>).map(
      (n) => `${n.at}: ${n.message}`,
    );
    expect(messages.join('\n')).to.match(/ntlm: NTLM auth is not imported: NTLM authenticates a connection/);
    expect(messages.join('\n')).to.match(/rsa: OAuth 1.0 with RSA-SHA256 is not imported/);
    expect(messages.join('\n')).to.match(/tls: protocolProfileBehavior.tlsDisabledProtocols is not imported/);
    expect(messages.join('\n')).to.match(/tls: method CONNECT opens a tunnel/);
  });
});
