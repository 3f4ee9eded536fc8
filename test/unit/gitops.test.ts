/**
 * Tests as files without a server (cli/gitops): the YAML format (round trips, the problems a user
 * sees for a broken file), file names, node ids as the server gives them, secrets, and the plan.
 */
import { expect } from 'chai';
import { assignNodeIds } from '../../src/flow/tree';
import {
  describeProblem,
  parseResourceFile,
  resourcePath,
  safeSegment,
  serialiseResource,
} from '../../cli/gitops/format';
import {
  deploymentFromApi,
  environmentFromApi,
  isSecretName,
  runnerFromApi,
  sameValue,
  testCaseFromApi,
  type DeploymentSpec,
  type EnvironmentSpec,
  type ResourceSpec,
  type RunnerSpec,
  type TestCaseSpec,
} from '../../cli/gitops/model';
import {
  computePlan,
  deploymentWebhooks,
  environmentVariableChanges,
  renderPlan,
  type CurrentResource,
  type DesiredResource,
} from '../../cli/gitops/plan';

const env = (over: Partial<EnvironmentSpec> = {}): EnvironmentSpec => ({
  kind: 'Environment',
  name: 'staging',
  description: '',
  variables: {},
  ...over,
});
const tc = (over: Partial<TestCaseSpec> = {}): TestCaseSpec => ({
  kind: 'TestCase',
  name: 'get user',
  folder: 'users',
  description: '',
  tags: [],
  reusable: false,
  flow: [{ id: 'n1', type: 'wait', ms: 1 }],
  dataSets: [],
  authProfile: null,
  ...over,
});
const runner = (over: Partial<RunnerSpec> = {}): RunnerSpec => ({
  kind: 'Runner',
  name: 'smoke',
  description: '',
  testCases: ['users/get user'],
  folder: null,
  tags: [],
  order: 'name',
  loadProfile: null,
  variableScope: 'testCase',
  durability: 'node',
  authProfile: null,
  baseline: null,
  quarantineFlaky: false,
  ...over,
});
const deployment = (over: Partial<DeploymentSpec> = {}): DeploymentSpec => ({
  kind: 'Deployment',
  name: 'nightly',
  runner: 'smoke',
  environment: 'staging',
  schedule: '0 3 * * *',
  timezone: 'UTC',
  enabled: true,
  webhookEnabled: false,
  webhookRequireAuth: true,
  webhooks: { onComplete: [], onFailure: [] },
  loadProfile: null,
  durability: null,
  ...over,
});
const file = (spec: ResourceSpec, name = `${spec.kind}-${spec.name}.yaml`): DesiredResource => ({ spec, file: name });
const parsed = (name: string, text: string) => {
  const r = parseResourceFile(name, text);
  if (!r.spec) throw new Error(r.problems.map(describeProblem).join('\n'));
  return r.spec;
};
const problemsOf = (text: string, name = 'f.yaml') =>
  (parseResourceFile(name, text).problems ?? []).map(describeProblem);

