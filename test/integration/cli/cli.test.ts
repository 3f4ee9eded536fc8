/**
 * The `assay` command line against the real API, worker and Temporal dev server (docs/cli.md
 * "Exit codes", "Runs"): exit codes for a passing run (0), a failing one (1), bad flags and missing configuration
 * (2), an unreachable service and a run that timed out or was cancelled (3); `--wait` output when
 * stderr is not a terminal (plain progress lines, failures with expected vs actual, links); runs
 * started through a deployment and its incoming webhook; a SIGINT cancelling the run; and a CLI
 * killed with -9 while waiting, which loses nothing: the run completes and `assay wait` reports it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { runCli } from '../../helpers/cli';
import { startTarget, type Target } from '../../helpers/target';
import { freePort } from '../../../src/net/free-port';

describe('assay CLI', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;
  let cwd: string;

  before(async () => {
    [app, target] = await Promise.all([startTestApp({ worker: true }), startTarget()]);
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-cli-'));
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    const tc = async (name: string, folder: string, flow: unknown[]) => {
      const res = await app.request('POST', '/v1/test-cases', { name, folder, flow });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    };
    await tc('get user', 'green', [
      {
        type: 'api',
        request: { method: 'GET', url: '{{base}}/users/{{user}}' },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
    ]);
    await tc('wrong name', 'red', [
      {
        type: 'api',
        id: 'user',
        request: { method: 'GET', url: '{{base}}/users/2' },
        assertions: [{ target: 'response.body.name', operator: 'equals', expected: 'Ada' }],
      },
    ]);
    await tc('slow', 'slow', [
      { type: 'wait', ms: 20_000 },
      { type: 'api', request: { method: 'GET', url: '{{base}}/users/1' } },
    ]);
    await tc('few seconds', 'steady', [
      { type: 'wait', ms: 2500 },
      { type: 'api', request: { method: 'GET', url: '{{base}}/users/1' } },
    ]);
    for (const name of ['green', 'red', 'slow', 'steady'])
      await app.request('POST', '/v1/runners', { name, folder: name });
  });
  after(async () => {
    await target?.close();
    await app?.stop();
    if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
  });

  describe('usage and configuration (exit 2)', () => {
    it('--help on every command exits 0 and names the exit codes', async () => {
      const top = await runCli(['--help']);
      expect(top.code).to.equal(0);
      expect(top.stdout).to.include('Exit codes: 0 passed · 1 tests failed · 2 usage or configuration error · 3');
      for (const args of [
        ['run', '--help'],
        ['wait', '--help'],
        ['deploy', 'run', '--help'],
        ['import', 'postman', '--help'],
        ['trigger', '--help'],
      ]) {
        const r = await runCli(args);
        expect(r.code, args.join(' ')).to.equal(0);
        expect(r.stdout, args.join(' ')).to.match(/^Usage: assay /);
      }
    });

    it('a missing flag, an unknown option, a bad reporter or a bad timeout is one line and exit 2', async () => {
      const cases: Array<[string[], RegExp]> = [
        [['run', '--runner', 'green'], /^assay: required option '-e, --env <name>' not specified$/m],
        [['run', '--runner', 'green', '--env', 'local', '--colour'], /^assay: unknown option '--colour'$/m],
        [
          ['run', '--runner', 'green', '--env', 'local', '--reporter', 'cli,xml'],
          /^assay: unknown reporter "xml" \(choose from cli, json, junit, html\)$/m,
        ],
        [
          ['run', '--runner', 'green', '--env', 'local', '--timeout', 'soon'],
          /--timeout must be a whole number of seconds above 0, not "soon"/,
        ],
        [
          ['run', '--runner', 'green', '--env', 'local', '--var', 'novalue'],
          /--var "novalue" must look like name=value/,
        ],
        [
          ['run', '--runner', 'green', '--env', 'local', '--durability', 'activity'],
          /--durability must be one of node, testCase, not "activity"/,
        ],
        [
          ['run', '--runner', 'green', '--env', 'local', '--concurrency', '65'],
          /--concurrency must be a whole number from 1 to 64, not "65"/,
        ],
        [['run', '--runner', 'green', '--env', 'local', '--rps', '0'], /--rps must be a number above 0/],
        [['frobnicate'], /^assay: unknown command 'frobnicate'$/m],
      ];
      for (const [args, message] of cases) {
        const r = await runCli(args, { app });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).to.equal(2);
        expect(r.stderr).to.match(message);
      }
    });

    it('no API key, a wrong key, an unknown runner: exit 2 with the API problem in one line', async () => {
      const noKey = await runCli(['run', '--runner', 'green', '--env', 'local'], { env: { ASSAY_URL: app.url } });
      expect(noKey.code).to.equal(2);
      expect(noKey.stderr.trim()).to.equal(
        'assay: no API key: set ASSAY_API_KEY (or pass --api-key, or put "apiKey" in .assay.json)',
      );

      const wrongKey = await runCli(['run', '--runner', 'green', '--env', 'local'], {
        env: { ASSAY_URL: app.url, ASSAY_API_KEY: 'ak_nope' },
      });
      expect(wrongKey.code).to.equal(2);
      expect(wrongKey.stderr).to.match(/^assay: POST \/v1\/runs: .+ \(401\)/);

      const unknown = await runCli(['run', '--runner', 'nope', '--env', 'local'], { app });
      expect(unknown.code).to.equal(2);
      expect(unknown.stderr).to.match(/^assay: POST \/v1\/runs: .+ \(422\).*nope/);
      expect(unknown.stderr.trim().split('\n')).to.have.length(1);
    });

    it('reads the key and address from --config and .assay.json; flags win over the file', async () => {
      fs.writeFileSync(path.join(cwd, '.assay.json'), JSON.stringify({ url: app.url, apiKey: app.key }));
      const fromFile = await runCli(['deploy', 'list'], { cwd });
      expect(fromFile.code, fromFile.stderr).to.equal(0);
      const broken = path.join(cwd, 'broken.json');
      fs.writeFileSync(broken, '{"url": ');
      const bad = await runCli(['deploy', 'list', '--config', broken], { cwd });
      // A global option after the subcommand is refused by commander: it belongs before it.
      expect(bad.code).to.equal(2);
      const badBefore = await runCli(['--config', broken, 'deploy', 'list'], { cwd });
      expect(badBefore.code).to.equal(2);
      expect(badBefore.stderr).to.match(/config file .*broken\.json is not valid JSON/);
      const flagWins = await runCli(['--url', `http://127.0.0.1:${await freePort()}`, 'deploy', 'list'], { cwd });
      expect(flagWins.code).to.equal(3);
      fs.rmSync(path.join(cwd, '.assay.json'));
    });
  });

  describe('runs', () => {
    it('a passing run with --wait exits 0; stderr shows plain progress lines and the links', async () => {
      const r = await runCli(['run', '--runner', 'green', '--env', 'local', '--var', 'user=3', '--wait'], { app, cwd });
      expect(r.code, r.stderr).to.equal(0);
      const runId = /^Run (run_\w+) \(green on local\)$/m.exec(r.stderr)?.[1];
      expect(runId).to.be.a('string');
      expect(r.stderr).to.include(`  console:  ${app.url}/runs/${runId}`);
      expect(r.stderr).to.match(/ {2}temporal: http.+run-run_/);
      expect(r.stderr).to.match(new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\d\\] ${runId} completed$`, 'm'));
      expect(r.stderr).not.to.include(String.fromCharCode(27)); // no terminal escapes when not a TTY
      const run = (await app.request('GET', `/v1/runs/${runId}`)).body;
      expect(run).to.include({ status: 'completed', result: 'passed' });
      expect(run.variables).to.deep.equal({ user: '3' });
    });

    it('--secret-var sends a secret run variable: the run uses it, every answer masks it', async () => {
      const r = await runCli(
        [
          'run',
          '--runner',
          'green',
          '--env',
          'local',
          '--secret-var',
          'user=4444',
          '--wait',
          '--reporter',
          'cli,json',
          '--out',
          'secret-reports',
        ],
        { app, cwd },
      );
      expect(r.code, r.stderr).to.equal(1); // /users/4444 is a 404: the value was used
      const runId = /^Run (run_\w+)/m.exec(r.stderr)![1]!;
      const run = (await app.request('GET', `/v1/runs/${runId}`)).body;
      expect(run.variables).to.deep.equal({ user: { secret: true, value: '***' } });
      const report = fs.readFileSync(path.join(cwd, 'secret-reports', 'results.json'), 'utf8');
      expect(report).to.include('/users/***');
      expect(report + r.stdout).not.to.include('4444');
    });

    it('a run whose tests fail exits 1 and prints the failed assertion with expected and actual', async () => {
      const r = await runCli(['run', '--runner', 'red', '--env', 'local', '--wait'], { app, cwd });
      expect(r.code, r.stderr).to.equal(1);
      expect(r.stdout).to.include('wrong name');
      expect(r.stdout).to.include('Ada');
      expect(r.stdout).to.include('Grace');
    });

    it("without --wait prints the run id on stdout and exits 0 at once (--durability sets the run's mode)", async () => {
      const r = await runCli(
        ['run', '--runner', 'green', '--env', 'local', '--var', 'user=1', '--durability', 'testCase'],
        { app, cwd },
      );
      expect(r.code, r.stderr).to.equal(0);
      const runId = r.stdout.trim();
      expect(runId).to.match(/^run_\w+$/);
      expect(r.stderr).to.include(`assay wait ${runId}`);
      expect((await app.request('GET', `/v1/runs/${runId}`)).body.durability).to.equal('testCase');
      const waited = await runCli(['wait', runId], { app, cwd });
      expect(waited.code, waited.stderr).to.equal(0);
    });

    it('--concurrency, --bail, --max-in-flight, --rps and --folder/--tag reach the run (docs/parallel.md)', async () => {
      const r = await runCli(
        [
          'run',
          '--runner',
          'green',
          '--env',
          'local',
          '--var',
          'user=1',
          '--concurrency',
          '4',
          '--bail',
          '--max-in-flight',
          '3',
          '--rps',
          '2.5',
          '--wait',
        ],
        { app, cwd },
      );
      expect(r.code, r.stderr + r.stdout).to.equal(0);
      const runId = /run_\w+/.exec(r.stdout + r.stderr)![0];
      const run = (await app.request('GET', `/v1/runs/${runId}`)).body;
      expect(run).to.deep.include({
        concurrency: 4,
        bail: 1,
        originLimits: { maxInFlight: 3, requestsPerSecond: 2.5 },
      });
      const narrowed = await runCli(['run', '--runner', 'green', '--env', 'local', '--tag', 'no-such-tag'], {
        app,
        cwd,
      });
      expect(narrowed.code).to.equal(2);
      expect(narrowed.stderr).to.match(/runner-selects-nothing|no-such-tag/);
    });

    it('a run that times out exits 3 with the reason', async () => {
      const r = await runCli(['run', '--runner', 'slow', '--env', 'local', '--timeout', '2', '--wait'], { app, cwd });
      expect(r.code, r.stderr + r.stdout).to.equal(3);
      expect(r.stdout + r.stderr).to.match(/timed out/i);
    });

    it('an unreachable service exits 3', async () => {
      const port = await freePort();
      const r = await runCli(['run', '--runner', 'green', '--env', 'local'], {
        env: { ASSAY_URL: `http://127.0.0.1:${port}`, ASSAY_API_KEY: 'ak_x' },
      });
      expect(r.code).to.equal(3);
      expect(r.stderr.trim()).to.equal(`assay: Assay at http://127.0.0.1:${port} could not be reached: ECONNREFUSED`);
    });

    it('SIGINT without a terminal cancels the run and exits 3', async () => {
      const r = await runCli(['run', '--runner', 'slow', '--env', 'local', '--wait'], {
        app,
        cwd,
        signalWhen: { pattern: / running /, signal: 'SIGINT' },
      });
      const sent = r.signalledOn !== undefined;
      expect(sent).to.equal(true);
      expect(r.code, r.stderr).to.equal(3);
      expect(r.stderr).to.include('Cancelling run_');
      const runId = /^Run (run_\w+)/m.exec(r.stderr)![1]!;
      const run = (await app.request('GET', `/v1/runs/${runId}`)).body;
      expect(run).to.include({ status: 'failed', error: 'Run cancelled' });
    });

    it('a CLI killed with -9 while waiting loses nothing: the run completes and `assay wait` reports it', async () => {
      const killed = await runCli(['run', '--runner', 'steady', '--env', 'local', '--wait'], {
        app,
        cwd,
        signalWhen: { pattern: /^Run (run_\w+)/m, signal: 'SIGKILL' },
      });
      const runId = killed.signalledOn?.[1];
      expect(killed.signal).to.equal('SIGKILL');
      expect(runId).to.be.a('string');
      const waited = await runCli(['wait', runId!, '--reporter', 'cli'], { app, cwd });
      expect(waited.code, waited.stderr).to.equal(0);
      const run = await waitForRun(app, runId!);
      expect(run).to.include({ status: 'completed', result: 'passed' });
      // Exactly one run was started by the killed CLI.
      const runs = (await app.request('GET', '/v1/runs?runner=steady')).body.items;
      expect(runs).to.have.length(1);
    });
  });

  describe('the single-file CLI served by the API', () => {
    it('GET /cli/assay.cjs gives a file that runs with Node alone, outside this package', async () => {
      const res = await fetch(`${app.url}/cli/assay.cjs`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/javascript/);
      const etag = res.headers.get('etag')!;
      const file = path.join(cwd, 'assay.cjs');
      fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      expect((await fetch(`${app.url}/cli/assay.cjs`, { headers: { 'if-none-match': etag } })).status).to.equal(304);
      // cwd is a temporary folder with no node_modules anywhere above it.
      const r = await runCli(['run', '--runner', 'green', '--env', 'local', '--var', 'user=2', '--wait'], {
        app,
        cwd,
        bin: file,
      });
      expect(r.code, r.stderr).to.equal(0);
      const help = await runCli(['import', 'postman', '--help'], { cwd, bin: file });
      expect(help.code).to.equal(0);
    });
  });

  describe('deployments and webhooks', () => {
    it('deploy run NAME --wait, deploy webhook NAME and trigger URL start runs and report them', async () => {
      const created = await app.request('POST', '/v1/deployments', {
        name: 'nightly',
        runner: 'red',
        environment: 'local',
        enabled: true,
        webhookEnabled: true,
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const list = await runCli(['deploy', 'list'], { app });
      expect(list.stdout).to.match(/^nightly\tred on local\tno schedule\tenabled\twebhook$/m);

      const ran = await runCli(['deploy', 'run', 'nightly', '--wait'], { app, cwd });
      expect(ran.code, ran.stderr).to.equal(1);

      const missing = await runCli(['deploy', 'run', 'weekly'], { app });
      expect(missing.code).to.equal(2);
      expect(missing.stderr.trim()).to.equal('assay: no deployment "weekly" in this workspace (there are: nightly)');

      const hook = await runCli(['deploy', 'webhook', 'nightly'], { app });
      expect(hook.code).to.equal(0);
      expect(hook.stdout.trim()).to.equal(created.body.webhookUrl);
      // The test API listens on a port chosen at start, after its public URL was set: call it there.
      const webhookUrl = `${app.url}${new URL(created.body.webhookUrl).pathname}`;

      const triggered = await runCli(
        ['trigger', webhookUrl, '--token', created.body.webhookToken, '--field', 'branch=main', '--wait'],
        { app, cwd },
      );
      expect(triggered.code, triggered.stderr).to.equal(1);
      const runId = /^Run (run_\w+)/m.exec(triggered.stderr)![1]!;
      const run = (await app.request('GET', `/v1/runs/${runId}`)).body;
      expect(run.trigger).to.equal('webhook');

      const refused = await runCli(['trigger', webhookUrl, '--token', 'whk_wrong'], { env: { ASSAY_URL: app.url } });
      expect(refused.code).to.equal(2);
      expect(refused.stderr).to.match(/\(401\)/);
      await eventually(
        async () =>
          (await app.request('GET', `/v1/runs?deployment=${created.body.id}&status=running`)).body.items.length === 0 ||
          undefined,
      );
    });
  });
});
