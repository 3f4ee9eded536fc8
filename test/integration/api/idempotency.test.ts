/**
 * `Idempotency-Key` on every call that starts a run (api/idempotency.ts; docs/api.md "Retrying a
 * start safely"): the same key and request answer the first run, never a second one; a key reused
 * for another request is refused; a malformed key is refused; concurrent calls with one key make
 * one run.
 */
import { expect } from 'chai';
import { Run } from '../../../src/store/entities';
import { startTestApp, type TestApp } from '../../helpers/app';

describe('Idempotency-Key on run starts', function () {
  this.timeout(60_000);
  let app: TestApp;
  let deployment: { id: string; webhookUrl: string; webhookToken: string };
  const runs = () => app.dataSource.getRepository(Run).count();

  before(async () => {
    app = await startTestApp({ worker: true });
    await app.request('POST', '/v1/environments', { name: 'e', variables: {} });
    await app.request('POST', '/v1/test-cases', {
      name: 'noop',
      folder: 'i',
      flow: [{ type: 'script', script: { code: '$log("ok")' } }],
    });
    await app.request('POST', '/v1/runners', { name: 'i', folder: 'i' });
    deployment = (
      await app.request('POST', '/v1/deployments', { name: 'd', runner: 'i', environment: 'e', webhookEnabled: true })
    ).body;
  });
  after(async () => app?.stop());

  it('POST /v1/runs: the same key and body answer the same run (201, Idempotent-Replayed), never a second run', async () => {
    const headers = { 'idempotency-key': 'build-4711' };
    const first = await app.request(
      'POST',
      '/v1/runs',
      { runner: 'i', environment: 'e', variables: { a: 1, b: 2 } },
      { headers },
    );
    expect(first.status).to.equal(201);
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    const count = await runs();
    // Same body with keys in another order: the same request.
    const again = await app.request(
      'POST',
      '/v1/runs',
      { environment: 'e', variables: { b: 2, a: 1 }, runner: 'i' },
      { headers: { 'idempotency-key': '"build-4711"' } },
    );
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body.runId).to.equal(first.body.runId);
    expect(again.headers.get('location')).to.equal(`/v1/runs/${first.body.runId}`);
    expect(await runs()).to.equal(count);
  });

  it('refuses the same key for another request with 422 naming the run, and starts nothing', async () => {
    const first = await app.request(
      'POST',
      '/v1/runs',
      { runner: 'i', environment: 'e' },
      { headers: { 'idempotency-key': 'k-other' } },
    );
    const count = await runs();
    const other = await app.request(
      'POST',
      '/v1/runs',
      { runner: 'i', environment: 'e', timeout: 60 },
      { headers: { 'idempotency-key': 'k-other' } },
    );
    expect(other.status).to.equal(422);
    expect(other.body).to.include({ code: 'idempotency-key-reused', runId: first.body.runId });
    // The same key on another endpoint is another request too.
    const runNow = await app.request('POST', `/v1/deployments/${deployment.id}/runs`, undefined, {
      headers: { 'idempotency-key': 'k-other' },
    });
    expect(runNow.status).to.equal(422);
    expect(await runs()).to.equal(count);
  });

  it('refuses a malformed key with 400 invalid-header naming the header', async () => {
    for (const bad of ['x'.repeat(256), 'has space', '""']) {
      const res = await app.request(
        'POST',
        '/v1/runs',
        { runner: 'i', environment: 'e' },
        { headers: { 'idempotency-key': bad } },
      );
      expect(res.status, bad).to.equal(400);
      expect(res.body.code).to.equal('invalid-header');
      expect(res.body.errors[0].field).to.equal('Idempotency-Key');
    }
  });

  it('makes one run of concurrent calls with one key', async () => {
    const count = await runs();
    const replies = await Promise.all(
      Array.from({ length: 8 }, () =>
        app.request('POST', '/v1/runs', { runner: 'i', environment: 'e' }, { headers: { 'idempotency-key': 'race' } }),
      ),
    );
    expect(replies.map((r) => r.status)).to.deep.equal(Array(8).fill(201));
    expect(new Set(replies.map((r) => r.body.runId)).size).to.equal(1);
    expect(await runs()).to.equal(count + 1);
  });

  it('keys are per workspace: another workspace may use the same key', async () => {
    const otherKey = await app.issueKey('write', 'other');
    await app.request('POST', '/v1/environments', { name: 'e', variables: {} }, { key: otherKey });
    await app.request(
      'POST',
      '/v1/test-cases',
      { name: 'noop', folder: 'i', flow: [{ type: 'script', script: { code: '$log("ok")' } }] },
      { key: otherKey },
    );
    await app.request('POST', '/v1/runners', { name: 'i', folder: 'i' }, { key: otherKey });
    const mine = await app.request(
      'POST',
      '/v1/runs',
      { runner: 'i', environment: 'e' },
      { headers: { 'idempotency-key': 'shared' } },
    );
    const theirs = await app.request(
      'POST',
      '/v1/runs',
      { runner: 'i', environment: 'e' },
      { key: otherKey, headers: { 'idempotency-key': 'shared' } },
    );
    expect(theirs.status).to.equal(201);
    expect(theirs.body.runId).to.not.equal(mine.body.runId);
  });

  it('run-now and incoming webhooks replay too', async () => {
    const a = await app.request('POST', `/v1/deployments/${deployment.id}/runs`, undefined, {
      headers: { 'idempotency-key': 'now-1' },
    });
    const b = await app.request('POST', `/v1/deployments/${deployment.id}/runs`, undefined, {
      headers: { 'idempotency-key': 'now-1' },
    });
    expect([a.status, b.status]).to.deep.equal([201, 201]);
    expect(b.body.runId).to.equal(a.body.runId);
    expect(b.headers.get('idempotent-replayed')).to.equal('true');

    const hook = (body: unknown) =>
      fetch(deployment.webhookUrl.replace(app.config.api.publicUrl, app.url), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${deployment.webhookToken}`,
          'content-type': 'application/json',
          'idempotency-key': 'ci-pipeline-88',
        },
        body: JSON.stringify(body),
      }).then(async (res) => ({
        status: res.status,
        replayed: res.headers.get('idempotent-replayed'),
        body: (await res.json()) as { runId: string; code?: string },
      }));
    const w1 = await hook({ commit: 'abc' });
    const w2 = await hook({ commit: 'abc' });
    expect([w1.status, w2.status]).to.deep.equal([200, 200]);
    expect(w2.body.runId).to.equal(w1.body.runId);
    expect(w2.replayed).to.equal('true');
    const w3 = await hook({ commit: 'def' });
    expect(w3.status).to.equal(422);
    expect(w3.body.code).to.equal('idempotency-key-reused');
  });

  it('lets a key be used again after 24 h, for a new run', async () => {
    const first = await app.request(
      'POST',
      '/v1/runs',
      { runner: 'i', environment: 'e' },
      { headers: { 'idempotency-key': 'daily' } },
    );
    await app.dataSource
      .getRepository(Run)
      .update({ id: first.body.runId }, { createdAt: new Date(Date.now() - 25 * 3600_000) });
    const next = await app.request(
      'POST',
      '/v1/runs',
      { runner: 'i', environment: 'e', timeout: 99 },
      { headers: { 'idempotency-key': 'daily' } },
    );
    expect(next.status).to.equal(201);
    expect(next.body.runId).to.not.equal(first.body.runId);
    expect((await app.dataSource.getRepository(Run).findOneBy({ id: first.body.runId }))!.idempotencyKey).to.equal(
      null,
    );
  });
});