describe('tests as files: the YAML format (cli/gitops/format)', () => {
  it('writes each kind with kind first, defaults left out, and reads it back to the same spec', () => {
    const specs: ResourceSpec[] = [
      env({
        description: 'Staging',
        variables: { retries: 3, base: 'http://x', debug: false, build: '007', token: { secret: true } },
      }),
      tc({
        description: 'two\nlines',
        tags: ['smoke', 'a'],
        reusable: true,
        dataSets: [{ name: 'p', type: 'csv', csv: 'id\n1\n' }],
      }),
      runner({ tags: ['b', 'a'], order: 'createdAt', folder: '', loadProfile: { vus: 2, duration: 10 } }),
      deployment({
        timezone: 'Europe/Berlin',
        webhooks: {
          onComplete: [
            { url: 'https://h/x', headers: { Authorization: { secret: true } }, payload: { t: '{{run.id}}' } },
          ],
          onFailure: [],
        },
      }),
    ];
    for (const spec of specs) {
      const text = serialiseResource(spec);
      expect(text).to.match(new RegExp(`^kind: ${spec.kind}\nname: `));
      expect(
        sameValue(parsed('x.yaml', text), {
          ...spec,
          ...(spec.kind === 'TestCase' || spec.kind === 'Runner' ? { tags: [...spec.tags].sort() } : {}),
        }),
        text,
      ).to.equal(true);
      expect(serialiseResource(parsed('x.yaml', text))).to.equal(text);
    }
    const envText = serialiseResource(specs[0]!);
    expect(envText).to.equal(
      [
        'kind: Environment',
        'name: staging',
        'description: Staging',
        'variables:',
        '  base: http://x',
        '  build: "007"',
        '  debug: false',
        '  retries: 3',
        '  token: { secret: true }',
        '',
      ].join('\n'),
    );
    expect(serialiseResource(specs[1]!))
      .to.include('description: |-\n  two\n  lines\n')
      .and.include('tags:\n  - a\n  - smoke\nreusable: true\n');
    expect(serialiseResource(tc())).to.not.include('reusable');
    expect(serialiseResource(runner())).to.equal('kind: Runner\nname: smoke\ntestCases:\n  - users/get user\n');
    expect(serialiseResource(runner({ folder: '' }))).to.include('folder: ""');
  });

  it('fills defaults and canonical forms when reading: folder, tags, node ids, schedule', () => {
    const t = parsed(
      't.yaml',
      'kind: TestCase\nname: x\nfolder: " /a//b/ "\ntags: [z, a, z]\nflow:\n  - type: wait\n    ms: 1\n',
    ) as TestCaseSpec;
    expect(t).to.deep.include({ folder: 'a/b', tags: ['a', 'z'], description: '', dataSets: [] });
    expect(t.flow).to.deep.equal([{ id: 'n1', type: 'wait', ms: 1 }]);
    const d = parsed(
      'd.yaml',
      'kind: Deployment\nname: n\nrunner: r\nenvironment: e\nschedule: "  "\n',
    ) as DeploymentSpec;
    expect(d).to.deep.include({
      schedule: null,
      timezone: 'UTC',
      enabled: true,
      webhookEnabled: false,
      webhookRequireAuth: true,
      loadProfile: null,
      durability: null,
    });
    expect(d.webhooks).to.deep.equal({ onComplete: [], onFailure: [] });
  });

  it('names the file and field of every problem, one line each', () => {
    expect(problemsOf('kind: Runner\nname: [oops\n')[0]).to.match(/^f\.yaml: line \d+, column \d+: YAML error: /);
    expect(problemsOf('kind: Runner\nname: a\nname: b\n')[0]).to.match(
      /^f\.yaml: line 3, column 1: YAML error: Map keys must be unique/,
    );
    expect(problemsOf('kind: Widget\nname: w\n')).to.deep.equal([
      'f.yaml: kind: unknown kind "Widget" (one of Environment, TestCase, Runner, Deployment)',
    ]);
    expect(problemsOf('name: w\n')).to.deep.equal([
      'f.yaml: kind: is missing (one of Environment, TestCase, Runner, Deployment)',
    ]);
    expect(problemsOf('')).to.deep.equal([
      'f.yaml: is empty; a resource file starts with "kind:" (Environment, TestCase, Runner or Deployment)',
    ]);
    expect(problemsOf('- a\n- b\n')).to.deep.equal(['f.yaml: must be a mapping starting with "kind:", not a list']);
    expect(problemsOf('kind: Environment\nname: a\n---\nkind: Environment\nname: b\n')).to.deep.equal([
      'f.yaml: holds 2 YAML documents; put one resource in each file',
    ]);
    expect(problemsOf('kind: Environment\nvariables: { a: 1 }\n')).to.deep.equal(['f.yaml: name: is missing']);
    expect(problemsOf('kind: Environment\nname: a b\n')[0]).to.match(/^f\.yaml: name: "a b" must be letters, digits/);
    expect(problemsOf('kind: Environment\nname: a\nvars: {}\n')).to.deep.equal([
      'f.yaml: vars: unknown field (expected one of: kind, name, description, variables)',
    ]);
    expect(problemsOf('kind: Environment\nname: a\nvariables:\n  x:\n  y: [1]\n')).to.deep.equal([
      'f.yaml: variables.x: has no value; give one, or {secret: true} for a value kept out of files',
      'f.yaml: variables.y: must be text, a number, true/false or {secret: true}, not a list',
    ]);
    expect(problemsOf('kind: TestCase\nname: t\n')).to.deep.equal(['f.yaml: flow: is missing']);
    expect(problemsOf('kind: TestCase\nname: t\ntags: ["a,b"]\nflow: []\n')).to.deep.equal([
      'f.yaml: tags[0]: "a,b" must not contain a comma',
    ]);
    expect(problemsOf('kind: Runner\nname: r\n')).to.deep.equal([
      'f.yaml: selects no test cases: give testCases, folder ("" for every folder) or tags',
    ]);
    expect(problemsOf('kind: Runner\nname: r\norder: random\ntestCases: [a, 3]\n')).to.deep.equal([
      'f.yaml: order: must be one of name, createdAt, not string "random"',
      'f.yaml: testCases[1]: must be text, not number 3',
    ]);
    expect(
      problemsOf(
        'kind: Deployment\nname: d\nrunner: r\nenabled: "yes"\nwebhooks:\n  onComplete:\n    - url: https://h\n      method: GET\n      headers: { X: 1 }\n',
      ),
    ).to.deep.equal([
      'f.yaml: environment: is missing',
      'f.yaml: enabled: must be true or false, not string "yes"',
      'f.yaml: webhooks.onComplete[0].method: must be one of POST, PUT, PATCH',
      'f.yaml: webhooks.onComplete[0].headers.X: must be text or {secret: true}, not number 1',
    ]);
  });

  it('makes safe, unique file names, test cases under their folder path', () => {
    expect(safeSegment('get user')).to.equal('get-user');
    expect(safeSegment('../etc/passwd')).to.equal('etc-passwd');
    expect(safeSegment('Ünïcödé ok')).to.equal('Ünïcödé-ok');
    expect(safeSegment('???')).to.equal('unnamed');
    const taken = new Set<string>();
    expect(resourcePath(tc({ name: 'Get User', folder: 'users/admin area' }), taken)).to.equal(
      'test-cases/users/admin-area/Get-User.yaml',
    );
    expect(resourcePath(tc({ name: 'get user', folder: 'users/admin area' }), taken)).to.equal(
      'test-cases/users/admin-area/get-user-2.yaml',
    );
    expect(resourcePath(tc({ name: 'x', folder: '' }), taken)).to.equal('test-cases/x.yaml');
    expect(resourcePath(env(), taken)).to.equal('environments/staging.yaml');
    expect(resourcePath(deployment(), taken)).to.equal('deployments/nightly.yaml');
  });
});

