/**
 * Comparing runs (src/history/compare.ts; docs/history.md "Comparing runs"): which list each test
 * case lands in, the slower rule's two bounds, performance figures and the regression rules,
 * the verdict, the plan difference (names only, never a secret's value), relative thresholds
 * (src/perf/thresholds.ts) parsed and judged against a baseline, and the CLI's table.
 */
import { expect } from 'chai';
import {
  compareRuns,
  compareTestCases,
  diffPlans,
  isSlower,
  judgeFigure,
  type CompareSide,
} from '../../src/history/compare';
import { evaluateThresholds, LoadMetrics, performanceResults } from '../../src/perf/metrics';
import { baselineKey, parseThresholds } from '../../src/perf/thresholds';
import type { RunPlan, TestCaseDefinition } from '../../src/domain/types';
import { renderComparison } from '../../cli/commands/compare';

const row = (testCaseId: string, status: string, durationMs: number, name = testCaseId) => ({
  testCaseId,
  name,
  status,
  durationMs,
});

const run = (runId: string, over: Partial<CompareSide['run']> = {}): CompareSide['run'] => ({
  runId,
  createdAt: '2026-01-01T00:00:00.000Z',
  status: 'completed',
  result: 'passed',
  planHash: 'h1',
  kind: 'functional',
  ...over,
});

const loadRequest = (durationMs: number, status = 200, name = 'get', endedAtMs = 1_700_000_000_000) => ({
  name,
  testCase: 'tc',
  durationMs,
  status,
  bytesSent: 10,
  bytesReceived: 100,
  endedAtMs,
});

