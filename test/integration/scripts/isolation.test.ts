/**
 * Scripts in whole runs (docs/spec-choices.md "Script errors and library visibility"), on a real Temporal server with a real worker
 * against a real HTTP server on loopback:
 *
 * - a predefined library one test case lists in `libs` is not defined in the run's next test case,
 *   which fails with "moment is not defined" in the full run exactly as it does alone;
 * - a script failure reports the whole message (a ZodError's issues, a multi-line message) at the
 *   line and column of the user's code, for API node hooks and Script nodes alike.
 */
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';

type Json = Record<string, any>;

describe('scripts in runs: libraries per test case, whole error messages', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;

  before(async () => {
    [app, target] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_SCRIPT_TIMEOUT_MS: '3000' } }),
      startTarget(),
    ]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  async function createCases(folder: string, cases: Array<{ name: string; flow: unknown[] }>): Promise<string[]> {
    const ids: string[] = [];
    for (const c of cases) {
      const res = await app.request('POST', '/v1/test-cases', { ...c, folder });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      ids.push(res.body.id);
    }
    return ids;
  }

  async function run(runner: Json): Promise<{ run: Json; cases: Json[] }> {
    const created = await app.request('POST', '/v1/runners', runner);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const started = await app.request('POST', '/v1/runs', { runner: runner.name, environment: 'local' });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const finished = await waitForRun(app, started.body.runId, 90_000);
    const results = (await app.request('GET', `/v1/runs/${started.body.runId}/results`)).body;
    return { run: finished, cases: results.details.testCases };
  }

  it('a library the first test case lists is not defined in the second: it fails the same in the full run and alone', async () => {
    const [first, second] = await createCases('libs', [
      {
        name: 'a lists moment and crypto-js',
        flow: [
          {
            type: 'script',
            id: 'day',
            variable: 'day',
            script: {
              code: "async function generateValue() { return moment('2026-11-21').format('dddd'); }",
              libs: ['moment@2.30.1'],
            },
          },
          {
            type: 'api',
            id: 'signed',
            request: { method: 'GET', url: '{{base}}/echo' },
            script: {
              code: "async function beforeRequest() { $request.headers['X-Sig'] = CryptoJS.SHA256('a').toString(); }",
              libs: ['crypto-js@4.2.0'],
            },
            assertions: [{ target: '$length(response.body.headers."x-sig")', operator: 'equals', expected: 64 }],
          },
        ],
      },
      {
        name: 'b uses them without listing them',
        flow: [
          {
            type: 'script',
            id: 'day',
            variable: 'day',
            script: { code: "async function generateValue() { return moment('2026-11-21').format('dddd'); }" },
          },
          {
            type: 'api',
            id: 'signed',
            request: { method: 'GET', url: '{{base}}/echo' },
            script: {
              code: "async function afterResponse() {\n  $context.set('sig', CryptoJS.SHA256('a').toString());\n}",
            },
          },
        ],
      },
    ]);
    const full = await run({ name: 'libs-full', testCaseIds: [first, second] });
    expect(full.run).to.include({ status: 'completed', result: 'failed' });
    const [a, b] = full.cases as [Json, Json];
    expect(a.status, JSON.stringify(a.failures)).to.equal('passed');
    expect(a.nodes[0].variablesSet).to.deep.equal({ day: 'Saturday' });
    expect(b.status).to.equal('failed');
    const expected = [
      {
        id: 'day',
        status: 'failed',
        line: 1,
        error: 'script failed (line 1, column 34): ReferenceError: moment is not defined',
      },
      {
        id: 'signed',
        status: 'failed',
        line: 2,
        error: 'afterResponse failed (line 2, column 23): ReferenceError: CryptoJS is not defined',
      },
    ];
    expect(b.nodes.map((n: Json) => ({ id: n.id, status: n.status, line: n.line, error: n.error }))).to.deep.equal(
      expected,
    );

    const alone = await run({ name: 'libs-alone', testCaseIds: [second] });
    expect(
      alone.cases[0]!.nodes.map((n: Json) => ({ id: n.id, status: n.status, line: n.line, error: n.error })),
    ).to.deep.equal(expected);
  });

  it("a failed zod validation in a hook and a multi-line throw in a Script node report the whole message at the user's line and column", async () => {
    const [id] = await createCases('errors', [
      {
        name: 'errors',
        flow: [
          {
            type: 'api',
            id: 'user',
            request: { method: 'GET', url: '{{base}}/users/2' },
            script: {
              code: "async function afterResponse() {\n  const User = z.object({ id: z.number(), name: z.number() });\n  const user = User.parse($response.body);\n  $context.set('user', user);\n}",
            },
            assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
          },
          {
            type: 'script',
            id: 'multi',
            script: { code: "$log('before');\nthrow new Error('first line\\nsecond line');" },
          },
        ],
      },
    ]);
    const { cases } = await run({ name: 'errors', testCaseIds: [id] });
    const [user, multi] = cases[0]!.nodes as [Json, Json];
    expect(user).to.include({ status: 'failed', line: 3 });
    expect(user.error).to.match(/^afterResponse failed \(line 3, column 21\): ZodError: \[\n/);
    const issues = JSON.parse(user.error.slice(user.error.indexOf('ZodError: ') + 'ZodError: '.length));
    expect(issues).to.deep.equal([
      {
        expected: 'number',
        code: 'invalid_type',
        path: ['name'],
        message: 'Invalid input: expected number, received string',
      },
    ]);
    expect(user.assertions.map((x: Json) => x.passed)).to.deep.equal([true]);
    expect(multi).to.include({
      status: 'failed',
      line: 2,
      error: 'script failed (line 2, column 7): Error: first line\nsecond line',
    });
    expect(multi.logs).to.deep.equal([{ level: 'info', message: 'before' }]);
    expect(cases[0]!.failures.map((f: Json) => f.message)).to.include(user.error);
  });
});
