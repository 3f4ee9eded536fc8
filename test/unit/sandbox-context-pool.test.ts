/**
 * The sandbox's pool of isolates and contexts (src/sandbox/context-pool.ts) on its own: one
 * context per run and test case with the runtime and built-ins ready, a run's next test case
 * releasing its earlier one, the oldest contexts released beyond `maxContexts`, idle ones swept,
 * broken ones discarded, spares kept warm, and nothing created after dispose.
 */
import { expect } from 'chai';
import { publicOnlyPolicy, type AddressPolicy } from '../../src/net/address-policy';
import { CodeCache } from '../../src/sandbox/code-cache';
import { ContextPool, type ContextPoolOptions } from '../../src/sandbox/context-pool';
import { HostBridge } from '../../src/sandbox/host-bridge';

describe('sandbox context pool', function () {
  this.timeout(60_000);
  let policy: AddressPolicy;
  const pools: ContextPool[] = [];
  const compiler = new CodeCache();

  before(() => {
    policy = publicOnlyPolicy();
  });
  after(async () => {
    for (const pool of pools) await pool.dispose();
    await policy?.close();
  });

  function pool(options: Partial<ContextPoolOptions> = {}): ContextPool {
    const host = new HostBridge({ policy, fetchTimeoutMs: 1000, maxFetchBytes: 1024 });
    const p = new ContextPool({
      memoryLimitMb: 32,
      maxContexts: 16,
      contextIdleMs: 60_000,
      spareIsolates: 0,
      compiler,
      host,
      ...options,
    });
    pools.push(p);
    return p;
  }
  const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Waits until `done()` holds (at most 5 s: the machine may be busy). */
  async function until(done: () => boolean): Promise<void> {
    for (const start = Date.now(); !done() && Date.now() - start < 5000;) await tick(10);
  }

  it("gives a run's test case one context, with the host bridge, the runtime and the built-ins ready", async () => {
    const p = pool();
    const ctx = await p.contextFor('r1', 'tc1');
    expect(await p.contextFor('r1', 'tc1')).to.equal(ctx);
    expect([ctx.runId, ctx.busy, ctx.released]).to.deep.equal(['r1', 0, false]);
    // The runtime takes the host bridge out of sight (`__assayHost`) and offers `fetch` over it.
    expect(
      await ctx.context.eval(
        '[typeof __assay.run, typeof __assayHost, typeof fetch, typeof _, typeof z, typeof luxon].join()',
      ),
    ).to.equal('function,undefined,function,function,object,object');
    expect([...ctx.loaded].map((f) => f.replace(/@.*/, ''))).to.deep.equal(['lodash', 'faker', 'zod', 'ky', 'luxon']);
    expect([p.activeRuns, p.activeContexts]).to.deep.equal([1, 1]);
  });

  it("a run's next test case releases its earlier idle context, not a busy one nor another run's", async () => {
    const p = pool();
    const first = await p.contextFor('r1', 'tc1');
    const other = await p.contextFor('r2', 'tc1');
    const second = await p.contextFor('r1', 'tc2');
    await tick();
    expect([first.released, first.isolate.isDisposed, other.released]).to.deep.equal([true, true, false]);
    second.busy = 1;
    const third = await p.contextFor('r1', 'tc3');
    await tick();
    expect([second.released, third.released]).to.deep.equal([false, false]);
    expect([p.activeRuns, p.activeContexts]).to.deep.equal([2, 3]);
    second.busy = 0;
    await p.releaseRun('r1');
    expect([second.released, third.released, other.released]).to.deep.equal([true, true, false]);
    expect([p.activeRuns, p.activeContexts]).to.deep.equal([1, 1]);
  });

  it("a library's realm is a second context of the test case (its own isolate), kept beside the ordinary one", async () => {
    const p = pool();
    const plain = await p.contextFor('r1', 'tc1');
    const postman = await p.contextFor('r1', 'tc1', 'postman');
    expect(postman).to.not.equal(plain);
    expect(postman.isolate).to.not.equal(plain.isolate);
    expect(await p.contextFor('r1', 'tc1', 'postman')).to.equal(postman);
    expect(await p.contextFor('r1', 'tc1')).to.equal(plain);
    await tick();
    expect([plain.released, postman.released]).to.deep.equal([false, false]);
    await p.contextFor('r1', 'tc2');
    await tick();
    expect([plain.released, postman.released]).to.deep.equal([true, true]);
  });

  it('releases the oldest contexts beyond maxContexts', async () => {
    const p = pool({ maxContexts: 2 });
    const [a, b] = [await p.contextFor('a', undefined), await p.contextFor('b', undefined)];
    const c = await p.contextFor('c', undefined);
    await tick();
    expect([a.released, b.released, c.released]).to.deep.equal([true, false, false]);
    expect(p.activeContexts).to.equal(2);
    expect(await p.contextFor('a', undefined)).to.not.equal(a);
    await tick();
    expect([b.released, c.released]).to.deep.equal([true, false]);
  });

  it('sweeps contexts idle for contextIdleMs, never a busy one', async () => {
    const p = pool({ contextIdleMs: 50 });
    const idle = await p.contextFor('idle', undefined);
    const busy = await p.contextFor('busy', undefined);
    busy.busy = 1;
    await until(() => idle.released);
    await tick(150); // three more sweeps
    expect([idle.released, busy.released]).to.deep.equal([true, false]);
    expect(p.activeContexts).to.equal(1);
    busy.busy = 0;
  });

  it('discards a broken context: forgotten and its isolate disposed; the next script gets a new one', async () => {
    const p = pool();
    const ctx = await p.contextFor('broken', 'tc1');
    p.discard(ctx);
    expect([ctx.released, ctx.isolate.isDisposed, p.activeContexts]).to.deep.equal([true, true, 0]);
    const fresh = await p.contextFor('broken', 'tc1');
    expect(fresh).to.not.equal(ctx);
    expect(await fresh.context.eval('typeof _')).to.equal('function');
  });

  it('keeps spare isolates warm and takes one for a new context; after dispose it creates none', async () => {
    const p = pool({ spareIsolates: 1 });
    await p.contextFor('warm', undefined);
    await tick();
    expect(p.spareCount).to.equal(1);
    await p.contextFor('warm-2', undefined);
    await tick();
    expect(p.spareCount).to.equal(1);
    await p.dispose();
    expect([p.spareCount, p.activeContexts]).to.deep.equal([0, 0]);
    const err = await p.contextFor('late', undefined).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).to.equal('the sandbox is shut down');
  });
});