describe('comparing runs', () => {
  it('puts each test case in one list: newly failing, newly passing, appeared, disappeared, slower, faster, unchanged', () => {
    const base = [
      row('a', 'passed', 100),
      row('b', 'failed', 100),
      row('c', 'passed', 100),
      row('d', 'passed', 100),
      row('e', 'passed', 300),
      row('gone', 'passed', 10),
      row('f', 'skipped', 0),
    ];
    const head = [
      row('a', 'failed', 100),
      row('b', 'passed', 100),
      row('c', 'passed', 100),
      row('d', 'passed', 200),
      row('e', 'passed', 100),
      row('new', 'failed', 10),
      row('f', 'passed', 500),
    ];
    const t = compareTestCases(base, head);
    expect(t.newlyFailing.map((i) => i.testCaseId)).to.deep.equal(['a']);
    expect(t.newlyPassing.map((i) => i.testCaseId)).to.deep.equal(['b']);
    expect(t.slower).to.deep.equal([
      {
        testCaseId: 'd',
        name: 'd',
        base: { status: 'passed', durationMs: 100 },
        head: { status: 'passed', durationMs: 200 },
        change: 1,
      },
    ]);
    expect(t.faster.map((i) => [i.testCaseId, i.change])).to.deep.equal([['e', -0.6667]]);
    expect(t.appeared).to.deep.equal([
      { testCaseId: 'new', name: 'new', base: null, head: { status: 'failed', durationMs: 10 } },
    ]);
    expect(t.disappeared.map((i) => i.testCaseId)).to.deep.equal(['gone']);
    // c the same; f was skipped in the base, so its duration is not judged.
    expect(t.unchanged).to.equal(2);
  });

  it('calls a test case slower only past both bounds: × 1.5 and + 50 ms', () => {
    expect(isSlower(100, 151)).to.equal(true);
    expect(isSlower(100, 150)).to.equal(false); // not above × 1.5
    expect(isSlower(20, 69)).to.equal(false); // × 3.45 but only + 49 ms
    expect(isSlower(20, 70)).to.equal(true);
    expect(isSlower(1000, 1400)).to.equal(false); // + 400 ms but × 1.4
  });

  it('matches a test case listed twice occurrence by occurrence', () => {
    const t = compareTestCases([row('a', 'passed', 10), row('a', 'passed', 10)], [row('a', 'passed', 10)]);
    expect(t.unchanged).to.equal(1);
    expect(t.disappeared).to.have.length(1);
  });

  it('judges overall figures by the documented rules: p95/p99 +10 %, rps −10 %, error rate +1 point', () => {
    expect(judgeFigure('p95', 100, 110)).to.equal(undefined);
    expect(judgeFigure('p95', 100, 110.1)).to.equal('regression');
    expect(judgeFigure('p99', 100, 89)).to.equal('improvement');
    expect(judgeFigure('rps', 100, 90)).to.equal(undefined);
    expect(judgeFigure('rps', 100, 89.9)).to.equal('regression');
    expect(judgeFigure('errorRate', 0.01, 0.02)).to.equal(undefined);
    expect(judgeFigure('errorRate', 0.01, 0.0201)).to.equal('regression');
    expect(judgeFigure('avg', 10, 100)).to.equal(undefined); // reported, not judged
  });

  it('compares performance runs figure by figure, per request name, with both series from offset 0', () => {
    const fast = new LoadMetrics();
    const slow = new LoadMetrics();
    const t0 = 1_700_000_000_000;
    for (let i = 0; i < 100; i++) {
      fast.recordRequest(loadRequest(10, 200, i % 2 ? 'a' : 'b', t0 + i * 20));
      slow.recordRequest(loadRequest(i % 2 ? 30 : 10, i < 5 ? 500 : 200, i % 2 ? 'a' : 'b', t0 + 60_000 + i * 20));
    }
    const side = (id: string, m: LoadMetrics, result: string): CompareSide => ({
      run: run(id, { kind: 'performance', result }),
      testCases: [row('tc', 'passed', 2000)],
      performance: performanceResults(m, [], 2000),
    });
    const c = compareRuns(side('run_a', fast, 'passed'), side('run_b', slow, 'passed'));
    const p = c.performance!;
    expect(p.overall.p95.base).to.be.closeTo(10, 0.05); // HDR histograms: 3 significant digits
    expect(p.overall.p95.head).to.be.within(29, 31);
    expect(p.overall.checksRate).to.deep.equal({ base: null, head: null, change: null }); // no assertions, no rate
    expect(p.overall.p95.regression).to.equal(true);
    expect(p.overall.errorRate).to.deep.include({ base: 0, head: 0.05, change: 0.05, regression: true });
    expect(p.overall.rps).to.deep.include({ base: 50, head: 50, change: 0 });
    expect(p.requests.map((r) => r.name).sort()).to.deep.equal(['a', 'b']);
    const a = p.requests.find((r) => r.name === 'a')!;
    expect(a.figures.p95.change).to.be.within(1.9, 2.1);
    expect(a.figures.p95).to.not.have.property('regression'); // per-name figures are shown, not judged
    expect(p.series.base[0]!.offset).to.equal(0);
    expect(p.series.head[0]!.offset).to.equal(0);
    expect(p.series.head[1]!.offset).to.equal(1);
    expect(c.verdict).to.equal('regression');
  });

  it('decides the verdict: a new failure or a failed head where the base passed is a regression; a fix an improvement', () => {
    const same = [row('a', 'passed', 10)];
    const side = (id: string, testCases = same, over: Partial<CompareSide['run']> = {}): CompareSide => ({
      run: run(id, over),
      testCases,
    });
    expect(compareRuns(side('a'), side('b')).verdict).to.equal('unchanged');
    expect(compareRuns(side('a'), side('b')).samePlan).to.equal(true);
    expect(compareRuns(side('a'), side('b', [row('a', 'failed', 10)], { result: 'failed' })).verdict).to.equal(
      'regression',
    );
    // A test case that appeared failing is a failure the base did not have.
    expect(compareRuns(side('a'), side('b', [...same, row('n', 'failed', 1)])).verdict).to.equal('regression');
    // The head run failed (cancelled, timed out) where the base passed.
    expect(compareRuns(side('a'), side('b', same, { status: 'failed', result: null })).verdict).to.equal('regression');
    expect(compareRuns(side('a', [row('a', 'failed', 10)], { result: 'failed' }), side('b')).verdict).to.equal(
      'improvement',
    );
    // Slower alone is reported, not a regression.
    const slower = compareRuns(side('a'), side('b', [row('a', 'passed', 500)]));
    expect(slower.testCases.slower).to.have.length(1);
    expect(slower.verdict).to.equal('unchanged');
  });

  it('shows what changed between two plans by name, never a secret value', () => {
    const tc = (id: string, url: string): TestCaseDefinition =>
      ({ id, name: `tc ${id}`, flow: [{ id: 'n', type: 'api', request: { method: 'GET', url } }] }) as never;
    const plan = (over: Partial<RunPlan>): RunPlan =>
      ({
        runId: 'r',
        workspaceId: 'w',
        runner: 'x',
        environment: 'e',
        timeoutSeconds: 60,
        startedAtMs: 1,
        variables: {},
        testCases: [],
        settings: { requestTimeoutMs: 1000, maxResponseBytes: 10 },
        ...over,
      }) as RunPlan;
    const base = plan({
      testCases: [tc('a', '/a'), tc('b', '/b'), tc('c', '/c')],
      variables: { host: 'x', gone: 1, token: { secret: true, sealed: 'v1.k.iv.AAAA' }, pw: 'plain' },
      servers: { api: 'http://a' },
    });
    const head = plan({
      runId: 'other', // names the run: not a difference
      testCases: [tc('a', '/a'), tc('b', '/b2'), tc('d', '/d')],
      variables: {
        host: 'y',
        added: 2,
        token: { secret: true, sealed: 'v1.k.iv.BBBB' },
        pw: { secret: true, sealed: 'v1.k.iv.CCCC' },
      },
      servers: { api: 'http://b', extra: 'http://c' },
      settings: { requestTimeoutMs: 2000, maxResponseBytes: 10 } as never,
      timeoutSeconds: 120,
    });
    const d = diffPlans(base, head);
    expect(d.testCases).to.deep.equal({
      changed: [{ id: 'b', name: 'tc b' }],
      added: [{ id: 'd', name: 'tc d' }],
      removed: [{ id: 'c', name: 'tc c' }],
    });
    // The secret's new ciphertext is no change; a plain variable turned secret is.
    expect(d.variables).to.deep.equal({ changed: ['host', 'pw'], added: ['added'], removed: ['gone'] });
    expect(d.settings).to.deep.equal(['requestTimeoutMs']);
    expect(d.servers).to.deep.equal(['api', 'extra']);
    expect(d.other).to.deep.equal(['timeoutSeconds']);
    expect(JSON.stringify(d)).to.not.match(/AAAA|BBBB|CCCC|plain|http:/);
    // Shown only when the hashes differ.
    const c = compareRuns(
      { run: run('a', { planHash: 'h1' }), testCases: [], plan: base },
      { run: run('b', { planHash: 'h2' }), testCases: [], plan: head },
    );
    expect(c.samePlan).to.equal(false);
    expect(c.planDiff?.testCases.changed).to.have.length(1);
    expect(
      compareRuns({ run: run('a'), testCases: [], plan: base }, { run: run('b'), testCases: [], plan: base }),
    ).to.not.have.property('planDiff');
  });
});