describe('tests as files: the model (cli/gitops/model)', () => {
  it('gives flow nodes the ids the server gives them (src/flow/tree.ts assignNodeIds), the id first, even in a malformed file', () => {
    const flow = [
      { type: 'api', id: 'n2', request: { method: 'GET', url: 'x' } },
      {
        type: 'if',
        condition: 'true',
        then: [
          { type: 'wait', ms: 1 },
          { type: 'loop', count: 2, body: [{ type: 'wait', ms: 1 }] },
        ],
        else: [{ type: 'wait', ms: 1 }],
      },
      { type: 'parallel', children: [{ type: 'wait', ms: 1, id: '' }] },
    ];
    const ours = parsed(
      'test-cases/ids.yaml',
      serialiseResource({
        kind: 'TestCase',
        name: 'ids',
        folder: '',
        description: '',
        tags: [],
        flow,
        dataSets: [],
      } as unknown as ResourceSpec),
    );
    const ids = JSON.stringify((ours as { flow: unknown[] }).flow);
    expect(ids).to.equal(JSON.stringify(assignNodeIds(flow)));
    expect(ids).to.equal(
      JSON.stringify([
        { id: 'n2', type: 'api', request: { method: 'GET', url: 'x' } },
        {
          id: 'n1',
          type: 'if',
          condition: 'true',
          then: [
            { id: 'n3', type: 'wait', ms: 1 },
            { id: 'n4', type: 'loop', count: 2, body: [{ id: 'n5', type: 'wait', ms: 1 }] },
          ],
          else: [{ id: 'n6', type: 'wait', ms: 1 }],
        },
        { id: 'n7', type: 'parallel', children: [{ id: 'n8', type: 'wait', ms: 1 }] },
      ]),
    );
    expect(assignNodeIds(JSON.parse(ids))).to.deep.equal(JSON.parse(ids));
    expect(assignNodeIds([null, { type: 'if', then: 'oops' }])).to.deep.equal([
      null,
      { id: 'n1', type: 'if', then: 'oops' },
    ]);
  });

  it('treats names like secrets case-insensitively', () => {
    for (const name of [
      'token',
      'API_KEY',
      'apiKey',
      'api-key',
      'dbPassword',
      'PASSWD',
      'pwd',
      'clientSecret',
      'authHeader',
      'credentials',
      'privateKey',
    ])
      expect(isSecretName(name), name).to.equal(true);
    for (const name of ['base', 'user', 'retries', 'url', 'host']) expect(isSecretName(name), name).to.equal(false);
  });

  it('reads API answers as specs: secrets out, runner ids as folder/name, defaults in', () => {
    expect(environmentFromApi({ name: 'e', variables: { token: 'abc', b: 1, a: 'x' } })).to.deep.equal({
      kind: 'Environment',
      name: 'e',
      description: '',
      variables: { a: 'x', b: 1, token: { secret: true } },
    });
    expect(
      testCaseFromApi({ id: 'tc_1', name: 't', folder: 'a', tags: ['b', 'a'], flow: [], dataSets: null }),
    ).to.deep.equal(tc({ name: 't', folder: 'a', tags: ['a', 'b'], flow: [] }));
    const refs: Record<string, string> = { tc_1: 'users/get user', tc_2: 'health' };
    expect(
      runnerFromApi({ name: 'r', testCaseIds: ['tc_2', 'tc_1'], folder: null, tags: ['z', 'a'] }, (id) => refs[id])
        .testCases,
    ).to.deep.equal(['health', 'users/get user']);
    const d = deploymentFromApi({
      id: 'dep_1',
      name: 'n',
      runner: 'r',
      environment: 'e',
      webhooks: { onComplete: [{ url: 'u', headers: { B: '***', A: '***' } }] },
    });
    expect(d.webhooks).to.deep.equal({
      onComplete: [{ url: 'u', headers: { A: { secret: true }, B: { secret: true } } }],
      onFailure: [],
    });
    expect(JSON.stringify(d)).not.to.include('dep_1');
  });
});

