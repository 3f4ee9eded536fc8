/**
 * Node execution records (src/store/node-executions.ts; docs/durability.md "What a crash repeats"),
 * on MySQL/MariaDB and SQLite: an execution runs once and its outcome answers every repeat; one
 * under way in this process is joined; one under way in a live process is waited for; one whose
 * owner is gone is taken over; a cancelled or failed one leaves nothing; a store that does not
 * answer lets it run without a record; and the rows go when the run moves on or ends.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { freshDatabase } from '../../helpers/harness';
import { migrate, openDataSource } from '../../../src/store/data-source';
import { NodeExecution } from '../../../src/store/entities';
import {
  CLAIM_LEASE_MS,
  deleteRecordsBefore,
  deleteRunRecords,
  NodeExecutionRecords,
  ownerAlive,
  processOwner,
  recordKey,
  STRAY_RECORD_MS,
  sweepStrayRecords,
  type RecordedOutcome,
} from '../../../src/store/node-executions';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const dialect of ['mysql', 'sqlite'] as const) {
  describe(`node execution records (${dialect})`, function () {
    this.timeout(30_000);
    let ds: DataSource;
    let drop: () => Promise<void>;
    let n = 0;
    const target = (run = 'run_a', position = 0) => ({
      execution: `${run}/${position}/node${++n}`,
      runId: run,
      position,
    });
    /** Records standing for one worker process: `owner` its identity (default: this process's). */
    const records = (owner?: { id: string; machine: string }) => {
      const outcomes: RecordedOutcome[] = [];
      const r = new NodeExecutionRecords(ds, { onOutcome: (o) => outcomes.push(o), ...(owner ? { owner } : {}) });
      return Object.assign(r, { outcomes });
    };
    /** Another process of this machine (its claims judged by their lease). */
    const sibling = () => ({
      id: `${os.hostname()}|${processOwner().machine}|1|0|sibling`,
      machine: processOwner().machine,
    });

    before(async () => {
      const db = await freshDatabase(dialect);
      drop = db.drop;
      ds = await openDataSource(db.database);
      await migrate(ds);
    });
    after(async () => {
      await ds?.destroy();
      await drop?.();
    });

    it('runs an execution once; its outcome answers a repeat in another process, nothing run again', async () => {
      const t = target();
      const first = records();
      let runs = 0;
      const execute = async () => ({ status: 200, n: ++runs });
      expect(await first.run(t, execute)).to.deep.equal({ status: 200, n: 1 });
      const again = records(sibling());
      expect(await again.run(t, execute)).to.deep.equal({ status: 200, n: 1 });
      expect(runs).to.equal(1);
      expect([first.outcomes, again.outcomes]).to.deep.equal([['sent'], ['recorded']]);
      const row = await ds.getRepository(NodeExecution).findOneByOrFail({ id: recordKey(t.execution) });
      expect(row).to.include({ runId: 'run_a', position: 0, execution: t.execution });
    });

    it('joins an execution this process is running already (a workflow task run again beside its first run)', async () => {
      const t = target();
      const r = records();
      let runs = 0;
      const execute = async () => {
        runs += 1;
        await wait(150);
        return { ok: true };
      };
      const [a, b] = await Promise.all([r.run(t, execute), r.run(t, execute)]);
      expect([a, b, runs]).to.deep.equal([{ ok: true }, { ok: true }, 1]);
      expect([...r.outcomes].sort()).to.deep.equal(['joined', 'sent']);
    });

    it('waits for a live owner under way elsewhere, and takes its outcome', async () => {
      const t = target();
      const owner = records(); // this process: alive
      const other = records(sibling());
      let runs = 0;
      const slow = owner.run(t, async () => {
        runs += 1;
        await wait(400);
        return { by: 'owner' };
      });
      await wait(50);
      const joined = await other.run(t, async () => {
        runs += 1;
        return { by: 'other' };
      });
      expect([await slow, joined, runs]).to.deep.equal([{ by: 'owner' }, { by: 'owner' }, 1]);
      expect(other.outcomes).to.deep.equal(['joined']);
    });

    it('takes over a claim whose owner is gone: a process that no longer exists, or whose lease ran out elsewhere', async () => {
      const repo = ds.getRepository(NodeExecution);
      const claims = [
        `${os.hostname()}|${processOwner().machine}|99999999|1|gone`, // this machine, no such process
        `${os.hostname()}|${processOwner().machine}|${process.pid}|1|reused`, // this pid, another start time
        `elsewhere|other-machine|42|7|dead`, // another machine, lease over
      ];
      for (const owner of claims) {
        const t = target();
        await repo.insert({
          id: recordKey(t.execution),
          runId: t.runId,
          position: 0,
          execution: t.execution,
          owner,
          leaseUntilMs: Date.now() - 1,
          outcome: null as never,
        });
        const r = records();
        expect(await r.run(t, async () => 'again')).to.equal('again');
        expect(r.outcomes).to.deep.equal(['taken-over']);
      }
      // Another machine whose lease holds: waited for, until the caller gives up.
      const t = target();
      await repo.insert({
        id: recordKey(t.execution),
        runId: t.runId,
        position: 0,
        execution: t.execution,
        owner: 'elsewhere|other-machine|42|7|alive',
        leaseUntilMs: Date.now() + CLAIM_LEASE_MS,
        outcome: null as never,
      });
      const stop = new AbortController();
      setTimeout(() => stop.abort(new Error('cancelled')), 300);
      let error: unknown;
      await records()
        .run(t, async () => 'must not run', { signal: stop.signal })
        .catch((err: unknown) => (error = err));
      expect((error as Error).message).to.equal('cancelled');
    });

    it('keeps no outcome of a cancelled or failed execution: its repeat runs again', async () => {
      const t = target();
      const r = records();
      expect(await r.run(t, async () => 'cut short', { keep: () => false })).to.equal('cut short');
      let error: unknown;
      await r
        .run(t, async () => {
          throw new Error('boom');
        })
        .catch((err: unknown) => (error = err));
      expect((error as Error).message).to.equal('boom');
      expect(await ds.getRepository(NodeExecution).countBy({ id: recordKey(t.execution) })).to.equal(0);
      expect(await r.run(t, async () => 'done')).to.equal('done');
      expect(r.outcomes).to.deep.equal(['sent']);
    });

    it('runs without a record when the store does not answer', async () => {
      const t = target();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-records-'));
      const closed = await openDataSource({ type: 'sqlite', file: path.join(dir, 'gone.db') });
      await closed.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
      const errors: string[] = [];
      const outcomes: RecordedOutcome[] = [];
      const r = new NodeExecutionRecords(closed, {
        onOutcome: (o) => outcomes.push(o),
        onStoreError: (_err, _execution, during) => errors.push(during),
      });
      expect(await r.run(t, async () => 'sent anyway')).to.equal('sent anyway');
      expect([outcomes, errors]).to.deep.equal([['unrecorded'], ['claim']]);
    });

    it("deletes a run's records before a position, all of them when it ends, and strays after a day", async () => {
      const r = records();
      for (const position of [0, 1, 2]) await r.run(target('run_clean', position), async () => position);
      await r.run(target('run_other', 0), async () => 'other');
      expect(await deleteRecordsBefore(ds.manager, 'run_clean', 2)).to.equal(2);
      const left = await ds.getRepository(NodeExecution).findBy({ runId: 'run_clean' });
      expect(left.map((x) => x.position)).to.deep.equal([2]);
      expect(await deleteRunRecords(ds.manager, 'run_clean')).to.equal(1);
      expect(await sweepStrayRecords(ds.manager, Date.now())).to.equal(0);
      expect(await sweepStrayRecords(ds.manager, Date.now() + STRAY_RECORD_MS + CLAIM_LEASE_MS + 1000)).to.be.at.least(
        1,
      );
      expect(await ds.getRepository(NodeExecution).countBy({ runId: 'run_other' })).to.equal(0);
    });
  });
}

describe('whether a claim’s owner may still be running', () => {
  it('on this machine: the process exists with its start time and renewed in time; elsewhere: the lease', () => {
    const me = processOwner();
    const now = Date.now();
    expect(ownerAlive(me.id, now + 1000, now)).to.equal(true);
    expect(ownerAlive(me.id, now - 1, now), 'running, lease not renewed: blocked, counted gone').to.equal(false);
    const [host, machine, pid] = me.id.split('|');
    expect(ownerAlive(`${host}|${machine}|${pid}|1|x`, now + 1000, now), 'pid reused').to.equal(false);
    expect(ownerAlive(`${host}|${machine}|99999999|1|x`, now + 1000, now), 'no such process').to.equal(false);
    expect(ownerAlive('h|elsewhere|1|1|x', now + 1000, now)).to.equal(true);
    expect(ownerAlive('h|elsewhere|1|1|x', now - 1, now)).to.equal(false);
  });
});
