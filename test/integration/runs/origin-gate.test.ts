/**
 * Per-origin limits of a run (src/net/origin-gate.ts; docs/parallel.md "Protecting the target"),
 * on MySQL/MariaDB and SQLite, with two gates over two data sources of the same database standing
 * for two worker processes: a loopback target never sees more than `maxInFlight` of the run's
 * requests at once, nor more than `requestsPerSecond` starting in any second; a lease whose holder
 * died is taken over; a wait that is aborted or reaches the deadline fails clearly and leaves no
 * row; and the API node activity holds its requests to the input's `originLimits`.
 */
import { expect } from 'chai';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { DataSource } from 'typeorm';
import { freshDatabase } from '../../helpers/harness';
import { migrate, openDataSource, createDataSource } from '../../../src/store/data-source';
import { RunOriginPace, RunOriginSlot } from '../../../src/store/entities';
import {
  discardRunGate,
  LEASE_MARGIN_MS,
  ORIGIN_LIMIT_TIMEOUT,
  OriginGate,
  OriginLimitTimeout,
  type Release,
} from '../../../src/net/origin-gate';
import { processOwner } from '../../../src/store/node-executions';
import { AddressPolicy } from '../../../src/net/address-policy';
import { Sandbox } from '../../../src/sandbox/sandbox';
import { createNodeActivities } from '../../../activities/nodes';
import type { ApiNodeInput } from '../../../src/domain/node-io';
import type { DatabaseConfig } from '../../../src/config';

/** A loopback server that answers after `?ms=` (default 30), or redirects to `?to=`, and counts what it sees. */
interface CountingTarget {
  url: string;
  origin: string;
  total: number;
  maxInFlight: number;
  /** Arrival time (epoch ms) of every request. */
  starts: number[];
  reset(): void;
  close(): Promise<void>;
}

