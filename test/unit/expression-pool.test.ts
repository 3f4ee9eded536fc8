/**
 * Heavy expressions run on worker threads with a time limit (src/expression-pool/pool.ts;
 * docs/security.md "In-workflow work"): the main thread keeps running while one evaluates, an evaluation past the limit is
 * stopped by terminating its thread, and the pool goes on answering.
 */
import { expect } from 'chai';
import { ExpressionPool, POOL_TIMEOUT_CODE } from '../../src/expression-pool/pool';

const runaway = '($f := function($n){ $f($n + 1) }; $f(0))';

describe('expression pool (src/expression-pool/pool)', function () {
  this.timeout(30_000);
  let pool: ExpressionPool;
  afterEach(async () => pool?.close());

  it('evaluates on a worker thread: values, and errors as data', async () => {
    pool = new ExpressionPool({ size: 1 });
    expect(await pool.evaluate('a.b + 1', { a: { b: 41 } })).to.deep.equal({ value: 42 });
    expect(await pool.evaluate('$match("xaay", /a+/).match', {})).to.deep.equal({ value: 'aa' });
    const bad = await pool.evaluate('$undefinedFn(1)', {});
    expect(bad.error?.code).to.equal('T1006');
  });

  it('stops an evaluation past its time limit while the main thread keeps running, then answers the next one', async () => {
    pool = new ExpressionPool({ size: 1, timeoutMs: 300 });
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    const result = await pool.evaluate(runaway, {});
    clearInterval(ticker);
    expect(result.error?.code).to.equal(POOL_TIMEOUT_CODE);
    expect(result.error?.message).to.contain('time limit');
    expect(ticks, 'the main thread ran timers while the expression was evaluated').to.be.greaterThan(0);
    expect(await pool.evaluate('1 + 1', {})).to.deep.equal({ value: 2 });
  });

  it('queues evaluations beyond its threads and answers them all', async () => {
    pool = new ExpressionPool({ size: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.evaluate('$ * 2', i)));
    expect(results).to.deep.equal([0, 2, 4, 6, 8, 10].map((value) => ({ value })));
  });
});
