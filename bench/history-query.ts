/**
 * `make bench`: the history of one test case over 10,000 runs (docs/benchmarks.md "Test history"),
 * on SQLite and on MySQL/MariaDB: the goal is an answer of `GET /v1/test-cases/{id}/history` in
 * ≤ 50 ms, served from the indexes of `test_case_history`, never from result documents.
 *
 * Seeds BENCH_HISTORY_RUNS (10,000) runs of BENCH_HISTORY_CASES (10) test cases each (one history
 * row per test case and run, as src/store/history.ts writes them, five API nodes with assertions
 * each) over the last 90 days: two runners, two environments, a schedule and the API as triggers;
 * the test case looked at passes but for 5 % random failures and a current failing streak of 7
 * runs; a second one has failed in every run (its failing streak spans the whole history, the
 * worst case of "failing since"); a third stopped running after the first 10 % of the runs (its
 * rows lie under 90 % of newer ones). Then, after 3 warm-up calls, times BENCH_REPEAT (30) calls of the
 * endpoint's work (src/store/history.ts `testCaseHistory`: every query plus the figures) and of
 * each query alone, for the default answer (50 runs), the largest (1,000 runs), a runner and
 * environment filter and a week's window; prints medians and p95s as a Markdown table, and the
 * plan of each query (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on MySQL/MariaDB).
 *
 * MySQL/MariaDB: DATABASE_URL, else root on 127.0.0.1:3306 without a password; a database of its
 * own is created and dropped. SQLite: a file in a temporary directory. BENCH_HISTORY_DIALECTS
 * (`sqlite,mysql`) picks the stores.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { migrate, openDataSource } from '../src/store/data-source';
import { TestCaseHistory } from '../src/store/entities';
import {
  findHistory,
  historyFindOptions,
  testCaseHistory,
  type HistoryFilter,
  type HistoryQuery,
} from '../src/store/history';
import type { HistoryNodeOutcome } from '../src/history/types';
import type { DatabaseConfig } from '../src/config';
import { scratchMysqlDatabase } from './mysql-database';

const RUNS = Number(process.env.BENCH_HISTORY_RUNS ?? 10_000);
const CASES = Number(process.env.BENCH_HISTORY_CASES ?? 10);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 30);
const DIALECTS = (process.env.BENCH_HISTORY_DIALECTS ?? 'sqlite,mysql').split(',') as Array<'sqlite' | 'mysql'>;
const WORKSPACE = 'ws_bench';
/** The test case looked at, and the one that has always failed. */
const LOOKED_AT = 'tc_bench_0003';
const ALWAYS_FAILING = 'tc_bench_0007';
/** A test case that stopped running after the first 10 % of the runs (an old history under many newer rows). */
const STOPPED = 'tc_bench_0009';
const DAY = 86_400_000;

/** A deterministic pseudo-random sequence (mulberry32), so both stores get the same rows. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)]!;
}

const fmt = (ms: number) => ms.toFixed(ms < 10 ? 2 : 1);

/** The history rows of run `i` (every test case of it). */
function runRows(i: number, rnd: () => number, start: number): TestCaseHistory[] {
  const runId = `run_bench${String(i).padStart(8, '0')}`;
  const ranAt = new Date(start + Math.floor((i * 90 * DAY) / RUNS));
  const runnerName = rnd() < 0.7 ? 'smoke' : 'nightly';
  const environmentName = rnd() < 0.8 ? 'staging' : 'prod';
  const trigger = runnerName === 'nightly' ? 'schedule' : 'api';
  const rows: TestCaseHistory[] = [];
  for (let c = 0; c < CASES; c += 1) {
    const testCaseId = `tc_bench_${String(c).padStart(4, '0')}`;
    if (testCaseId === STOPPED && i >= RUNS / 10) continue;
    let status: 'passed' | 'failed' | 'skipped' = rnd() < 0.05 ? 'failed' : rnd() < 0.01 ? 'skipped' : 'passed';
    if (testCaseId === LOOKED_AT && i >= RUNS - 7) status = 'failed';
    if (testCaseId === ALWAYS_FAILING) status = 'failed';
    const failed = status === 'failed';
    const nodes: HistoryNodeOutcome[] = Array.from({ length: 5 }, (_, n) => ({
      id: `node${n}`,
      name: `request ${n}`,
      type: 'api',
      status: failed && n === 4 ? 'failed' : status === 'skipped' ? 'skipped' : 'passed',
      durationMs: 20 + Math.floor(rnd() * 80),
      assertions: [
        { label: 'response.status equals', passed: !(failed && n === 4) },
        { label: 'response.body.id exists', passed: true },
      ],
    }));
    rows.push(
      Object.assign(new TestCaseHistory(), {
        runId,
        position: c,
        workspaceId: WORKSPACE,
        testCaseId,
        testCaseName: `bench case ${c}`,
        runnerName,
        environmentName,
        deploymentId: trigger === 'schedule' ? 'dep_bench_nightly' : null,
        trigger,
        kind: 'functional',
        status,
        durationMs: nodes.reduce((sum, n) => sum + n.durationMs, 0),
        assertions: 10,
        passedAssertions: failed ? 9 : 10,
        failedNode: failed ? 'node4' : null,
        failure: failed ? 'response.status: expected 200, got 503' : null,
        commitRef: `commit${i.toString(16)}`,
        definitionHash: 'f'.repeat(64),
        flaky: false,
        quarantined: false,
        nodes,
        ranAt,
      }),
    );
  }
  return rows;
}