describe('relative thresholds', () => {
  it('parses baseline and baseline*<factor>, and refuses a bad factor', () => {
    const { thresholds, issues } = parseThresholds({
      http_req_duration: ['p(95)<baseline*1.10', 'avg <= baseline', 'p(99) < baseline * 2'],
      'http_req_duration{name:login}': ['med<baseline*1.5'],
      http_req_failed: ['rate<=baseline'],
    });
    expect(issues).to.deep.equal([]);
    expect(thresholds.map((t) => [baselineKey(t), t.operator, t.value, t.relative])).to.deep.equal([
      ['http_req_duration:p(95)', '<', 1.1, true],
      ['http_req_duration:avg', '<=', 1, true],
      ['http_req_duration:p(99)', '<', 2, true],
      ['http_req_duration{name:login}:med', '<', 1.5, true],
      ['http_req_failed:rate', '<=', 1, true],
    ]);
    const bad = parseThresholds({ http_req_duration: ['p(95)<baseline*0', 'p(95)<baseline+1', 'p(95)<base'] });
    expect(bad.issues.map((i) => i.path)).to.deep.equal([
      ['http_req_duration', 0],
      ['http_req_duration', 1],
      ['http_req_duration', 2],
    ]);
    expect(bad.issues[0]!.message).to.match(/factor of baseline must be a number above 0/);
    expect(bad.issues[1]!.message).to.match(/baseline\*<factor>/);
  });

  it('judges against the baseline × factor, and passes with a note when there is no baseline', () => {
    const m = new LoadMetrics();
    for (let i = 0; i < 100; i++) m.recordRequest(loadRequest(i < 90 ? 10 : 100));
    const { thresholds } = parseThresholds({ http_req_duration: ['p(95)<baseline*1.10', 'med<=baseline'] });
    const judged = evaluateThresholds(thresholds, m, 10_000, {
      runId: 'run_base',
      values: { 'http_req_duration:p(95)': 50, 'http_req_duration:med': 10.007 },
    });
    // HDR histograms keep 3 significant digits: 100 ms reads 100.031, 10 ms 10.007.
    expect(judged).to.deep.equal([
      {
        metric: 'http_req_duration',
        threshold: 'p(95)<baseline*1.1',
        actual: 100.031,
        passed: false,
        baseline: 50,
        limit: 55,
      },
      {
        metric: 'http_req_duration',
        threshold: 'med<=baseline',
        actual: 10.007,
        passed: true,
        baseline: 10.007,
        limit: 10.007,
      },
    ]);
    const none = evaluateThresholds(thresholds, m, 10_000, {
      runId: null,
      values: {},
      reason: 'no earlier run passed',
    });
    expect(none.map((o) => [o.passed, o.note])).to.deep.equal([
      [true, 'not compared: no earlier run passed'],
      [true, 'not compared: no earlier run passed'],
    ]);
    expect(evaluateThresholds(thresholds, m, 10_000)[0]!.note).to.equal('not compared: the run has no baseline');
  });
});

