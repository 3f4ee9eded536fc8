/**
 * The flakiness rule (src/history/flaky.ts, docs/history.md "Flaky tests") and the history
 * figures (src/history/summary.ts), and the run ledger's count of quarantined failures (the run's
 * result and continue-as-new).
 */
import { expect } from 'chai';
import { evaluateFlaky, evaluateFlakyNodes, type FlakyOutcome } from '../../src/history/flaky';
import { historyStats, nodeStats, percentile } from '../../src/history/summary';
import { RunLedger } from '../../workflows/run-ledger';
import type { RunPlan, TestCaseResult } from '../../src/domain/types';

/** Outcomes written oldest → newest as a string (P passed, F failed, S skipped), given to the rule newest first. */
const outcomes = (oldestFirst: string, hashes?: string): FlakyOutcome[] =>
  [...oldestFirst]
    .map((c, i) => ({
      status: c === 'P' ? 'passed' : c === 'F' ? 'failed' : 'skipped',
      definitionHash: hashes?.[i] ?? 'a',
    }))
    .reverse();

describe('the flakiness rule', () => {
  it('flags three flips in the last ten runs (n = 10, k = 3), not two', () => {
    expect(evaluateFlaky(outcomes('PPFPP'))).to.deep.equal({ flaky: false, flips: 2, window: 5, flipRate: 0.5 });
    expect(evaluateFlaky(outcomes('PPFPPF'))).to.deep.equal({ flaky: true, flips: 3, window: 6, flipRate: 0.6 });
    // A breakage and its fix is two flips: not flaky however long the window.
    expect(evaluateFlaky(outcomes('PPPPFFFFPP')).flaky).to.equal(false);
    expect(evaluateFlaky(outcomes('PFPFPFPFPF'))).to.deep.equal({ flaky: true, flips: 9, window: 10, flipRate: 1 });
  });

  it('looks at the last n outcomes only: old flips age out', () => {
    // Three flips long ago, then ten passes.
    expect(evaluateFlaky(outcomes('PFPF' + 'P'.repeat(10)))).to.deep.include({ flaky: false, flips: 0, window: 10 });
    expect(evaluateFlaky(outcomes('PFPF' + 'P'.repeat(7)))).to.deep.include({ flaky: true, flips: 1 + 2, window: 10 });
  });

  it('ignores skipped runs: they neither flip nor count in the window', () => {
    expect(evaluateFlaky(outcomes('PSFSPSF'))).to.deep.equal({ flaky: true, flips: 3, window: 4, flipRate: 1 });
    expect(evaluateFlaky(outcomes('SSS'))).to.deep.equal({ flaky: false, flips: 0, window: 0, flipRate: 0 });
  });

  it('counts only runs at the newest definition: an edit starts a new window', () => {
    // Flaky before the edit (hash a), then two runs of the edited test case (hash b).
    expect(evaluateFlaky(outcomes('PFPFPF' + 'PP', 'aaaaaa' + 'bb'))).to.deep.equal({
      flaky: false,
      flips: 0,
      window: 2,
      flipRate: 0,
    });
    // A → B → A: the runs before B do not join the window of the newest A.
    expect(evaluateFlaky(outcomes('PFPF' + 'P' + 'FP', 'aaaa' + 'b' + 'aa'))).to.deep.include({ flips: 1, window: 2 });
  });

  it('takes n and k from its parameters', () => {
    expect(evaluateFlaky(outcomes('PFP'), { window: 3, minFlips: 2 }).flaky).to.equal(true);
    expect(evaluateFlaky(outcomes('PFPFPF'), { window: 3, minFlips: 3 })).to.deep.include({ flaky: false, window: 3 });
  });
});

describe('the flakiness rule per node', () => {
  // Newest first: "login" always passes, "pay" always fails, "search" flips P F P F (3 flips).
  const row = (search: string, hash = 'h1') => ({
    status: 'failed',
    definitionHash: hash,
    nodes: [
      { id: 'login', status: 'passed' },
      { id: 'search', status: search },
      { id: 'pay', status: 'failed' },
    ],
  });

  it('names the node that flips although the test case fails steadily for another reason', () => {
    const rows = [row('failed'), row('passed'), row('failed'), row('passed')];
    expect(evaluateFlaky(rows).flaky).to.equal(false);
    expect(evaluateFlakyNodes(rows)).to.deep.equal([{ id: 'search', flips: 3, window: 4, flipRate: 1 }]);
  });

  it('reads a node only within the newest definition, and ignores rows where it did not run', () => {
    const skipped = { ...row('passed'), nodes: [{ id: 'login', status: 'passed' }] };
    expect(evaluateFlakyNodes([row('failed'), skipped, row('passed'), row('failed'), row('passed')])).to.deep.equal([
      { id: 'search', flips: 3, window: 4, flipRate: 1 },
    ]);
    // An edit between them: the window stops at the older definition.
    expect(evaluateFlakyNodes([row('failed'), row('passed'), row('failed', 'h0'), row('passed', 'h0')])).to.deep.equal(
      [],
    );
    expect(evaluateFlakyNodes([])).to.deep.equal([]);
  });
});