describe('tests as files: the plan (cli/gitops/plan)', () => {
  it('plans creates, updates with the fields that differ, and deletes only with prune', () => {
    const desired = [file(env({ name: 'new' })), file(tc({ tags: ['a'] })), file(runner()), file(deployment())];
    const current: CurrentResource[] = [
      { spec: env() },
      { spec: tc(), id: 'tc_1' },
      { spec: runner() },
      { spec: deployment(), id: 'dep_1' },
      { spec: runner({ name: 'old' }) },
    ];
    const plan = computePlan(desired, current);
    expect(plan.problems).to.deep.equal([]);
    expect(renderPlan(plan, 'assay/')).to.deep.equal([
      '+ create environment new',
      '~ update test case users/get user (tags)',
      '= 2 unchanged',
      '= 2 without a file, kept (--prune deletes them): environment staging, runner old',
      'Plan: 1 to create, 1 to update, 0 to delete.',
    ]);
    // The deployment still names environment staging, which prune would delete: refused.
    const pruned = computePlan(desired, current, { prune: true });
    expect(pruned.problems.map(describeProblem)).to.deep.equal([
      'Deployment-nightly.yaml: environment: no environment "staging" in the directory',
    ]);
    const ok = computePlan([...desired, file(env())], current, { prune: true });
    expect(ok.problems).to.deep.equal([]);
    expect(renderPlan(ok, 'assay/')).to.deep.equal([
      '+ create environment new',
      '~ update test case users/get user (tags)',
      '- delete runner old',
      '= 3 unchanged',
      'Plan: 1 to create, 1 to update, 1 to delete.',
    ]);
    const same = computePlan(
      current.map((c) => file(c.spec)),
      current,
      { prune: true },
    );
    expect(renderPlan(same, 'assay/')).to.deep.equal(['= 5 unchanged', 'No changes: the workspace matches assay/.']);
  });

  it('orders creates by dependency and deletes in reverse', () => {
    const current: CurrentResource[] = [
      { spec: env({ name: 'gone' }) },
      { spec: tc({ name: 'gone' }), id: 'tc_9' },
      { spec: runner({ name: 'gone', testCases: ['users/gone'] }) },
    ];
    const plan = computePlan([file(deployment()), file(runner()), file(tc()), file(env())], current, { prune: true });
    expect(plan.problems).to.deep.equal([]);
    expect(plan.actions.map((a) => `${a.op} ${a.label}`)).to.deep.equal([
      'create environment staging',
      'create test case users/get user',
      'create runner smoke',
      'create deployment nightly',
      'delete runner gone',
      'delete test case users/gone',
      'delete environment gone',
    ]);
  });

  it('refuses references to what will not exist and two files for one resource', () => {
    const plan = computePlan(
      [
        file(runner({ testCases: ['users/get user', 'nobody'] }), 'r.yaml'),
        file(deployment({ runner: 'missing' }), 'd.yaml'),
        file(env(), 'a.yaml'),
        file(env(), 'b.yaml'),
      ],
      [{ spec: tc(), id: 'tc_1' }],
    );
    expect(plan.problems.map(describeProblem)).to.deep.equal([
      'b.yaml: describes environment staging, as a.yaml does; keep one file per resource',
      'r.yaml: testCases[1]: no test case "nobody" in the directory or the workspace (write it as folder/name)',
      'd.yaml: runner: no runner "missing" in the directory or the workspace',
    ]);
  });

  it('never sets, changes or removes secret variables, and warns about the ones to set by hand', () => {
    const current = env({ variables: { base: 'old', gone: 1, token: { secret: true }, dbPassword: { secret: true } } });
    const desired = env({
      variables: {
        base: 'new',
        token: { secret: true },
        apiKey: { secret: true },
        pwd: 'in-git',
        marked: { secret: true },
      },
    });
    const changes = environmentVariableChanges(desired, current);
    expect(changes.set).to.deep.equal({ base: 'new' });
    expect(changes.remove).to.deep.equal(['gone']);
    expect(changes.warnings).to.have.length(3);
    expect(changes.warnings[0]).to.include(
      'secret variable "apiKey" is not set; set it in the console or with PATCH /v1/environments/staging',
    );
    expect(changes.warnings[1]).to.include('"pwd" is not set (the value in the file is ignored');
    expect(changes.warnings[2]).to.include('"marked" is not set');
    // Secrets alone never make an update.
    const plan = computePlan(
      [file(env({ variables: { token: { secret: true } } }))],
      [{ spec: env({ variables: { token: { secret: true }, apiKey: { secret: true } } }) }],
    );
    expect(plan.actions).to.deep.equal([]);
    expect(plan.warnings).to.deep.equal([]);
  });

  it('keeps stored webhook header values with "***", leaves out (and warns about) those it cannot set', () => {
    const hooks = {
      onComplete: [{ url: 'u', headers: { Authorization: { secret: true as const }, 'X-Team': 'qa' } }],
      onFailure: [{ url: 'f', headers: { Token: { secret: true as const } } }],
    };
    const now = deployment({
      webhooks: { onComplete: [{ url: 'u', headers: { authorization: { secret: true } } }], onFailure: [{ url: 'f' }] },
    });
    const out = deploymentWebhooks(deployment({ webhooks: hooks }), now);
    expect(out.send).to.deep.equal({
      onComplete: [{ url: 'u', headers: { Authorization: '***', 'X-Team': 'qa' } }],
      onFailure: [{ url: 'f' }],
    });
    expect(out.warnings).to.deep.equal([
      'deployment nightly: secret header "Token" of webhooks.onFailure[0] is not set; set it in the console or with PATCH /v1/deployments/{id} (header values are never exported)',
    ]);
    // Created: no stored values at all.
    expect(deploymentWebhooks(deployment({ webhooks: hooks }), undefined).send.onComplete).to.deep.equal([
      { url: 'u', headers: { 'X-Team': 'qa' } },
    ]);
    // A header the server cannot show is compared by name: only a new header name is an update.
    const plan = computePlan([file(deployment({ webhooks: hooks }))], [{ spec: now, id: 'dep_1' }]);
    expect(plan.actions.map((a) => a.fields)).to.deep.equal([['webhooks']]);
  });
});

