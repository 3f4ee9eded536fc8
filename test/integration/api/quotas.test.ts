/**
 * Per-workspace quotas (docs/security.md "Quotas") on a dedicated app with small limits: concurrent runs
 * and runs per minute answer 429 `quota-exceeded` with `Retry-After` (replayed Idempotency-Keys
 * never count), and a flow whose nested loops expect more iterations than allowed is refused when
 * saved with 422 `loop-iterations-exceeded` naming the node and the figure, and a run whose test
 * cases together expect too many is refused at start.
 *
 * No worker runs: runs stay `queued`, so they hold their place in the concurrency quota until the
 * test ends them in the store.
 */
import { expect } from 'chai';
import { In } from 'typeorm';
import { Run } from '../../../src/store/entities';
import { startTestApp, type TestApp } from '../../helpers/app';

describe('per-workspace quotas', function () {
  this.timeout(60_000);
  let app: TestApp;

  before(async () => {
    app = await startTestApp({
      env: {
        ASSAY_QUOTA_CONCURRENT_RUNS: '2',
        ASSAY_QUOTA_RUNS_PER_MINUTE: '4',
        ASSAY_QUOTA_LOOP_ITERATIONS: '1000',
        ASSAY_MAX_LOOP_ITERATIONS: '1000',
      },
    });
  });
  after(async () => {
    await app?.stop();
  });

  /** A workspace with an environment and a runner; returns its key. */
  async function workspace(name: string): Promise<string> {
    const key = await app.issueKey('write', name);
    expect((await app.request('POST', '/v1/environments', { name: 'local', variables: {} }, { key })).status).to.equal(
      201,
    );
    expect(
      (
        await app.request(
          'POST',
          '/v1/test-cases',
          { name: 'noop', folder: 'q', flow: [{ type: 'wait', ms: 1 }] },
          { key },
        )
      ).status,
    ).to.equal(201);
    expect((await app.request('POST', '/v1/runners', { name: 'q', folder: 'q' }, { key })).status).to.equal(201);
    return key;
  }
  const start = (key: string, idempotencyKey?: string) =>
    app.request(
      'POST',
      '/v1/runs',
      { runner: 'q', environment: 'local' },
      { key, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} },
    );
  /** Ends runs in the store, as their workflows would. */
  const end = (ids: string[]) =>
    app.dataSource
      .getRepository(Run)
      .update({ id: In(ids) }, { status: 'failed', error: 'ended by the test', completedAt: new Date() });

  it('refuses a run over the concurrent-runs quota with 429 and Retry-After, per workspace; replays do not count', async () => {
    const a = await workspace('quota-a');
    const first = await start(a, 'key-1');
    const second = await start(a);
    expect([first.status, second.status]).to.deep.equal([201, 201]);

    const third = await start(a);
    expect(third.status, JSON.stringify(third.body)).to.equal(429);
    expect(third.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(third.headers.get('retry-after')).to.equal('10');
    expect(third.body).to.deep.include({ code: 'quota-exceeded', quota: 'concurrent-runs', limit: 2, current: 2 });
    expect(third.body.detail).to.match(/ASSAY_QUOTA_CONCURRENT_RUNS/);
    // Nothing was stored for the refused call.
    expect(await app.dataSource.getRepository(Run).count()).to.equal(2);

    // The same key again is the first run, not a new one: answered even while the quota is full.
    const replay = await start(a, 'key-1');
    expect(replay.status).to.equal(201);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body.runId).to.equal(first.body.runId);

    // Another workspace is not held back by this one.
    const b = await workspace('quota-b');
    expect((await start(b)).status).to.equal(201);

    // A run that ends frees its place.
    await end([first.body.runId]);
    expect((await start(a)).status).to.equal(201);
  });

  it('refuses a run over the runs-per-minute quota with 429 and the seconds until a place frees up', async () => {
    const c = await workspace('quota-c');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await start(c, `c-${i}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      ids.push(res.body.runId);
      await end([res.body.runId]);
    }
    const fifth = await start(c);
    expect(fifth.status, JSON.stringify(fifth.body)).to.equal(429);
    expect(fifth.body).to.deep.include({ code: 'quota-exceeded', quota: 'runs-per-minute', limit: 4, current: 4 });
    const retryAfter = Number(fifth.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 60);
    expect(fifth.body.retryAfter).to.equal(retryAfter);
    // Replays of runs started within the minute still answer.
    const replay = await start(c, 'c-0');
    expect(replay.status).to.equal(201);
    expect(replay.body.runId).to.equal(ids[0]);
  });

  it('refuses nested loops expecting more iterations than allowed, naming the node and the figure', async () => {
    const loop = (id: string, count: number, body: unknown[]) => ({ type: 'loop', id, count, body });
    const cube = [
      loop('outer', 1000, [loop('middle', 1000, [loop('inner', 1000, [{ type: 'context', set: { x: '1' } }])])]),
    ];
    const res = await app.request('POST', '/v1/test-cases', { name: 'cube', flow: cube });
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body).to.deep.include({
      code: 'loop-iterations-exceeded',
      node: 'inner',
      limit: 1000,
      expectedIterations: 1000 + 1_000_000 + 1_000_000_000,
    });
    expect(res.body.errors).to.have.length(1);
    expect(res.body.errors[0]).to.deep.include({ field: 'flow[0].body[0].body[0]', pointer: '#/flow/0/body/0/body/0' });
    expect(res.body.errors[0].detail).to.match(
      /loop node "inner" may run 1,000 × 1,000 × 1,000 = 1,000,000,000 iterations/,
    );

    // At the limit: 10 + 10 × 99 = 1000 is accepted; 10 + 10 × 100 is not.
    expect(
      (await app.request('POST', '/v1/test-cases', { name: 'fits', flow: [loop('o', 10, [loop('i', 99, [])])] }))
        .status,
    ).to.equal(201);
    expect(
      (await app.request('POST', '/v1/test-cases', { name: 'over', flow: [loop('o', 10, [loop('i', 100, [])])] }))
        .status,
    ).to.equal(422);

    // An unknown count (while) counts as its maxIterations, else ASSAY_MAX_LOOP_ITERATIONS.
    const whileLoop = (id: string, body: unknown[], maxIterations?: number) => ({
      type: 'loop',
      id,
      while: 'true',
      ...(maxIterations ? { maxIterations } : {}),
      body,
    });
    expect(
      (await app.request('POST', '/v1/test-cases', { name: 'while', flow: [loop('o', 2, [whileLoop('w', [])])] }))
        .status,
    ).to.equal(422);
    expect(
      (
        await app.request('POST', '/v1/test-cases', {
          name: 'while capped',
          flow: [loop('o', 2, [whileLoop('w', [], 400)])],
        })
      ).status,
    ).to.equal(201);

    // An Iteration over a data set counts its rows; a PATCH is checked too.
    const rows = Array.from({ length: 300 }, (_, i) => ({ i }));
    const created = await app.request('POST', '/v1/test-cases', {
      name: 'rows',
      flow: [{ type: 'iteration', id: 'each', dataSet: 'rows', body: [] }],
      dataSets: [{ name: 'rows', type: 'json', data: rows }],
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const patched = await app.request('PATCH', `/v1/test-cases/${created.body.id}`, {
      flow: [loop('o', 4, [{ type: 'iteration', id: 'each', dataSet: 'rows', body: [] }])],
    });
    expect(patched.status, JSON.stringify(patched.body)).to.equal(422);
    expect(patched.body.node).to.equal('each');
    expect(patched.body.expectedIterations).to.equal(4 + 1200);
  });

  it('refuses to start a run whose test cases together expect more iterations than allowed, storing nothing', async () => {
    const d = await workspace('quota-d');
    for (const [name, count] of [
      ['six hundred', 600],
      ['five hundred', 500],
    ] as const) {
      const res = await app.request(
        'POST',
        '/v1/test-cases',
        { name, folder: 'loops', flow: [{ type: 'loop', id: 'l', count, body: [] }] },
        { key: d },
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    expect((await app.request('POST', '/v1/runners', { name: 'loops', folder: 'loops' }, { key: d })).status).to.equal(
      201,
    );
    const before = await app.dataSource.getRepository(Run).count();
    const res = await app.request('POST', '/v1/runs', { runner: 'loops', environment: 'local' }, { key: d });
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body).to.deep.include({
      code: 'loop-iterations-exceeded',
      runner: 'loops',
      testCase: 'six hundred',
      node: 'l',
      expectedIterations: 1100,
      limit: 1000,
    });
    expect(res.body.detail).to.match(/expects 1,100 loop iterations per run across its test cases; at most 1,000/);
    expect(await app.dataSource.getRepository(Run).count()).to.equal(before);
  });
});