async function seed(dataSource: DataSource): Promise<number> {
  const rnd = random(28);
  const start = Date.now() - 90 * DAY;
  const repo = dataSource.getRepository(TestCaseHistory);
  const t0 = performance.now();
  const perBatch = Math.max(1, Math.floor(400 / CASES));
  for (let i = 0; i < RUNS; i += perBatch) {
    const rows: TestCaseHistory[] = [];
    for (let j = i; j < Math.min(RUNS, i + perBatch); j += 1) rows.push(...runRows(j, rnd, start));
    await repo.insert(rows);
  }
  return performance.now() - t0;
}

async function timed(fn: () => Promise<unknown>): Promise<{ median: number; p95: number }> {
  for (let i = 0; i < 3; i += 1) await fn();
  const times: number[] = [];
  for (let i = 0; i < REPEAT; i += 1) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return { median: quantile(times, 0.5), p95: quantile(times, 0.95) };
}

/** The plan of one find, as the store explains it. */
async function explain(dataSource: DataSource, query: HistoryQuery, dialect: 'sqlite' | 'mysql'): Promise<string[]> {
  const [sql, params] = dataSource
    .getRepository(TestCaseHistory)
    .createQueryBuilder('h')
    .setFindOptions(query.options)
    .useIndex(query.index)
    .getQueryAndParameters();
  const values = params.map((p) => (p instanceof Date ? p.toISOString().replace('T', ' ').replace('Z', '') : p));
  if (dialect === 'sqlite') {
    const rows = (await dataSource.query(`EXPLAIN QUERY PLAN ${sql}`, values)) as Array<{ detail: string }>;
    return rows.map((r) => r.detail);
  }
  const rows = (await dataSource.query(`EXPLAIN ${sql}`, values)) as Array<Record<string, unknown>>;
  return rows.map((r) => `table ${r.table}, type ${r.type}, key ${r.key}, rows ${r.rows}, Extra: ${r.Extra ?? ''}`);
}

