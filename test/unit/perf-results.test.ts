/**
 * What a performance run's results say (docs/performance.md "Expected statuses", "Test cases"): the
 * HTTP statuses an API node expects, read from its `response.status` assertions (k6's
 * `expectedStatuses`, 200–399 without one); test-case rows whose status follows their checks,
 * executions and the thresholds tagged with them, and whose duration is the mean execution time.
 */
import { expect } from 'chai';
import type { FlowNode } from '../../src/domain/types';
import { expectedHttpStatuses, httpRequestFailed } from '../../src/perf/expected-statuses';
import { LoadMetrics, performanceResults } from '../../src/perf/metrics';
import { loadTestCaseResults } from '../../src/perf/test-case-results';
import { parseThresholds } from '../../src/perf/thresholds';

const api = (id: string, assertions: unknown[]): FlowNode =>
  ({ type: 'api', id, request: { method: 'GET', url: 'http://x/' }, assertions }) as unknown as FlowNode;
const status = (operator: string, expected: unknown) => ({ target: 'response.status', operator, expected });

describe('expected statuses (k6 expectedStatuses from status assertions)', () => {
  it('reads equals, oneOf, inRange and bounds; every status assertion must hold; other nodes keep 200–399', () => {
    const flow: FlowNode[] = [
      api('gone', [status('equals', 404)]),
      api('either', [status('oneOf', [200, 404])]),
      api('range', [status('inRange', [200, 499])]),
      api('bounds', [status('greaterThanOrEqual', 400), { ...status('lessThan', 500), target: ' response . status ' }]),
      api('plain', [{ target: 'response.body.ok', operator: 'equals', expected: true }, status('notEquals', 500)]),
      {
        type: 'if',
        id: 'branch',
        condition: 'true',
        then: [api('nested', [status('equals', 409)])],
      } as unknown as FlowNode,
    ];
    const expected = expectedHttpStatuses(flow);
    expect([...expected.keys()].sort()).to.deep.equal(['bounds', 'either', 'gone', 'nested', 'range']);
    const failed = (id: string, code: number | undefined) => httpRequestFailed(code, expected.get(id));
    expect([404, 200, 500].map((c) => failed('gone', c))).to.deep.equal([false, true, true]);
    expect([200, 404, 201].map((c) => failed('either', c))).to.deep.equal([false, false, true]);
    expect([200, 499, 500, 199].map((c) => failed('range', c))).to.deep.equal([false, false, true, true]);
    expect([400, 499, 500, 200].map((c) => failed('bounds', c))).to.deep.equal([false, false, true, true]);
    expect([409, 200].map((c) => failed('nested', c))).to.deep.equal([false, true]);
    // k6's default: 200–399; no response always fails.
    expect([200, 399, 400, 404, 199].map((c) => failed('plain', c))).to.deep.equal([false, false, true, true, true]);
    expect(failed('gone', undefined)).to.equal(true);
  });
});

describe('performance test-case rows', () => {
  const testCases = [
    { id: 'tc_a', name: 'a', folder: 'f' },
    { id: 'tc_b', name: 'b', folder: 'f' },
    { id: 'tc_c', name: 'c', folder: 'f' },
    { id: 'tc_d', name: 'd', folder: 'f' },
  ];
  const identity = <T>(v: T) => v;

  function measured(): LoadMetrics {
    const m = new LoadMetrics();
    const req = (testCase: string, failed: boolean) =>
      m.recordRequest({
        name: `get ${testCase}`,
        testCase,
        durationMs: 0.4,
        status: 404,
        failed,
        bytesSent: 1,
        bytesReceived: 1,
        endedAtMs: 1_700_000_000_000,
      });
    // a: a 404 asserted on purpose, every check passes; executions of 0.3 and 0.5 ms.
    req('a', false);
    req('a', false);
    m.recordChecks('get a', 'a', 2, 2);
    m.recordTestCase('a', 0.3, false);
    m.recordTestCase('a', 0.5, false);
    // b: one check of two failed.
    req('b', false);
    m.recordChecks('get b', 'b', 1, 2);
    m.recordTestCase('b', 2, true);
    // c: checks pass, but a threshold tagged with it fails.
    req('c', false);
    m.recordChecks('get c', 'c', 1, 1);
    m.recordTestCase('c', 1, false);
    // d: never ran.
    return m;
  }

  it('passes a test case whose checks pass (a 404 on purpose), fails one with a failed check or a failed tagged threshold, skips one that never ran', () => {
    const m = measured();
    const { thresholds } = parseThresholds({
      'iteration_duration{testCase:c}': ['avg<0.5'],
      'iteration_duration{testCase:a}': ['avg<100'],
      http_req_failed: ['rate==0'],
    });
    const perf = performanceResults(m, thresholds, 1000);
    expect(perf.errorRate).to.equal(0);
    const { results, summary } = loadTestCaseResults(testCases, perf, m, [], identity, thresholds);
    expect(results.map((r) => [r.name, r.status])).to.deep.equal([
      ['a', 'passed'],
      ['b', 'failed'],
      ['c', 'failed'],
      ['d', 'skipped'],
    ]);
    expect(summary).to.deep.equal({ total: 4, passed: 1, failed: 2, skipped: 1 });
    // Mean execution time, microsecond precision: (0.3 + 0.5) / 2 (HDR: 3 significant digits).
    expect(results[0]!.duration).to.be.closeTo(0.4, 0.001);
    expect(results[1]!.duration).to.be.closeTo(2, 0.01);
    expect(results[3]!.duration).to.equal(0);
    // Without the thresholds, c follows its checks alone.
    expect(loadTestCaseResults(testCases, perf, m, [], identity).results[2]!.status).to.equal('passed');
  });
});
