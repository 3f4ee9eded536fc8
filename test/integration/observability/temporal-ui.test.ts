/**
 * The Temporal Web UI reads like the run (docs/spec-choices.md "The Temporal Web UI view of a run"): while a run is under way its current
 * details (the `__temporal_workflow_metadata` query the UI calls) name the test case under way and
 * its latest steps with their outcomes (`… GET …/users/1 → 200 · 4 ms`, `IF … → then`), and each
 * node's durable step carries a summary naming the node and its request, after the decisions that
 * led to it (`IF … → then ▸ slow one (n3): GET …`), decoded with the run's codec as the UI does
 * through the codec server.
 */
import { expect } from 'chai';
import type { Payload } from '@temporalio/common';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';
import { temporalClient, testDataConverter } from '../../helpers/temporal';

async function decodeText(payload: Payload | null | undefined): Promise<string | undefined> {
  if (!payload) return undefined;
  const [plain] = await testDataConverter().payloadCodecs![0]!.decode([payload]);
  return JSON.parse(Buffer.from(plain!.data!).toString('utf8')) as string;
}

describe('the Temporal Web UI view of a run', function () {
  this.timeout(120_000);
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

  it('shows the test case under way with its latest steps, and summaries that read like the flow', async () => {
    const flow = [
      {
        id: 'n1',
        name: 'get user',
        type: 'api',
        request: { method: 'GET', url: '{{base}}/users/1' },
        assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
      },
      {
        id: 'n2',
        type: 'if',
        condition: 'nodes.n1.response.status = 200',
        then: [{ id: 'n3', name: 'slow one', type: 'api', request: { method: 'GET', url: '{{base}}/slow?ms=2500' } }],
        else: [{ id: 'n4', type: 'api', request: { method: 'GET', url: '{{base}}/users/9' } }],
      },
    ];
    const tc = await app.request('POST', '/v1/test-cases', { name: 'ui case', folder: 'ui', flow });
    expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
    await app.request('POST', '/v1/runners', { name: 'ui', folder: 'ui' });
    const started = await app.request('POST', '/v1/runs', { runner: 'ui', environment: 'local' });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const handle = (await temporalClient()).workflow.getHandle(`run-${started.body.runId}`);

    // While n3 waits on the slow endpoint: the details show n1's outcome and the branch taken.
    const details = await eventually(
      async () => {
        const meta = await handle
          .query<{ currentDetails?: string }>('__temporal_workflow_metadata')
          .catch(() => undefined);
        return meta?.currentDetails?.includes('IF nodes.n1.response.status = 200 → then')
          ? meta.currentDetails
          : undefined;
      },
      20_000,
      100,
    );
    expect(details).to.include('**ui** on **local**: running');
    expect(details).to.include('Under way: **ui case** (test case 1 of 1)');
    expect(details).to.match(/- get user \(n1\): GET http:\/\/127\.0\.0\.1:\d+\/users\/1 → 200 · \d+ ms/);

    const run = await waitForRun(app, started.body.runId);
    expect(run.result).to.equal('passed');

    const history = await handle.fetchHistory();
    const summaries: string[] = [];
    for (const event of history.events ?? []) {
      const text = await decodeText(event.userMetadata?.summary);
      if (text) summaries.push(text);
    }
    expect(
      summaries.some((s) => /^get user \(n1\): GET http:\/\/127\.0\.0\.1:\d+\/users\/1$/.test(s)),
      summaries.join('\n'),
    ).to.equal(true);
    expect(
      summaries.some((s) =>
        /^IF nodes\.n1\.response\.status = 200 → then ▸ slow one \(n3\): GET http:\/\/127\.0\.0\.1:\d+\/slow\?ms=2500$/.test(
          s,
        ),
      ),
      summaries.join('\n'),
    ).to.equal(true);
    // The finished run's details drop the test case under way.
    const meta = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).to.include('**ui** on **local**: completed');
    expect(meta.currentDetails).not.to.include('Under way');
  });
});
