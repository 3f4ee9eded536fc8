/**
 * What requests send and what scripts see of them, side by side with Newman (docs/import-postman.md
 * "Requests: settings and auth" and "Cookies"): the collection test/fixtures/postman/parity/http
 * (cookies set by redirects and the jar's callbacks, bodies on GET and other methods, `Referer` on
 * redirects with each `removeRefererHeaderOnRedirect`, form keys given twice, the request as sent in
 * test scripts: Host and the headers of each auth, a request to a closed port whose test script
 * runs with an empty `pm.response`) is run by Newman (its CLI, in its own process)
 * and by Assay (`assay import postman`, then `assay run --wait`) against the same go-httpbin and
 * request verifier (test/helpers/request-verifier.ts, whose `/echo` answers what arrived) on
 * loopback. Every test (request :: test name) must pass or fail the same in both, but for the one
 * difference docs/import-postman.md names (Content-Length: 0 on a method without a body).
 */
import path from 'node:path';
import { expect } from 'chai';
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

const FIXTURES = path.join(POSTMAN_FIXTURES, 'parity');
const COLLECTION = path.join(FIXTURES, 'http.postman_collection.json');

/**
 * Tests whose outcome differs on purpose: Node's http client (Newman) sends `Content-Length: 0` for
 * a method outside GET, HEAD, DELETE, OPTIONS and TRACE sent without a body; undici (Assay) does not
 * (RFC 9110 §8.6: a user agent SHOULD NOT send it when the method does not anticipate content).
 */
const KNOWN_DIFFERENCES = new Map([['PURGE body pruned :: Content-Length 0', { newman: true, assay: false }]]);

describe('Postman parity, HTTP: cookies across redirects, bodies, Referer, forms, the request as sent', function () {
  this.timeout(300_000);
  const targets = sideBySideTargets('assay-postman-parity-http-');

  it('imports the collection, runs it, and every test passes or fails as in Newman', async () => {
    const envFile = writeEnvironment(
      path.join(FIXTURES, 'http.postman_environment.json'),
      { baseUrl: targets.httpbin.url, verifierUrl: targets.verifier.url },
      path.join(targets.dir, 'env.json'),
    );

    const ran = await runNewman(COLLECTION, ['-e', envFile], targets.dir);
    expect(ran.code, 'newman exit code (1: some tests fail on purpose)').to.equal(1);
    const newman = newmanOutcomes(ran.summary);

    const { report, code, stderr, results } = await importAndRun(targets.app, COLLECTION, {
      environment: envFile,
      runner: 'parity-http',
      envName: 'parity-http-local',
      cwd: targets.dir,
    });
    expect(report.untranslated).to.deep.equal([]);
    expect(code, stderr).to.equal(1); // deliberately failing tests
    const assay = assayOutcomes(results);

    // The known difference, as it is; then everything else compared.
    for (const [key, outcome] of KNOWN_DIFFERENCES) {
      expect({ newman: newman.get(key), assay: assay.get(key) }, key).to.deep.equal(outcome);
      newman.delete(key);
      assay.delete(key);
    }
    const rows = expectSameOutcomes(newman, assay);
    expect(rows.length).to.be.greaterThan(60);
    expect(rows.filter((r) => !r.newman).map((r) => r.key)).to.have.members([
      'Two hops each setting one :: deliberately wrong: the unset cookie is still there',
      'DELETE without a body :: deliberately wrong: a Content-Length',
      'Removal on :: deliberately wrong: a Referer',
      'Log keeps no secret :: deliberately wrong: a masked value',
      'Closed port :: deliberately wrong: status is 200',
    ]);
    // Not vacuous: what each class needs passes in Assay itself.
    for (const key of [
      'Set by a redirect :: the redirected request sent the cookie',
      "Sent on the next request :: the redirect's cookie and the script's are sent",
      'GET body kept :: with its Content-Length',
      'Default :: Referer is the redirecting URL',
      "URL-encoded :: every value, grouped under its key's first place",
      'Basic :: Authorization in pm.request',
      'Host :: Host in pm.request',
      'Closed port :: no code',
      'Closed port :: json() throws',
      'After no response :: the test script without a response ran',
    ])
      expect(assay.get(key), key).to.equal(true);
    if (process.env.ASSAY_PRINT_COMPARISON)
      console.log(`${rows.filter((r) => r.newman === r.assay).length} of ${rows.length} tests agree`);

    // The Referer setting as imported: Newman's default is to send it.
    const listed = (await targets.app.request('GET', '/v1/test-cases?folder=Assay%20Postman%20parity%20HTTP')).body
      .items as Array<{ id: string; name: string }>;
    const id = listed.find((t) => t.name === 'Referer on redirects')!.id;
    const flow = (await targets.app.request('GET', `/v1/test-cases/${id}`)).body.flow as Array<{
      name: string;
      request: Record<string, unknown>;
    }>;
    const request = (name: string) => flow.find((n) => n.name === name)!.request;
    expect(request('Default')).to.include({ refererOnRedirect: true });
    expect(request('Removal off')).to.include({ refererOnRedirect: true });
    expect(request('Removal on')).to.not.have.property('refererOnRedirect');
    expect(request('Not followed')).to.not.have.property('refererOnRedirect');

    // The credential a script compared stays masked in what leaves the sandbox.
    const json = JSON.stringify(results);
    expect(json).to.not.include(Buffer.from('alice:basic-pass-38c').toString('base64'));
  });
});
