/**
 * The history core (docs/history.md): plan and definition hashes (src/history/plan-hash.ts) and
 * the summary a history row keeps of a result (src/store/history.ts).
 */
import { expect } from 'chai';
import { canonicalJson, definitionHash, planHash } from '../../src/history/plan-hash';
import { commitOf, flattenNodes, historyRow } from '../../src/store/history';
import type { NodeResult, RunPlan, TestCaseDefinition, TestCaseResult } from '../../src/domain/types';

const testCase: TestCaseDefinition = {
  id: 'tc_1',
  name: 'get user',
  folder: '',
  tags: [],
  flow: [{ id: 'get', type: 'api', request: { method: 'GET', url: '{{base}}/users/1' } } as never],
  dataSets: {},
};

function plan(overrides: Partial<RunPlan> = {}): RunPlan {
  return {
    runId: 'run_a',
    workspaceId: 'ws_1',
    runner: 'smoke',
    environment: 'staging',
    timeoutSeconds: 600,
    startedAtMs: 1_700_000_000_000,
    variables: { base: 'http://127.0.0.1:1', token: { secret: true, sealed: 'v1.k1.aXY.Y2lwaGVy' } },
    testCases: [testCase],
    settings: { apiNodeActivity: 'local' } as RunPlan['settings'],
    ...overrides,
  };
}

describe('history core', () => {
  describe('plan hash', () => {
    it('is the same for two runs of the same plan, whatever their ids, names, start times and secret ciphertexts', () => {
      const other = plan({
        runId: 'run_b',
        runner: 'nightly',
        environment: 'copy',
        startedAtMs: 1,
        variables: { token: { secret: true, sealed: 'v1.k2.b3Ro.ZXI' }, base: 'http://127.0.0.1:1' },
      });
      expect(planHash(plan())).to.match(/^[0-9a-f]{64}$/);
      expect(planHash(other)).to.equal(planHash(plan()));
    });

    it('changes when a test case, a plain variable, a server or a setting changes', () => {
      const base = planHash(plan());
      const edited = {
        ...testCase,
        flow: [{ ...testCase.flow[0], request: { method: 'GET', url: '{{base}}/users/2' } }],
      };
      expect(planHash(plan({ testCases: [edited as TestCaseDefinition] }))).not.to.equal(base);
      expect(planHash(plan({ variables: { base: 'http://127.0.0.1:2' } }))).not.to.equal(base);
      expect(planHash(plan({ servers: { users: 'http://127.0.0.1:3' } }))).not.to.equal(base);
      expect(planHash(plan({ timeoutSeconds: 601 }))).not.to.equal(base);
    });

    it('never carries a secret into what it hashes', () => {
      expect(canonicalJson(plan().variables)).to.equal('{"base":"http://127.0.0.1:1","token":{"secret":true}}');
      expect(canonicalJson({ clientSecret: 'v1.k1.aXY.c2VjcmV0' })).to.equal('{"clientSecret":"<sealed>"}');
    });

    it('hashes a test case definition independently of its key order', () => {
      const reordered = { dataSets: {}, flow: testCase.flow, tags: [], folder: '', name: 'get user', id: 'tc_1' };
      expect(definitionHash(reordered)).to.equal(definitionHash(testCase));
    });
  });

  describe('history rows', () => {
    const node = (over: Partial<NodeResult>): NodeResult => ({
      id: 'n',
      type: 'api',
      status: 'passed',
      duration: 1,
      ...over,
    });

    it('flattens nested nodes, prefixes sub-flow nodes with their Ref node and merges loop iterations', () => {
      const flat = flattenNodes([
        node({
          id: 'login',
          type: 'ref',
          children: [node({ id: 'token', duration: 3, assertions: [] })],
        }),
        node({
          id: 'each',
          type: 'loop',
          duration: 10,
          iterationResults: [
            { index: 0, status: 'passed', nodes: [node({ id: 'get', duration: 2 })] },
            {
              index: 1,
              status: 'failed',
              nodes: [
                node({
                  id: 'get',
                  status: 'failed',
                  duration: 4,
                  assertions: [{ target: 'response.status', operator: 'equals', expected: 200, passed: false }],
                }),
              ],
            },
          ],
        }),
      ]);
      expect(flat.map((n) => n.id)).to.deep.equal(['login', 'login › token', 'each', 'get']);
      const get = flat.find((n) => n.id === 'get')!;
      expect(get).to.include({ status: 'failed', durationMs: 6 });
      expect(get.assertions).to.deep.equal([{ label: 'response.status equals', passed: false }]);
    });

    it('takes the commit from the trigger context or its metadata', () => {
      expect(commitOf({ commit: 'abc123' })).to.equal('abc123');
      expect(commitOf({ metadata: { sha: 'def456' } })).to.equal('def456');
      expect(commitOf({ branch: 'main' })).to.equal(null);
      expect(commitOf(null)).to.equal(null);
    });

    it('keeps the first failure, the definition hash and the run facts of a result', () => {
      const result: TestCaseResult = {
        testCaseId: 'tc_1',
        name: 'get user',
        status: 'failed',
        duration: 12.6,
        assertions: 2,
        passedAssertions: 1,
        failures: [
          { node: 'token', path: ['login', 'token'], message: 'login › token: expected 200, got 500' },
          { node: 'get', message: 'second' },
        ],
        nodes: [],
      };
      const started = new Date('2026-11-26T04:00:00Z');
      const row = historyRow(
        {
          id: 'run_a',
          workspaceId: 'ws_1',
          runnerName: 'smoke',
          environmentName: 'staging',
          deploymentId: null,
          trigger: 'webhook',
          context: { commit: 'abc' },
          startedAt: started,
          createdAt: new Date(0),
        },
        plan(),
        0,
        result,
      );
      expect(row).to.include({
        status: 'failed',
        durationMs: 13,
        failedNode: 'login › token',
        failure: 'login › token: expected 200, got 500',
        commitRef: 'abc',
        kind: 'functional',
        definitionHash: definitionHash(testCase),
      });
      expect(row.ranAt).to.equal(started);
    });
  });
});