describe('tests as files: test case hooks (cli/gitops)', () => {
  it('round-trips a test case with hooks, keeps one without as it was, and sees a change of hooks', () => {
    const withHooks: TestCaseSpec = {
      ...testCaseFromApi({ id: 'tc_1', name: 'login', folder: 'auth', flow: [], hooks: { code: '// hooks' } }),
    };
    expect(withHooks.hooks).to.deep.equal({ code: '// hooks' });
    const text = serialiseResource(withHooks);
    expect(text).to.contain('hooks:');
    expect(parseResourceFile('auth/login.yaml', text).spec).to.deep.equal(withHooks);
    const without = testCaseFromApi({ id: 'tc_2', name: 'plain', folder: '', flow: [] });
    expect(without).to.not.have.property('hooks');
    expect(serialiseResource(without)).to.not.contain('hooks');
    expect(sameValue(withHooks.hooks, { code: '// other' })).to.equal(false);
  });
});

describe('tests as files: auth profiles of test cases and runners (cli/gitops)', () => {
  it('round-trips authProfile, leaves it out when none is named, and sees a change as an update', () => {
    const named = testCaseFromApi({ id: 'tc_1', name: 'login', folder: 'auth', flow: [], authProfile: 'api-client' });
    const text = serialiseResource(named);
    expect(text).to.contain('authProfile: api-client');
    expect(parseResourceFile('auth/login.yaml', text).spec).to.deep.equal(named);
    const none = testCaseFromApi({ id: 'tc_2', name: 'plain', folder: '', flow: [] });
    expect(none.authProfile).to.equal(null);
    expect(serialiseResource(none)).to.not.contain('authProfile');
    const r = runner({ authProfile: 'none' });
    expect(parseResourceFile('smoke.yaml', serialiseResource(r)).spec).to.deep.equal(r);
    // A profile changed on the server (or in the file) is an update of that field, so apply does not drop it.
    const plan = computePlan(
      [file(tc({ authProfile: 'other' }))],
      [{ spec: tc({ authProfile: 'api-client' }), id: 'tc_1' }],
    );
    expect(plan.actions.map((a) => a.fields)).to.deep.equal([['authProfile']]);
  });

  it("round-trips a runner's baseline, leaves it out when null, and sees a change as an update", () => {
    const pinned = runnerFromApi(
      { name: 'smoke', testCaseIds: [], folder: '', baseline: 'lastPassing' },
      () => undefined,
    );
    const text = serialiseResource(pinned);
    expect(text).to.contain('baseline: lastPassing');
    expect(parseResourceFile('smoke.yaml', text).spec).to.deep.equal(pinned);
    expect(serialiseResource(runner())).to.not.contain('baseline');
    const plan = computePlan(
      [file(runner({ baseline: 'lastPassing' }))],
      [{ spec: runner({ baseline: 'run_01JD0A0000000000000000000' }), id: 'runner_1' }],
    );
    expect(plan.actions.map((a) => a.fields)).to.deep.equal([['baseline']]);
  });

  it('round-trips a runner quarantining flaky test cases, leaves the default out, and sees a change as an update', () => {
    const quarantining = runnerFromApi({ name: 'ci', folder: '', quarantineFlaky: true }, () => undefined);
    expect(quarantining.quarantineFlaky).to.equal(true);
    const text = serialiseResource(quarantining);
    expect(text).to.contain('quarantineFlaky: true');
    expect(parseResourceFile('ci.yaml', text).spec).to.deep.equal(quarantining);
    expect(runnerFromApi({ name: 'ci', folder: '' }, () => undefined).quarantineFlaky).to.equal(false);
    expect(serialiseResource(runner())).to.not.contain('quarantineFlaky');
    expect(problemsOf('kind: Runner\nname: ci\nfolder: ""\nquarantineFlaky: sometimes\n')[0]).to.match(
      /^f\.yaml: quarantineFlaky: /,
    );
    const plan = computePlan([file(runner({ quarantineFlaky: true }))], [{ spec: runner(), id: 'rnr_1' }]);
    expect(plan.actions.map((a) => a.fields)).to.deep.equal([['quarantineFlaky']]);
  });
});

