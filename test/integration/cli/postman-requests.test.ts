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
import path from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../helpers/cli';
import {
  assayOutcomes,
  expectSameOutcomes,
  importAndRun,
  newmanOutcomes,
  POSTMAN_FIXTURES,
  runNewman,
  sideBySideTargets,
  writeEnvironment,
} from '../../helpers/newman';

const FIXTURES = path.join(POSTMAN_FIXTURES, 'requests');
const COLLECTION = path.join(FIXTURES, 'requests.postman_collection.json');

describe('Postman requests: settings, encodings and auth pass/fail per test as in Newman', function () {
  this.timeout(300_000);
  const targets = sideBySideTargets('assay-postman-requests-');

  it('imports the collection, runs it, and every test passes or fails as in Newman', async () => {
    const envFile = writeEnvironment(
      path.join(FIXTURES, 'requests.postman_environment.json'),
      {
        baseUrl: targets.httpbin.url,
        baseUrlByName: targets.httpbin.url.replace('127.0.0.1', 'localhost'),
        verifierUrl: targets.verifier.url,
      },
      path.join(targets.dir, 'env.json'),
    );

    const ran = await runNewman(COLLECTION, ['-e', envFile, '--timeout-request', '20000'], targets.dir);
    expect(ran.code, 'newman exit code (1: some tests fail on purpose)').to.equal(1);
    const newman = newmanOutcomes(ran.summary);

    const { report, code, stderr, results } = await importAndRun(targets.app, COLLECTION, {
      environment: envFile,
      runner: 'requests',
      envName: 'requests-local',
      args: ['--timeout-request', '20000'],
      cwd: targets.dir,
    });
    // Everything in this collection is carried over.
    expect(report.untranslated, JSON.stringify(report.untranslated)).to.deep.equal([]);
    expect(code, stderr).to.equal(1); // deliberately failing tests
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
    const listed = (await targets.app.request('GET', '/v1/test-cases?folder=Assay%20Postman%20requests')).body
      .items as Array<{
      id: string;
      name: string;
    }>;
    const flowOf = async (name: string) =>
      (await targets.app.request('GET', `/v1/test-cases/${listed.find((t) => t.name === name)!.id}`)).body
        .flow as Array<{
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
    const file = path.join(targets.dir, 'unsupported.json');
    fs.writeFileSync(file, JSON.stringify(collection));
    const dry = await runCli(['import', 'postman', file, '--dry-run', '--json'], {
      app: targets.app,
      cwd: targets.dir,
    });
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