describe('assay compare output', () => {
  it('prints the verdict, the changed test cases and the figures side by side', () => {
    const fast = new LoadMetrics();
    const slow = new LoadMetrics();
    for (let i = 0; i < 20; i++) {
      fast.recordRequest(loadRequest(10, 200, 'get /x'));
      slow.recordRequest(loadRequest(20, 200, 'get /x'));
    }
    const c = compareRuns(
      {
        run: run('run_a', { kind: 'performance' }),
        testCases: [row('t1', 'passed', 100, 'login')],
        performance: performanceResults(fast, [], 1000),
      },
      {
        run: run('run_b', { kind: 'performance', result: 'failed' }),
        testCases: [row('t1', 'failed', 100, 'login')],
        performance: performanceResults(slow, [], 1000),
      },
    );
    const text = renderComparison(c);
    expect(text).to.include('verdict: REGRESSION');
    expect(text).to.match(/newly failing\s+login\s+passed 100 ms\s+failed 100 ms/);
    expect(text).to.match(/p95 \(ms\)\s+10\.01\s+20\.02\s+\+100\.0 %\s+regression/);
    expect(text).to.match(/get \/x\s+10\.01\s+20\.02\s+\+100\.0 %/);
    expect(text).to.match(/checks passed\s+—\s+—/);
  });
});