async function database(dialect: 'sqlite' | 'mysql'): Promise<{ config: DatabaseConfig; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-history-'));
    return {
      config: { type: 'sqlite', file: path.join(dir, 'assay.db') },
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const db = await scratchMysqlDatabase('assay_bench_history');
  return { config: { type: 'mysql', url: db.url }, drop: db.drop };
}

async function benchDialect(dialect: 'sqlite' | 'mysql'): Promise<void> {
  const db = await database(dialect);
  const dataSource = await openDataSource(db.config);
  try {
    await migrate(dataSource);
    let server = 'SQLite';
    if (dialect === 'mysql') {
      const [row] = (await dataSource.query('SELECT VERSION() AS v')) as Array<{ v: string }>;
      server = /mariadb/i.test(row!.v) ? `MariaDB ${row!.v.split('-')[0]}` : `MySQL ${row!.v}`;
    } else {
      const [row] = (await dataSource.query('SELECT sqlite_version() AS v')) as Array<{ v: string }>;
      server = `SQLite ${row!.v}`;
    }
    const seedMs = await seed(dataSource);
    if (dialect === 'mysql') await dataSource.query('ANALYZE TABLE test_case_history');
    else await dataSource.query('ANALYZE');
    const total = await dataSource.getRepository(TestCaseHistory).count();
    console.log(`\n### ${server}\n`);
    console.log(
      `${total.toLocaleString('en')} history rows (${RUNS.toLocaleString('en')} runs of ${CASES} test cases), seeded in ${(seedMs / 1000).toFixed(1)} s; ${REPEAT} timed calls after 3 warm-ups.\n`,
    );
    const since = new Date(Date.now() - 7 * DAY);
    const scenarios: Array<{ label: string; testCaseId: string; filter: HistoryFilter; limit: number }> = [
      { label: 'default: newest 50 runs', testCaseId: LOOKED_AT, filter: {}, limit: 50 },
      { label: 'largest: newest 1,000 runs', testCaseId: LOOKED_AT, filter: {}, limit: 1000 },
      {
        label: 'runner=smoke&environment=staging',
        testCaseId: LOOKED_AT,
        filter: { runner: 'smoke', environment: 'staging' },
        limit: 50,
      },
      { label: 'since a week ago', testCaseId: LOOKED_AT, filter: { since }, limit: 50 },
      { label: 'failing in all 10,000 runs (newest 50)', testCaseId: ALWAYS_FAILING, filter: {}, limit: 50 },
      { label: 'stopped after the first 1,000 runs (newest 50)', testCaseId: STOPPED, filter: {}, limit: 50 },
    ];
    console.log('| query | whole answer median ms | p95 ms | entries | lastFailure | lastPass | firstFailureAfter |');
    console.log('|---|---|---|---|---|---|---|');
    const find = (query: HistoryQuery) => findHistory(dataSource.manager, query);
    const plans = new Map<string, string[]>();
    for (const s of scenarios) {
      const answer = await testCaseHistory(dataSource.manager, WORKSPACE, s.testCaseId, s.filter, s.limit);
      if (!answer || answer.entries.length === 0) throw new Error(`no history for ${s.label}`);
      const whole = await timed(() => testCaseHistory(dataSource.manager, WORKSPACE, s.testCaseId, s.filter, s.limit));
      const options = historyFindOptions(WORKSPACE, s.testCaseId, s.filter, s.limit);
      const pass = (await find(options.lastPass))[0] ?? null;
      const parts = {
        entries: await timed(() => find(options.entries)),
        lastFailure: await timed(() => find(options.lastFailure)),
        lastPass: await timed(() => find(options.lastPass)),
        firstFailureAfter: await timed(() => find(options.firstFailureAfter(pass))),
      };
      console.log(
        `| ${s.label} (${answer.entries.length} entries; failing since ${answer.failingSince ? answer.failingSince.runId : '—'}) | **${fmt(whole.median)}** | ${fmt(whole.p95)} | ${fmt(parts.entries.median)} | ${fmt(parts.lastFailure.median)} | ${fmt(parts.lastPass.median)} | ${fmt(parts.firstFailureAfter.median)} |`,
      );
      if (s === scenarios[0] || s === scenarios[2] || s === scenarios[4] || s === scenarios[5]) {
        for (const [name, opts] of Object.entries({
          entries: options.entries,
          lastFailure: options.lastFailure,
          lastPass: options.lastPass,
          firstFailureAfter: options.firstFailureAfter(pass),
        }))
          plans.set(`${s.label} — ${name}`, await explain(dataSource, opts, dialect));
      }
    }
    console.log(`\nPlans (${dialect === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'}):\n`);
    for (const [name, lines] of plans) {
      console.log(`- ${name}:`);
      for (const line of lines) console.log(`  - \`${line}\``);
    }
  } finally {
    await dataSource.destroy();
    await db.drop();
  }
}

async function main(): Promise<void> {
  console.log(
    `## Test history: one test case over ${RUNS.toLocaleString('en')} runs (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? '?'}, ${new Date().toISOString().slice(0, 10)})`,
  );
  for (const dialect of DIALECTS) await benchDialect(dialect);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
