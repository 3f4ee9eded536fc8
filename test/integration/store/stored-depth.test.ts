/**
 * What a run stores fits the store: a response nested deeper than MariaDB's JSON columns accept
 * (32 levels) is recorded with its deep part cut, and the run completes (before, the result write
 * was refused at every attempt and the run never ended). A write the database refuses for good
 * gives up after a bounded number of attempts instead of retrying until the deadline.
 */
import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createRunActivities, STORE_ATTEMPTS_FOR_NON_OUTAGE_ERRORS } from '../../../activities/runs';
import { isDatabaseRefusal, isDatabaseUnavailable } from '../../../src/store/errors';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';

function depth(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
  return 1 + children.reduce<number>((m, c) => Math.max(m, depth(c)), 0);
}

describe('results nested deeper than the store accepts', function () {
  this.timeout(60_000);
  let app: TestApp;
  let target: Target;

  before(async () => {
    [app, target] = await Promise.all([startTestApp({ worker: true }), startTarget()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
  });
  after(async () => {
    await target?.close();
    await app?.stop();
  });

  it('records a 40-deep response with its deep part cut, and the run completes', async () => {
    await app.request('POST', '/v1/test-cases', {
      name: 'deep',
      folder: 'deep',
      flow: [
        {
          id: 'n1',
          type: 'api',
          request: { method: 'GET', url: '{{base}}/deep?levels=40' },
          assertions: [{ target: 'response.body.d.d.d', operator: 'exists' }],
        },
      ],
    });
    await app.request('POST', '/v1/runners', { name: 'deep', folder: 'deep' });
    const { runId } = (await app.request('POST', '/v1/runs', { runner: 'deep', environment: 'local' })).body;
    const run = await waitForRun(app, runId, 45_000);
    expect(run).to.include({ status: 'completed', result: 'passed' });
    const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
    const detail = results.details.testCases[0];
    expect(depth(detail)).to.be.at.most(30);
    expect(JSON.stringify(detail)).to.include('…(cut: nested deeper than 30 levels)');
  });

  it('gives a write the database refuses up after a bounded number of attempts; an outage error is retried', async () => {
    const activities = createRunActivities(app.dataSource, app.config);
    // A name longer than its column: MariaDB (strict mode) refuses the row, whatever the attempt.
    const input = {
      runId: 'run_refused',
      progress: { completed: 1, total: 1 },
      position: 0,
      result: {
        testCaseId: 'tc_x',
        name: 'n'.repeat(5000),
        status: 'passed' as const,
        duration: 1,
        assertions: 0,
        passedAssertions: 0,
        failures: [],
        nodes: [],
      },
    };
    const early = await new MockActivityEnvironment({ attempt: 1 })
      .run(activities.recordTestCaseResult, input)
      .catch((e: unknown) => e);
    expect(early).to.not.be.instanceOf(ApplicationFailure);
    expect(isDatabaseRefusal(early)).to.equal(true);
    const last = await new MockActivityEnvironment({ attempt: STORE_ATTEMPTS_FOR_NON_OUTAGE_ERRORS })
      .run(activities.recordTestCaseResult, input)
      .catch((e: unknown) => e);
    expect(last).to.be.instanceOf(ApplicationFailure);
    expect(last).to.include({ type: 'StoreRefused', nonRetryable: true });

    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).to.equal(
      true,
    );
    expect(isDatabaseRefusal({ code: 'ECONNREFUSED' })).to.equal(false);
    expect(isDatabaseRefusal(new Error('something unknown'))).to.equal(false);
  });
});