async function countingTarget(): Promise<CountingTarget> {
  let inFlight = 0;
  const target = {
    total: 0,
    maxInFlight: 0,
    starts: [] as number[],
  };
  const server = http.createServer((req, res) => {
    target.total += 1;
    target.starts.push(Date.now());
    inFlight += 1;
    target.maxInFlight = Math.max(target.maxInFlight, inFlight);
    const query = new URL(req.url ?? '/', 'http://x').searchParams;
    const ms = Number(query.get('ms') ?? 30);
    setTimeout(() => {
      inFlight -= 1;
      const to = query.get('to');
      if (to) res.writeHead(302, { location: to }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    }, ms);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(target, {
    url: `http://127.0.0.1:${port}`,
    origin: `http://127.0.0.1:${port}`,
    reset() {
      target.total = 0;
      target.maxInFlight = 0;
      target.starts = [];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** Most arrivals within any window of `windowMs` (each window starting at an arrival). */
function mostWithin(starts: number[], windowMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j]! < sorted[i]! - windowMs + 1) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

let runs = 0;
const newRun = () => `run_gate_${process.pid}_${++runs}`;

for (const dialect of ['mysql', 'sqlite'] as const) {
  describe(`origin gate (${dialect === 'mysql' ? 'MySQL/MariaDB' : 'SQLite'})`, function () {
    this.timeout(30_000);
    let database: DatabaseConfig;
    let drop: () => Promise<void>;
    /** Two data sources of one database: two worker processes. */
    let one: DataSource;
    let two: DataSource;
    let gates: [OriginGate, OriginGate];
    let target: CountingTarget;

    before(async () => {
      const db = await freshDatabase(dialect);
      database = db.database;
      drop = db.drop;
      one = await openDataSource(database);
      await migrate(one);
      two = await openDataSource(database);
      gates = [new OriginGate(one), new OriginGate(two)];
      target = await countingTarget();
    });
    after(async () => {
      await target?.close();
      await one?.destroy();
      await two?.destroy();
      await drop?.();
    });
    beforeEach(() => target.reset());

    const rowsOf = async (runId: string) =>
      (await one.getRepository(RunOriginSlot).countBy({ runId })) +
      (await one.getRepository(RunOriginPace).countBy({ runId }));

    /** Through gate `i % 2`: acquire, send to the target, read the answer, release. */
    const gatedGet = async (i: number, runId: string, limits: { maxInFlight?: number; requestsPerSecond?: number }) => {
      const release = await gates[i % 2]!.acquire({
        runId,
        origin: target.origin,
        limits,
        deadlineMs: Date.now() + 25_000,
        leaseMs: 10_000,
      });
      try {
        const res = await request(`${target.url}/?ms=30`);
        await res.body.text();
        return res.statusCode;
      } finally {
        await release();
      }
    };

    it('(a) two workers, 40 concurrent requests, maxInFlight 3: never more than 3 at the target, all 40 served', async () => {
      const runId = newRun();
      const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => gatedGet(i, runId, { maxInFlight: 3 })));
      expect(statuses.filter((s) => s === 200)).to.have.length(40);
      expect(target.total).to.equal(40);
      expect(target.maxInFlight).to.be.at.most(3);
      expect(target.maxInFlight).to.be.at.least(1);
      expect(await rowsOf(runId)).to.equal(0);
    });

    it('(b) two workers, requestsPerSecond 20: 30 requests take at least 1.4 s, never over 21 starting in a second', async () => {
      const runId = newRun();
      const started = Date.now();
      await Promise.all(Array.from({ length: 30 }, (_, i) => gatedGet(i, runId, { requestsPerSecond: 20 })));
      const took = Date.now() - started;
      expect(target.total).to.equal(30);
      // 29 intervals of 50 ms after the first start (GCRA): a lower bound only.
      expect(took).to.be.at.least(1400);
      expect(mostWithin(target.starts, 1000)).to.be.at.most(21);
      // The pace row stays until the run is discarded.
      expect(await one.getRepository(RunOriginPace).countBy({ runId })).to.equal(1);
      expect(await discardRunGate(one.manager, runId)).to.equal(1);
      expect(await rowsOf(runId)).to.equal(0);
    });

    it('(c) takes over a lease whose holder died: after its expiry, or at once when its process of this machine is gone', async () => {
      const runId = newRun();
      const slots = one.getRepository(RunOriginSlot);
      // A worker on another machine, killed with its request under way: its lease ends in 400 ms.
      const expiresAtMs = Date.now() + 400;
      await slots.insert({
        runId,
        origin: target.origin,
        slot: 0,
        holder: 'elsewhere|other-machine|7|7|x|y',
        expiresAtMs,
      });
      const release = await gates[1].acquire({
        runId,
        origin: target.origin,
        limits: { maxInFlight: 1 },
        deadlineMs: Date.now() + 20_000,
        leaseMs: 1000,
      });
      expect(Date.now()).to.be.at.least(expiresAtMs);
      const row = await slots.findOneByOrFail({ runId, slot: 0 });
      expect(row.holder).not.to.equal('elsewhere|other-machine|7|7|x|y');
      await release();
      expect(await rowsOf(runId)).to.equal(0);

      // A process of this machine that no longer exists (its start time differs): no wait for the lease.
      const gone = `${os.hostname()}|${processOwner().machine}|${process.pid}|not-its-start|x|y`;
      await slots.insert({ runId, origin: target.origin, slot: 0, holder: gone, expiresAtMs: Date.now() + 60_000 });
      const before = Date.now();
      const again = await gates[0].acquire({
        runId,
        origin: target.origin,
        limits: { maxInFlight: 1 },
        deadlineMs: Date.now() + 20_000,
        leaseMs: 1000,
      });
      expect(Date.now() - before).to.be.below(10_000);
      await again();
      expect(await rowsOf(runId)).to.equal(0);
    });

    it('(d) a wait aborted or reaching the deadline rejects clearly and leaves no row behind', async () => {
      const runId = newRun();
      const ask = (gate: OriginGate, extra: { signal?: AbortSignal; deadlineMs?: number; rate?: number } = {}) =>
        gate.acquire({
          runId,
          origin: target.origin,
          limits: { maxInFlight: 1, ...(extra.rate ? { requestsPerSecond: extra.rate } : {}) },
          deadlineMs: extra.deadlineMs ?? Date.now() + 20_000,
          leaseMs: 1000,
          ...(extra.signal ? { signal: extra.signal } : {}),
        });
      const held = await ask(gates[0]);
      const controller = new AbortController();
      const aborted = ask(gates[1], { signal: controller.signal }).then(
        () => 'acquired',
        (err: Error) => err,
      );
      setTimeout(() => controller.abort(), 100);
      const abortError = await aborted;
      expect(abortError).to.be.instanceOf(Error).and.to.have.property('name', 'AbortError');

      const timedOut = await ask(gates[1], { deadlineMs: Date.now() + 150 }).then(
        () => 'acquired',
        (err: Error) => err,
      );
      expect(timedOut).to.be.instanceOf(OriginLimitTimeout);
      expect((timedOut as OriginLimitTimeout).code).to.equal(ORIGIN_LIMIT_TIMEOUT);
      expect((timedOut as OriginLimitTimeout).message)
        .to.contain(target.origin)
        .and.to.contain('maxInFlight 1');
      await held();
      expect(await one.getRepository(RunOriginSlot).countBy({ runId })).to.equal(0);

      // A start time past the deadline (1 per second: the second request's is 1 s on): refused at once, its slot given back.
      const first = await ask(gates[0], { rate: 1 });
      await first();
      const late = await ask(gates[1], { rate: 1, deadlineMs: Date.now() + 300 }).then(
        () => 'acquired',
        (err: Error) => err,
      );
      expect(late).to.be.instanceOf(OriginLimitTimeout);
      expect(await one.getRepository(RunOriginSlot).countBy({ runId })).to.equal(0);
      await discardRunGate(one.manager, runId);
      expect(await rowsOf(runId)).to.equal(0);
    });

    describe('(e) through the API node activity', () => {
      let policy: AddressPolicy;
      let sandbox: Sandbox;
      before(() => {
        policy = new AddressPolicy({
          allow: [],
          deny: [],
          privateAccess: {
            node: 'loopback',
            script: 'loopback',
            library: 'loopback',
            webhook: 'loopback',
            bundler: 'none',
          },
          infrastructure: [],
        });
        sandbox = new Sandbox({ timeoutMs: 2000, memoryLimitMb: 32, policy });
      });
      after(async () => {
        await sandbox?.dispose();
        await policy?.close();
      });

      const input = (runId: string, path: string, extra: Partial<ApiNodeInput> = {}): ApiNodeInput => ({
        runId,
        label: 'get',
        variables: {},
        testCase: { id: 'tc_1', name: 'the case' },
        request: {
          method: 'GET',
          url: `${target.url}${path}`,
          headers: {},
          timeoutMs: 10_000,
          followRedirects: true,
          maxResponseBytes: 1024 * 1024,
        },
        deadlineMs: Date.now() + 20_000,
        ...extra,
      });

      it('holds 10 concurrent API nodes of two workers to maxInFlight 2', async () => {
        const workers = gates.map((gate) =>
          createNodeActivities(sandbox, policy.agent('node'), undefined, undefined, undefined, gate),
        );
        const runId = newRun();
        const outs = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            workers[i % 2]!.executeApiNode(input(runId, '/?ms=100', { originLimits: { maxInFlight: 2 } })),
          ),
        );
        expect(outs.map((o) => o.exchange?.status)).to.deep.equal(Array(10).fill(200));
        expect(target.total).to.equal(10);
        expect(target.maxInFlight).to.equal(2);
        // The wait for a slot is not the request's time: each took about its 100 ms, not the queue's.
        expect(Math.min(...outs.map((o) => o.exchange!.timeMs))).to.be.below(5000);
        expect(await rowsOf(runId)).to.equal(0);
      });

      it('fails a request that gets no slot before the run deadline as ORIGIN_LIMIT_TIMEOUT, unsent', async () => {
        const node = createNodeActivities(sandbox, policy.agent('node'), undefined, undefined, undefined, gates[0]);
        const runId = newRun();
        const holder: Release = await gates[1].acquire({
          runId,
          origin: target.origin,
          limits: { maxInFlight: 1 },
          deadlineMs: Date.now() + 20_000,
          leaseMs: 10_000,
        });
        const out = await node.executeApiNode(
          input(runId, '/?ms=1', {
            originLimits: { maxInFlight: 1 },
            deadlineMs: Date.now() + 300,
            retry: { attempts: 3, delayMs: 10 },
          }),
        );
        await holder();
        expect(out.exchange?.errorCode).to.equal(ORIGIN_LIMIT_TIMEOUT);
        expect(out.exchange?.error).to.match(
          /^GET http:\/\/127\.0\.0\.1:\d+\/\?ms=1 was not sent \(ORIGIN_LIMIT_TIMEOUT\): no slot under the run's limits for http:\/\/127\.0\.0\.1:\d+ \(maxInFlight 1\) before the run's deadline/,
        );
        expect(out.attempts).to.have.length(1);
        expect(target.total).to.equal(0);
        expect(await rowsOf(runId)).to.equal(0);
      });

      it('gates each redirect hop by its own origin, giving the slot back before the next hop', async () => {
        const other = await countingTarget();
        try {
          const node = createNodeActivities(sandbox, policy.agent('node'), undefined, undefined, undefined, gates[0]);
          const runId = newRun();
          // Same origin under maxInFlight 1: the second hop does not wait for the first's slot.
          const same = await node.executeApiNode(
            input(runId, `/?ms=1&to=${encodeURIComponent('/?ms=1')}`, {
              originLimits: { maxInFlight: 1 },
              deadlineMs: Date.now() + 5000,
            }),
          );
          expect(same.exchange?.status).to.equal(200);
          expect(same.exchange?.redirects).to.equal(1);
          // To another origin: each hop claims a start time of its own origin.
          const cross = await node.executeApiNode(
            input(runId, `/?ms=1&to=${encodeURIComponent(`${other.url}/?ms=1`)}`, {
              originLimits: { maxInFlight: 1, requestsPerSecond: 1000 },
            }),
          );
          expect(cross.exchange?.status).to.equal(200);
          expect([target.total, other.total]).to.deep.equal([3, 1]);
          const paces = await one.getRepository(RunOriginPace).findBy({ runId });
          expect(paces.map((p) => p.origin).sort()).to.deep.equal([target.origin, other.origin].sort());
          expect(await one.getRepository(RunOriginSlot).countBy({ runId })).to.equal(0);
          await discardRunGate(one.manager, runId);
        } finally {
          await other.close();
        }
      });

      it('never asks the store without limits (a gate over a closed data source is not touched)', async () => {
        const closed = createDataSource(database);
        const node = createNodeActivities(
          sandbox,
          policy.agent('node'),
          undefined,
          undefined,
          undefined,
          new OriginGate(closed),
        );
        const out = await node.executeApiNode(input(newRun(), '/?ms=1'));
        expect(out.exchange?.status).to.equal(200);
        const limited = await node.executeApiNode(input(newRun(), '/?ms=1', { originLimits: { maxInFlight: 1 } })).then(
          () => 'answered',
          (err: Error) => err,
        );
        // With limits, the closed store is asked: the store's error is thrown (the activity is retried).
        expect(limited).to.be.instanceOf(Error);
      });
    });

    it('leases last the request time limit plus the margin', async () => {
      const runId = newRun();
      const release = await gates[0].acquire({
        runId,
        origin: target.origin,
        limits: { maxInFlight: 2 },
        deadlineMs: Date.now() + 20_000,
        leaseMs: 7000,
      });
      const row = await one.getRepository(RunOriginSlot).findOneByOrFail({ runId });
      const left = Number(row.expiresAtMs) - Date.now();
      expect(left)
        .to.be.greaterThan(7000 + LEASE_MARGIN_MS - 2000)
        .and.at.most(7000 + LEASE_MARGIN_MS);
      await release();
      await release();
      expect(await rowsOf(runId)).to.equal(0);
    });
  });
}