describe('tests as files: durability modes of runners and deployments (cli/gitops)', () => {
  it("round-trips a runner's and a deployment's durability, leaves the defaults out, and sees a change as an update", () => {
    const durable = runnerFromApi({ name: 'ci', folder: '', durability: 'testCase' }, () => undefined);
    expect(durable.durability).to.equal('testCase');
    const text = serialiseResource(durable);
    expect(text).to.contain('durability: testCase');
    expect(parseResourceFile('ci.yaml', text).spec).to.deep.equal(durable);
    expect(runnerFromApi({ name: 'ci', folder: '' }, () => undefined).durability).to.equal('node');
    expect(serialiseResource(runner())).to.not.contain('durability');
    expect(
      (parsed('r.yaml', 'kind: Runner\nname: r\nfolder: ""\ndurability: node\n') as RunnerSpec).durability,
    ).to.equal('node');

    const overriding = deploymentFromApi({ id: 'dep_1', name: 'n', runner: 'r', environment: 'e', durability: 'node' });
    expect(overriding.durability).to.equal('node');
    const deploymentText = serialiseResource(overriding);
    expect(deploymentText).to.contain('durability: node');
    expect(parseResourceFile('n.yaml', deploymentText).spec).to.deep.equal(overriding);
    expect(deploymentFromApi({ id: 'dep_1', name: 'n', runner: 'r', environment: 'e' }).durability).to.equal(null);
    expect(serialiseResource(deployment())).to.not.contain('durability');
    expect(
      (parsed('d.yaml', 'kind: Deployment\nname: n\nrunner: r\nenvironment: e\ndurability: null\n') as DeploymentSpec)
        .durability,
    ).to.equal(null);

    expect(problemsOf('kind: Runner\nname: ci\nfolder: ""\ndurability: activity\n')).to.deep.equal([
      'f.yaml: durability: must be one of node, testCase, not string "activity"',
    ]);
    expect(problemsOf('kind: Deployment\nname: n\nrunner: r\nenvironment: e\ndurability: 3\n')).to.deep.equal([
      'f.yaml: durability: must be one of node, testCase, not number 3',
    ]);

    const plan = computePlan(
      [file(runner({ durability: 'testCase' })), file(deployment({ durability: 'node' }))],
      [
        { spec: runner(), id: 'rnr_1' },
        { spec: deployment(), id: 'dep_1' },
      ],
    );
    expect(plan.actions.map((a) => a.fields)).to.deep.equal([['durability'], ['durability']]);
  });
});
