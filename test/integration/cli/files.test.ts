/**
 * Tests as files end to end (docs/tests-as-files.md): the built `assay` binary
 * exports a real workspace to YAML, applies it back (no changes), into a second, empty workspace
 * (whose export is the same bytes, secrets aside), applies edits with a dry run first and
 * `--prune`, and refuses broken directories and server refusals without storing anything it
 * should not.
 */
import { expect } from 'chai';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import YAML from 'yaml';
import { main } from '../../../cli/main';
import { startTestApp, type TestApp } from '../../helpers/app';
import { runCli, type CliRun } from '../../helpers/cli';

/** Every file under `dir`, relative path → text. */
async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const e of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child);
      else out[child] = await fs.readFile(path.join(dir, child), 'utf8');
    }
  };
  await walk('');
  return out;
}

const EXPORTED = [
  'deployments/nightly.yaml',
  'environments/local.yaml',
  'environments/staging.yaml',
  'runners/admin.yaml',
  'runners/smoke.yaml',
  'test-cases/health.yaml',
  'test-cases/users/admin/list-users.yaml',
  'test-cases/users/get-user.yaml',
];

describe('assay export and apply (tests as files)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let otherKey: string;
  let tmp: string;

  const cli = (args: string[], key?: string): Promise<CliRun> =>
    runCli(args, { app, cwd: tmp, env: key ? { ASSAY_API_KEY: key } : {} });

  /** What a user would compare: every resource of the workspace as the API answers it. */
  async function state(key = app.key) {
    const list = async (p: string) =>
      (await app.request('GET', `${p}?limit=200`, undefined, { key })).body.items as Array<Record<string, unknown>>;
    return {
      environments: await list('/v1/environments'),
      testCases: await list('/v1/test-cases'),
      runners: await list('/v1/runners'),
      // The schedule's state is Temporal's, not the deployment's.
      deployments: (await list('/v1/deployments')).map(({ scheduleState: _s, ...d }) => d),
    };
  }

  before(async () => {
    app = await startTestApp();
    otherKey = await app.issueKey('write', 'other-workspace');
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'assay-files-'));
    const ok = async (method: string, p: string, body: unknown) => {
      const res = await app.request(method, p, body);
      expect(res.status, `${method} ${p}: ${JSON.stringify(res.body)}`).to.be.within(200, 299);
      return res.body as { id: string };
    };
    await ok('POST', '/v1/environments', { name: 'local', variables: { base: 'http://127.0.0.1:9', retries: 2 } });
    await ok('POST', '/v1/environments', {
      name: 'staging',
      description: 'The staging cluster',
      variables: { base: 'https://staging.example', token: 's3cr3t-value', verbose: true, build: '007' },
    });
    const health = await ok('POST', '/v1/test-cases', {
      name: 'health',
      tags: ['smoke'],
      flow: [
        {
          type: 'api',
          request: { method: 'GET', url: '{{base}}/health' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    const getUser = await ok('POST', '/v1/test-cases', {
      name: 'get user',
      folder: 'users',
      description: 'Reads one user.\nChecks the status.',
      tags: ['users', 'smoke'],
      flow: [
        {
          type: 'api',
          id: 'get',
          request: { method: 'GET', url: '{{base}}/users/1', headers: { accept: 'application/json' } },
        },
        {
          type: 'if',
          condition: 'nodes.get.response.status = 200',
          then: [{ type: 'context', set: { found: 'yes' } }],
          else: [{ type: 'wait', ms: 10 }],
        },
      ],
    });
    await ok('POST', '/v1/test-cases', {
      name: 'list users',
      folder: '/users/admin/',
      tags: ['admin'],
      dataSets: [{ name: 'people', type: 'csv', csv: 'id,name\n1,Ada\n2,Grace\n', cast: true }],
      flow: [
        {
          type: 'iteration',
          id: 'each',
          dataSet: 'people',
          as: 'person',
          body: [{ type: 'api', request: { method: 'GET', url: '{{base}}/users/{{person.id}}' } }],
        },
      ],
    });
    await ok('POST', '/v1/runners', {
      name: 'smoke',
      description: 'Quick checks',
      testCaseIds: [health.id, getUser.id],
    });
    await ok('POST', '/v1/runners', { name: 'admin', folder: 'users/admin', tags: ['admin'], order: 'createdAt' });
    await ok('POST', '/v1/deployments', {
      name: 'nightly',
      runner: 'smoke',
      environment: 'staging',
      schedule: '0 3 1 1 *',
      timezone: 'Europe/Berlin',
      webhookEnabled: true,
      webhooks: {
        onComplete: [
          {
            url: 'https://hooks.example/done',
            headers: { Authorization: 'Bearer hook-secret' },
            payload: { text: 'Run {{run.id}} {{run.result}}' },
          },
        ],
        onFailure: [{ url: 'https://hooks.example/failed', method: 'PUT' }],
      },
    });
  });

  after(async () => {
    await app?.stop();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('exports one readable YAML file per resource, without ids, timestamps or secret values', async () => {
    const res = await cli(['export', '--dir', 'd1']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.include('Exported 8 resources').and.include('8 written');
    const tree = await readTree(path.join(tmp, 'd1'));
    expect(Object.keys(tree).sort()).to.deep.equal(EXPORTED);
    for (const [file, text] of Object.entries(tree)) {
      expect(text, file).to.match(/^kind: (Environment|TestCase|Runner|Deployment)\n/);
      expect(text, file).not.to.match(/\b(env|tc|rnr|dep|ws)_[0-9A-Z]{26}\b/);
      expect(text, file).not.to.match(/createdAt:|updatedAt:|signingSecret|whsec_|whk_|webhookUrl|scheduleState/);
      YAML.parse(text);
    }
    const staging = tree['environments/staging.yaml']!;
    expect(staging)
      .to.include('token: { secret: true }')
      .and.include('build: "007"')
      .and.include('verbose: true')
      .and.not.include('s3cr3t-value');
    expect(YAML.parse(tree['runners/smoke.yaml']!)).to.deep.equal({
      kind: 'Runner',
      name: 'smoke',
      description: 'Quick checks',
      testCases: ['health', 'users/get user'],
    });
    expect(YAML.parse(tree['runners/admin.yaml']!)).to.deep.equal({
      kind: 'Runner',
      name: 'admin',
      folder: 'users/admin',
      tags: ['admin'],
      order: 'createdAt',
    });
    const getUser = YAML.parse(tree['test-cases/users/get-user.yaml']!);
    expect(getUser).to.include({
      kind: 'TestCase',
      name: 'get user',
      folder: 'users',
      description: 'Reads one user.\nChecks the status.',
    });
    expect(getUser.tags).to.deep.equal(['smoke', 'users']);
    expect(getUser.flow.map((n: { id: string }) => n.id)).to.deep.equal(['get', 'n1']);
    expect(tree['test-cases/users/get-user.yaml']).to.include(
      'description: |-\n  Reads one user.\n  Checks the status.\n',
    );
    const nightly = YAML.parse(tree['deployments/nightly.yaml']!);
    expect(nightly).to.deep.include({
      kind: 'Deployment',
      name: 'nightly',
      runner: 'smoke',
      environment: 'staging',
      schedule: '0 3 1 1 *',
      timezone: 'Europe/Berlin',
      enabled: true,
      webhookEnabled: true,
    });
    expect(nightly.webhooks.onComplete[0].headers).to.deep.equal({ Authorization: { secret: true } });
    expect(nightly.webhooks.onFailure).to.deep.equal([{ url: 'https://hooks.example/failed', method: 'PUT' }]);
    expect(tree['deployments/nightly.yaml']).not.to.include('hook-secret');

    const again = await cli(['export', '--dir', 'd1']);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.include('0 written, 8 unchanged');
    expect(await readTree(path.join(tmp, 'd1'))).to.deep.equal(tree);
  });

  it('applying the export to the same workspace plans no changes and changes nothing', async () => {
    const before = await state();
    const res = await cli(['apply', '--dir', 'd1']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.include('= 8 unchanged').and.include('No changes: the workspace matches d1.');
    expect(res.stdout).not.to.match(/^[+~-] /m);
    expect(await state()).to.deep.equal(before);
  });

  it('applies the export into an empty workspace, whose export is then the same bytes (secrets aside)', async () => {
    const res = await cli(['apply', '--dir', 'd1'], otherKey);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout.split('\n').filter((l) => /^[+~-] /.test(l))).to.deep.equal([
      '+ create environment local',
      '+ create environment staging',
      '+ create test case health',
      '+ create test case users/admin/list users',
      '+ create test case users/get user',
      '+ create runner admin',
      '+ create runner smoke',
      '+ create deployment nightly',
    ]);
    expect(res.stdout)
      .to.include('Plan: 8 to create, 0 to update, 0 to delete.')
      .and.include('Applied: 8 created, 0 updated, 0 deleted.');
    expect(res.stderr)
      .to.include('secret variable "token" is not set')
      .and.include('secret header "Authorization" of webhooks.onComplete[0] is not set');

    // The runner lists the new workspace's test cases, by their new ids.
    const selected = await app.request('GET', '/v1/runners/smoke/test-cases', undefined, { key: otherKey });
    expect(selected.body.items.map((t: { folder: string; name: string }) => `${t.folder}/${t.name}`)).to.deep.equal([
      '/health',
      'users/get user',
    ]);
    const staging = await app.request('GET', '/v1/environments/staging', undefined, { key: otherKey });
    expect(staging.body.variables).to.deep.equal({ base: 'https://staging.example', verbose: true, build: '007' });

    const exported = await cli(['export', '--dir', 'd2'], otherKey);
    expect(exported.code, exported.stderr).to.equal(0);
    const d1 = await readTree(path.join(tmp, 'd1'));
    const expected = {
      ...d1,
      'environments/staging.yaml': d1['environments/staging.yaml']!.replace('  token: { secret: true }\n', ''),
      'deployments/nightly.yaml': d1['deployments/nightly.yaml']!.replace(
        '      headers:\n        Authorization: { secret: true }\n',
        '',
      ),
    };
    expect(expected['environments/staging.yaml']).not.to.equal(d1['environments/staging.yaml']);
    expect(expected['deployments/nightly.yaml']).not.to.equal(d1['deployments/nightly.yaml']);
    expect(await readTree(path.join(tmp, 'd2'))).to.deep.equal(expected);

    // Applying again changes nothing: the secrets it cannot set are warned about, not retried.
    const before = await state(otherKey);
    const again = await cli(['apply', '--dir', 'd1'], otherKey);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.include('No changes');
    expect(again.stderr).to.include('secret variable "token" is not set');
    expect(await state(otherKey)).to.deep.equal(before);
  });

  it('shows edits in a dry run without changing anything, applies them with --prune, then has nothing left to do', async () => {
    await fs.cp(path.join(tmp, 'd1'), path.join(tmp, 'd3'), { recursive: true });
    const d3 = path.join(tmp, 'd3');
    const file = path.join(d3, 'test-cases/users/get-user.yaml');
    await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('  - users\n', '  - people\n'));
    await fs.writeFile(
      path.join(d3, 'test-cases/users/delete-user.yaml'),
      'kind: TestCase\nname: delete user\nfolder: users\ntags: [users]\nflow:\n  - type: api\n    request: { method: DELETE, url: "{{base}}/users/2" }\n',
    );
    await fs.rm(path.join(d3, 'runners/admin.yaml'));
    const before = await state();

    const dry = await cli(['apply', '--dir', 'd3', '--dry-run']);
    expect(dry.code, dry.stderr).to.equal(0);
    expect(dry.stdout.split('\n').filter((l) => /^[-+~=] |^Plan:/.test(l))).to.deep.equal([
      '+ create test case users/delete user',
      '~ update test case users/get user (tags)',
      '= 6 unchanged',
      '= 1 without a file, kept (--prune deletes them): runner admin',
      'Plan: 1 to create, 1 to update, 0 to delete.',
    ]);
    expect(dry.stderr).to.include('Dry run: nothing was changed.');
    const dryPrune = await cli(['apply', '--dir', 'd3', '--dry-run', '--prune']);
    expect(dryPrune.code, dryPrune.stderr).to.equal(0);
    expect(dryPrune.stdout.split('\n').filter((l) => /^[+~-] |^Plan:/.test(l))).to.deep.equal([
      '+ create test case users/delete user',
      '~ update test case users/get user (tags)',
      '- delete runner admin',
      'Plan: 1 to create, 1 to update, 1 to delete.',
    ]);
    expect(await state()).to.deep.equal(before);

    const applied = await cli(['apply', '--dir', 'd3', '--prune']);
    expect(applied.code, applied.stderr).to.equal(0);
    expect(applied.stdout).to.include('Applied: 1 created, 1 updated, 1 deleted.');
    expect((await app.request('GET', '/v1/runners/admin')).status).to.equal(404);
    const users = (await app.request('GET', '/v1/test-cases?folder=users&limit=200')).body.items as Array<{
      name: string;
      tags: string[];
    }>;
    expect(users.find((t) => t.name === 'get user')?.tags).to.deep.equal(['people', 'smoke']);
    expect(users.map((t) => t.name)).to.include('delete user');

    const after = await state();
    const again = await cli(['apply', '--dir', 'd3', '--prune']);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.include('= 8 unchanged').and.include('No changes');
    expect(await state()).to.deep.equal(after);
  });

  it('refuses invalid YAML, an unknown kind and a runner naming a missing test case: exit 2, one line, nothing stored', async () => {
    const cases: Array<[string, string, RegExp]> = [
      [
        'runners/broken.yaml',
        'kind: Runner\nname: [oops\n',
        /^assay: d4\/runners\/broken\.yaml: line \d+, column \d+: YAML error: /m,
      ],
      [
        'widgets/w.yaml',
        'kind: Widget\nname: w\n',
        /^assay: d4\/widgets\/w\.yaml: kind: unknown kind "Widget" \(one of Environment, TestCase, Runner, Deployment\)$/m,
      ],
      [
        'runners/ghost.yaml',
        'kind: Runner\nname: ghost\ntestCases:\n  - users/nobody\n',
        /^assay: d4\/runners\/ghost\.yaml: testCases\[0\]: no test case "users\/nobody" in the directory or the workspace/m,
      ],
      [
        'environments/nameless.yaml',
        'kind: Environment\nvariables: { a: 1 }\n',
        /^assay: d4\/environments\/nameless\.yaml: name: is missing$/m,
      ],
    ];
    for (const [file, text, line] of cases) {
      const d4 = path.join(tmp, 'd4');
      await fs.rm(d4, { recursive: true, force: true });
      await fs.cp(path.join(tmp, 'd3'), d4, { recursive: true });
      // A valid new resource next to the broken file: it must not be created either.
      await fs.writeFile(path.join(d4, 'environments/extra.yaml'), 'kind: Environment\nname: extra\n');
      await fs.mkdir(path.dirname(path.join(d4, file)), { recursive: true });
      await fs.writeFile(path.join(d4, file), text);
      const before = await state();
      const res = await cli(['apply', '--dir', 'd4']);
      expect(res.code, `${file}: ${res.stderr}`).to.equal(2);
      expect(res.stderr, file).to.match(line);
      expect(res.stderr).to.include('nothing was changed');
      expect(res.stdout, file).not.to.include('Applied');
      expect(await state(), file).to.deep.equal(before);
    }
  });

  it('refuses a read key, which sees environment values masked', async () => {
    const readKey = await app.issueKey('read');
    const exported = await cli(['export', '--dir', 'd-read'], readKey);
    expect(exported.code).to.equal(2);
    expect(exported.stderr).to.include(
      'assay: export needs a "run", "write" or "admin" API key; this key\'s scope is "read" (it sees environment values as "***")',
    );
    const applied = await cli(['apply', '--dir', 'd1'], readKey);
    expect(applied.code).to.equal(2);
    expect(applied.stderr).to.include('assay: apply needs a "write" (or "admin") API key');
    await fs.access(path.join(tmp, 'd-read')).then(
      () => expect.fail('export made its directory'),
      () => undefined,
    );
  });

  it('asks on a terminal before applying: "no" changes nothing, "yes" applies', async () => {
    const d6 = path.join(tmp, 'd6');
    await fs.cp(path.join(tmp, 'd1'), d6, { recursive: true });
    await fs.writeFile(path.join(d6, 'environments/asked.yaml'), 'kind: Environment\nname: asked\n');
    /** `assay apply` in this process, stdin and stderr terminals, answering `answer`. */
    const onTerminal = async (answer: string) => {
      let stdout = '';
      let stderr = '';
      const stdin = Object.assign(new PassThrough(), { isTTY: true });
      stdin.end(answer);
      const code = await main(['apply', '--dir', 'd6'], {
        stdout: { write: (t: string) => (stdout += t), isTTY: true },
        stderr: { write: (t: string) => (stderr += t), isTTY: true },
        stdin,
        env: { ASSAY_URL: app.url, ASSAY_API_KEY: otherKey },
        cwd: tmp,
        onSignal: () => () => {},
      });
      return { code, stdout, stderr };
    };
    const before = await state(otherKey);
    const no = await onTerminal('no\n');
    expect(no.code, no.stderr).to.equal(0);
    expect(no.stdout).to.include('+ create environment asked');
    expect(no.stderr)
      .to.include('Apply these changes? Type "yes" to go on: ')
      .and.include('Not applied: nothing was changed.');
    expect(await state(otherKey)).to.deep.equal(before);
    const yes = await onTerminal('yes\n');
    expect(yes.code, yes.stderr).to.equal(0);
    expect(yes.stdout).to.include('Applied: 1 created, 0 updated, 0 deleted.');
    expect((await app.request('GET', '/v1/environments/asked', undefined, { key: otherKey })).status).to.equal(200);
  });

  it('stops at a server refusal, naming the resource and what was already applied', async () => {
    const d5 = path.join(tmp, 'd5');
    await fs.cp(path.join(tmp, 'd3'), d5, { recursive: true });
    await fs.writeFile(
      path.join(d5, 'environments/extra.yaml'),
      'kind: Environment\nname: extra\nvariables:\n  base: http://127.0.0.1:9\n',
    );
    await fs.writeFile(
      path.join(d5, 'test-cases/bad.yaml'),
      'kind: TestCase\nname: bad\nflow:\n  - type: api\n    request: { method: GET, url: "" }\n',
    );
    const res = await cli(['apply', '--dir', 'd5']);
    expect(res.code, res.stderr).to.equal(2);
    expect(res.stderr).to.match(
      /^assay: apply stopped at \+ create test case bad \(d5\/test-cases\/bad\.yaml\): POST \/v1\/test-cases: Validation failed \(400\): flow\[0\]\.request\.url/m,
    );
    expect(res.stderr).to.include('Applied before the stop: + create environment extra');
    expect((await app.request('GET', '/v1/environments/extra')).status).to.equal(200);
    expect(
      (await app.request('GET', '/v1/test-cases?limit=200')).body.items.map((t: { name: string }) => t.name),
    ).not.to.include('bad');
  });
});