describe('history figures', () => {
  it('percentile by nearest rank; the median of an even count is the mean of the middle two', () => {
    expect(percentile([], 95)).to.equal(null);
    expect(percentile([5], 95)).to.equal(5);
    expect(percentile([1, 2, 3, 4], 50)).to.equal(3); // (2 + 3) / 2 rounded
    expect(percentile([3, 1, 2], 50)).to.equal(2);
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 95)).to.equal(95);
    expect(percentile([...hundred, 101], 95)).to.equal(96);
  });

  it('pass rate over runs that passed or failed; durations of skipped runs left out', () => {
    const stats = historyStats([
      { status: 'passed', durationMs: 10 },
      { status: 'failed', durationMs: 30 },
      { status: 'skipped', durationMs: 0 },
      { status: 'passed', durationMs: 20 },
    ]);
    expect(stats).to.deep.equal({
      runs: 4,
      passed: 2,
      failed: 1,
      skipped: 1,
      passRate: 0.6667,
      medianMs: 20,
      p95Ms: 30,
    });
    expect(historyStats([{ status: 'skipped', durationMs: 0 }])).to.deep.include({ passRate: null, medianMs: null });
  });

  it('per node and assertion, in the newest run’s order, skipped nodes not counted', () => {
    const nodes = nodeStats([
      {
        status: 'failed',
        durationMs: 0,
        nodes: [
          { id: 'b', type: 'api', status: 'failed', durationMs: 40, assertions: [{ label: 'ok', passed: false }] },
          { id: 'c', type: 'wait', status: 'skipped', durationMs: 0 },
        ],
      },
      {
        status: 'passed',
        durationMs: 0,
        nodes: [
          { id: 'a', name: 'first', type: 'api', status: 'passed', durationMs: 5 },
          { id: 'b', type: 'api', status: 'passed', durationMs: 20, assertions: [{ label: 'ok', passed: true }] },
        ],
      },
      { status: 'passed', durationMs: 0, nodes: null },
    ]);
    expect(nodes.map((n) => n.id)).to.deep.equal(['b', 'c', 'a']);
    expect(nodes[0]).to.deep.equal({
      id: 'b',
      type: 'api',
      runs: 2,
      passed: 1,
      failed: 1,
      passRate: 0.5,
      medianMs: 30,
      p95Ms: 40,
      assertions: [{ label: 'ok', runs: 2, passed: 1 }],
    });
    expect(nodes[1]).to.deep.include({ runs: 0, passRate: null, medianMs: null });
    expect(nodes[2]).to.deep.include({ name: 'first', runs: 1, passRate: 1 });
  });
});

describe('the run ledger and quarantine', () => {
  const plan = {
    testCases: [
      { id: 'tc_a', name: 'a', flow: [], dataSets: {} },
      { id: 'tc_b', name: 'b', flow: [], dataSets: {} },
    ],
    settings: { maxLoopIterations: 10 },
    quarantine: ['tc_a'],
  } as unknown as RunPlan;
  const result = (status: TestCaseResult['status'], quarantined?: boolean) =>
    ({ status, ...(quarantined ? { quarantined } : {}) }) as TestCaseResult;

  it('counts quarantined failures apart from the summary and carries them across continue-as-new', () => {
    const ledger = new RunLedger();
    ledger.begin(plan);
    ledger.testCaseDone(result('failed', true));
    expect(ledger.summary.failed).to.equal(1);
    expect(ledger.quarantined).to.equal(1);
    const state = ledger.resumeState();
    expect(state.quarantined).to.equal(1);
    const next = new RunLedger(state);
    next.testCaseDone(result('failed'));
    expect(next.summary.failed).to.equal(2);
    expect(next.quarantined).to.equal(1);
    // Without any quarantined failure, the state carries nothing new (as recorded histories have it).
    const plain = new RunLedger();
    plain.begin(plan);
    plain.testCaseDone(result('passed'));
    expect(plain.resumeState()).to.not.have.property('quarantined');
    expect(new RunLedger(plain.resumeState()).quarantined).to.equal(0);
  });
});
