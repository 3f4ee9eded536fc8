/**
 * A functional run's plan kept out of its workflow's history (activities/runs.ts): `startRun` with
 * `outline` stores the whole plan in the run's row and returns its first page of test cases with
 * the outline of the rest; `loadPlanTestCases` pages through the stored plan by position;
 * `finishRun` with `skipRest` writes a skipped result for every position left; the batch
 * `recordTestCaseResults`; a run's own folder and tags narrowing its runner's selection
 * (src/store/test-cases.ts `narrowSelection`); the stored plan's cap (src/domain/limits.ts
 * `storedPlanBytes`). On MariaDB/MySQL (DATABASE_URL) and SQLite, activities called directly.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { createRunActivities, type StartedPlan } from '../../../activities/runs';
import { loadConfig } from '../../../src/config';
import { migrate, openDataSource } from '../../../src/store/data-source';
import {
  Environment,
  Run,
  Runner,
  RunTestCaseResult,
  TestCase,
  TestCaseTag,
  queuedRun,
  type Workspace,
} from '../../../src/store/entities';
import { ensureWorkspace } from '../../../src/api-keys';
import { findRunWithPlan } from '../../../src/store/runs';
import { narrowSelection, narrowedSelectionMessage } from '../../../src/store/test-cases';
import { jsonBytes, OUTLINE_PAGE_BYTES, PAYLOAD_LIMITS, storedJsonBytes } from '../../../src/domain/limits';
import { expectedNodeExecutions } from '../../../src/flow/estimate';
import type { FlowNode, RunSelection, TestCaseDefinition, TestCaseResult } from '../../../src/domain/types';
import { newId } from '../../../src/ids';
import { freshDatabase } from '../../helpers/harness';

const MiB = 1024 * 1024;
/** JSON as the workflow sees it (what Temporal's converter writes): undefined fields gone. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A test case row (not saved) in `folder` with `tags`, its flow `flow`. */
function testCaseRow(workspaceId: string, name: string, folder: string, flow: FlowNode[], at: number): TestCase {
  return Object.assign(new TestCase(), {
    id: newId('testCase'),
    workspaceId,
    name,
    folder,
    description: '',
    flow,
    createdAt: new Date(at),
    updatedAt: new Date(at),
  });
}

/** An API node whose request body carries `filler` (the test case's bulk). */
const apiNode = (id: string, filler: string): FlowNode => ({
  id,
  type: 'api',
  request: { method: 'POST', url: 'http://example.test/echo', body: { filler } },
});

function result(tc: TestCaseDefinition, status: TestCaseResult['status']): TestCaseResult {
  return {
    testCaseId: tc.id,
    name: tc.name,
    status,
    duration: 12,
    assertions: 1,
    passedAssertions: status === 'passed' ? 1 : 0,
    failures: status === 'failed' ? [{ node: 'n1', message: 'expected 200, got 500' }] : [],
    nodes: [],
  };
}

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'it should have failed').to.be.instanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

describe('narrowSelection: a run of part of its runner', () => {
  const tc = (name: string, folder: string, tags: string[]) =>
    Object.assign(new TestCase(), {
      id: name,
      name,
      folder,
      tagRows: tags.map((tag) => Object.assign(new TestCaseTag(), { testCaseId: name, tag })),
    });
  const all = [
    tc('list', 'users', ['smoke', 'fast']),
    tc('get', 'users/admin', ['smoke']),
    tc('other', 'orders', ['smoke', 'fast']),
    tc('similar', 'users_x', ['fast']),
    tc('deep', 'users/admin/roles', ['fast', 'smoke', 'slow']),
    tc('top', '', ['Smoke']),
  ];
  const names = (selection: RunSelection | null) => narrowSelection(all, selection).map((t) => t.name);

  it('keeps a folder and its subfolders, and only the test cases carrying every tag, in their order', () => {
    expect(names({ folder: 'users' })).to.deep.equal(['list', 'get', 'deep']);
    expect(names({ folder: '/users/admin/' })).to.deep.equal(['get', 'deep']);
    expect(names({ folder: 'users/adm' })).to.deep.equal([]);
    expect(names({ tags: ['smoke', 'fast'] })).to.deep.equal(['list', 'other', 'deep']);
    expect(names({ tags: ['smoke'] })).to.deep.equal(['list', 'get', 'other', 'deep']);
    expect(names({ folder: 'users', tags: ['fast'] })).to.deep.equal(['list', 'deep']);
    expect(names({ folder: 'orders', tags: ['slow'] })).to.deep.equal([]);
  });

  it('narrows nothing without a selection, or with an empty one', () => {
    const everyone = all.map((t) => t.name);
    expect(names(null)).to.deep.equal(everyone);
    expect(names({})).to.deep.equal(everyone);
    expect(names({ folder: '', tags: [] })).to.deep.equal(everyone);
  });

  it('says which folder and tags left nothing', () => {
    expect(narrowedSelectionMessage({ name: 'api' }, { folder: 'users/admin', tags: ['smoke', 'fast'] })).to.equal(
      'None of the test cases runner "api" selects lies in folder "users/admin" (or below it) and carries the tags "smoke", "fast"; a run would pass with 0 tests. Choose another folder or tags (assay run --folder/--tag), or change the runner.',
    );
    expect(narrowedSelectionMessage({ name: 'api' }, { tags: ['nightly'] })).to.match(
      /selects carries the tag "nightly"; a run would pass with 0 tests/,
    );
  });
});

for (const dialect of ['mysql', 'sqlite'] as const) {
  describe(`a run's plan outlined and paged, on ${dialect === 'mysql' ? 'MySQL/MariaDB' : 'SQLite'}`, function () {
    this.timeout(120_000);
    let dataSource: DataSource;
    let drop: () => Promise<void>;
    let dataDir: string;
    let ws: Workspace;
    let activities: ReturnType<typeof createRunActivities>;
    let config: ReturnType<typeof loadConfig>;
    /** The 2,000 test cases' run, its first startRun's answer, and its stored plan's test cases. */
    let runId: string;
    let started: StartedPlan;
    let stored: TestCaseDefinition[];

    const insertTestCases = async (rows: TestCase[], tags: (i: number) => string[] = () => []) => {
      for (let i = 0; i < rows.length; i += 100) {
        const part = rows.slice(i, i + 100);
        await dataSource.getRepository(TestCase).insert(part as never);
        const tagRows = part.flatMap((row, j) => tags(i + j).map((tag) => ({ testCaseId: row.id, tag })));
        if (tagRows.length) await dataSource.getRepository(TestCaseTag).insert(tagRows);
      }
    };
    const addRunner = (name: string, folder: string) =>
      dataSource.getRepository(Runner).insert(
        dataSource.getRepository(Runner).create({
          id: newId('runner'),
          workspaceId: ws.id,
          name,
          description: '',
          testCaseIds: [],
          folder,
          tags: [],
          order: 'name',
          loadProfile: null,
          variableScope: 'testCase',
          durability: 'node',
          parallel: null,
          authProfile: null,
          baseline: null,
          quarantineFlaky: false,
          createdAt: new Date(),
          updatedAt: new Date(),
        }),
      );
    const queue = async (runner: string, selection: RunSelection | null = null): Promise<string> => {
      const id = newId('run');
      await dataSource.getRepository(Run).insert(
        dataSource.getRepository(Run).create(
          queuedRun({
            id,
            workspaceId: ws.id,
            runnerId: null,
            runnerName: runner,
            environmentId: null,
            environmentName: 'local',
            deploymentId: null,
            trigger: 'api',
            workflowId: `run-${id}`,
            timeoutSeconds: 600,
            variables: {},
            context: null,
            selection,
          }) as never,
        ) as never,
      );
      return id;
    };
    const rowsOf = async (id: string) =>
      await dataSource.getRepository(RunTestCaseResult).find({ where: { runId: id }, order: { position: 'ASC' } });

    before(async () => {
      const db = await freshDatabase(dialect);
      drop = db.drop;
      dataSource = await openDataSource(db.database);
      await migrate(dataSource);
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-outline-'));
      config = loadConfig({ ASSAY_DATA_DIR: dataDir, ASSAY_LOG_LEVEL: 'silent' });
      activities = createRunActivities(dataSource, config);
      ws = await ensureWorkspace(dataSource.manager, 'plan-outline');
      await dataSource.getRepository(Environment).insert({
        id: newId('environment'),
        workspaceId: ws.id,
        name: 'local',
        description: '',
        variables: { base: 'http://example.test' },
        createdAt: new Date(),
        updatedAt: new Date(),
      });
      // 2,000 test cases of about 2.6 KiB each in four subfolders of `suite` (every tenth with a
      // loop of three requests): a plan of about 5 MiB, over the 1.5 MiB a plan in history may have.
      const now = Date.now();
      const suite = Array.from({ length: 2000 }, (_, i) => {
        const filler = `${i}:`.padEnd(2400, 'abcdefghij "quoted" ');
        const flow: FlowNode[] =
          i % 10 === 0
            ? [{ id: 'l1', type: 'loop', count: 3, body: [apiNode('n1', filler)] }]
            : [apiNode('n1', filler)];
        return testCaseRow(ws.id, `tc-${String(i).padStart(4, '0')}`, `suite/p${i % 4}`, flow, now + i);
      });
      await insertTestCases(suite, (i) => [i % 2 === 0 ? 'even' : 'odd', ...(i % 3 === 0 ? ['third'] : [])]);
      await addRunner('suite', 'suite');
    });
    after(async () => {
      await dataSource?.destroy();
      await drop?.();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('startRun with outline stores the whole plan and returns its first page and the outline', async () => {
      runId = await queue('suite');
      started = await activities.startRun({ runId, outline: true });
      const run = await findRunWithPlan(dataSource.manager, runId);
      expect(run!.status).to.equal('running');
      expect(run!.progressTotal).to.equal(2000);
      stored = run!.plan!.testCases;
      expect(stored).to.have.length(2000);
      expect(jsonBytes(run!.plan)).to.be.above(4.5 * MiB);

      expect(started.outline!.count).to.equal(2000);
      // One node each, three more for each of the 200 loops (the loop and three iterations).
      const expected = stored.reduce((n, tc) => n + expectedNodeExecutions(tc, started.settings.maxLoopIterations), 0);
      expect(started.outline!.expectedNodes)
        .to.equal(expected)
        .and.to.equal(1800 + 200 * 4);
      const page = started.testCases;
      expect(page.length).to.be.within(1, 1999);
      expect(jsonBytes(page)).to.be.at.most(OUTLINE_PAGE_BYTES);
      // Nearly full: the next test case would not have fitted.
      expect(jsonBytes([...page, stored[page.length]])).to.be.above(OUTLINE_PAGE_BYTES);
      expect(plain(page)).to.deep.equal(plain(stored.slice(0, page.length)));
      // What goes into history is the head and one page, not 5 MiB.
      expect(jsonBytes(started)).to.be.below(OUTLINE_PAGE_BYTES + 64 * 1024);
      expect(started.variables).to.deep.equal({ base: 'http://example.test' });
    });

    it('startRun called again returns the same answer', async () => {
      expect(plain(await activities.startRun({ runId, outline: true }))).to.deep.equal(plain(started));
      // Another worker (nothing cached) too.
      const other = createRunActivities(dataSource, config);
      expect(plain(await other.startRun({ runId, outline: true }))).to.deep.equal(plain(started));
    });

    it('startRun without outline (as recorded histories call it) still refuses a plan over 1.5 MiB', async () => {
      const failure = await failureOf(activities.startRun({ runId }));
      expect(failure.nonRetryable).to.equal(true);
      expect(failure.type).to.equal('RunSetupFailed');
      expect(failure.message).to.match(
        /^the run's plan \(its test cases and the variables\) exceeds 1\.5 MiB \(\d\.\d MiB\)/,
      );
    });

    it('loadPlanTestCases pages through every test case once, in order, as stored', async () => {
      const seen: TestCaseDefinition[] = [];
      let pages = 0;
      for (let from = 0; from < 2000; pages++) {
        const page = await activities.loadPlanTestCases({ runId, from });
        expect(page.from).to.equal(from);
        expect(page.testCases.length).to.be.at.least(1);
        expect(jsonBytes(page.testCases)).to.be.at.most(OUTLINE_PAGE_BYTES);
        if (from === 0) expect(plain(page.testCases)).to.deep.equal(plain(started.testCases));
        seen.push(...page.testCases);
        from += page.testCases.length;
        expect(pages).to.be.below(100);
      }
      expect(pages).to.be.within(15, 40);
      expect(seen.map((tc) => tc.id)).to.deep.equal(stored.map((tc) => tc.id));
      expect(new Set(seen.map((tc) => tc.id)).size).to.equal(2000);
      expect(plain(seen)).to.deep.equal(plain(stored));

      expect((await activities.loadPlanTestCases({ runId, from: 2000 })).testCases).to.deep.equal([]);
      expect((await activities.loadPlanTestCases({ runId, from: 9999 })).testCases).to.deep.equal([]);
      // A page smaller than one test case holds that one; a larger one several.
      const one = await activities.loadPlanTestCases({ runId, from: 1999, maxBytes: 10 });
      expect(one.testCases.map((tc) => tc.id)).to.deep.equal([stored[1999]!.id]);
      const few = await activities.loadPlanTestCases({ runId, from: 10, maxBytes: 8 * 1024 });
      expect(few.testCases.map((tc) => tc.id)).to.deep.equal(
        stored.slice(10, 10 + few.testCases.length).map((tc) => tc.id),
      );
      expect(few.testCases.length).to.be.within(2, 3);
      // A worker that never saw the run reads it from the store.
      const cold = await createRunActivities(dataSource, config).loadPlanTestCases({ runId, from: 1234 });
      expect(plain(cold.testCases[0])).to.deep.equal(plain(stored[1234]));

      const bad = await failureOf(activities.loadPlanTestCases({ runId, from: -1 }));
      expect(bad.nonRetryable).to.equal(true);
      const none = await failureOf(activities.loadPlanTestCases({ runId: newId('run'), from: 0 }));
      expect(none.message).to.match(/has no frozen plan/);
    });

    it('recordTestCaseResults stores a batch of results and the progress in one call', async () => {
      await activities.recordTestCaseResults({
        runId,
        progress: { completed: 5, total: 2000 },
        work: 0.0025,
        results: [0, 1, 2, 3, 4].map((position) => ({
          position,
          result: result(stored[position]!, position === 3 ? 'failed' : 'passed'),
          ...(position === 3
            ? { resumeState: { nodeIndex: 0, nodeId: 'n1', state: { variables: {}, nodes: {} } } }
            : {}),
        })) as never,
      });
      const rows = await rowsOf(runId);
      expect(rows.map((r) => `${r.position}:${r.status}`)).to.deep.equal([
        '0:passed',
        '1:passed',
        '2:passed',
        '3:failed',
        '4:passed',
      ]);
      expect(rows[3]!.detail.folder).to.equal(stored[3]!.folder);
      const sealed = await dataSource
        .getRepository(RunTestCaseResult)
        .createQueryBuilder('r')
        .select(['r.position'])
        .addSelect('r.resumeState')
        .where('r.runId = :runId', { runId })
        .orderBy('r.position')
        .getMany();
      expect(sealed.map((r) => r.resumeState !== null)).to.deep.equal([false, false, false, true, false]);
      const run = await dataSource.getRepository(Run).findOneByOrFail({ id: runId });
      expect(run.progressCompleted).to.equal(5);
    });

    it('finishRun with skipRest writes a skipped result for exactly the positions left, and keeps the others', async () => {
      const interrupted: TestCaseResult = {
        ...result(stored[5]!, 'failed'),
        error: 'Interrupted: Run failed: boom',
      };
      // Under way when the run stopped: position 4 (its child workflow stored it already) and 6 (not).
      const underWay = (position: number): TestCaseResult => ({
        ...result(stored[position]!, 'failed'),
        error: 'Interrupted: Run failed: boom',
      });
      await activities.finishRun({
        runId,
        status: 'failed',
        error: 'Run failed: boom',
        summary: { total: 2000, passed: 3, failed: 4, skipped: 1993 },
        unfinished: [{ position: 5, result: interrupted }],
        interrupted: [4, 6].map((position) => ({ position, result: underWay(position) })),
        skipRest: { error: 'Run failed: boom' },
      });
      const rows = await rowsOf(runId);
      expect(rows.map((r) => r.position)).to.deep.equal(Array.from({ length: 2000 }, (_, i) => i));
      expect(rows.slice(0, 7).map((r) => r.status)).to.deep.equal([
        'passed',
        'passed',
        'passed',
        'failed',
        'passed',
        'failed',
        'failed',
      ]);
      expect(rows[5]!.detail.error).to.equal('Interrupted: Run failed: boom');
      expect(rows[6]!.detail.error).to.equal('Interrupted: Run failed: boom');
      const skipped = rows.slice(7);
      expect(skipped.every((r) => r.status === 'skipped')).to.equal(true);
      expect(skipped.map((r) => r.testCaseId)).to.deep.equal(stored.slice(7).map((tc) => tc.id));
      expect(skipped[0]!.detail).to.deep.include({ error: 'Not run: Run failed: boom', failures: [], nodes: [] });
      expect(skipped[0]!.detail.folder).to.equal(stored[7]!.folder);
      // The summary is counted from the stored results, not taken from the workflow's view.
      const ended = await dataSource.getRepository(Run).findOneByOrFail({ id: runId });
      expect(ended.summary).to.deep.equal({ total: 2000, passed: 4, failed: 3, skipped: 1993 });
      const run = await dataSource.getRepository(Run).findOneByOrFail({ id: runId });
      expect(run.status).to.equal('failed');
      // Ended: a second call changes nothing.
      await activities.finishRun({
        runId,
        status: 'failed',
        error: 'again',
        summary: { total: 2000, passed: 0, failed: 0, skipped: 0 },
        unfinished: [],
        skipRest: { error: 'again' },
      });
      expect((await rowsOf(runId))[7]!.detail.error).to.equal('Not run: Run failed: boom');
    });

    it("a run's own folder and tags narrow its runner's test cases; none left fails its start naming them", async () => {
      const id = await queue('suite', { folder: 'suite/p2', tags: ['third'] });
      const plan = await activities.startRun({ runId: id, outline: true });
      const wanted = stored.filter((tc) => tc.folder === 'suite/p2' && tc.tags.includes('third')).map((tc) => tc.id);
      expect(wanted.length).to.be.above(100);
      expect(plan.outline!.count).to.equal(wanted.length);
      const page = await activities.loadPlanTestCases({ runId: id, from: 0, maxBytes: 64 * MiB });
      expect(page.testCases.map((tc) => tc.id)).to.deep.equal(wanted);

      const empty = await queue('suite', { folder: 'suite/p1', tags: ['even'] });
      const failure = await failureOf(activities.startRun({ runId: empty, outline: true }));
      expect(failure.type).to.equal('RunSetupFailed');
      expect(failure.message).to.equal(
        'None of the test cases runner "suite" selects lies in folder "suite/p1" (or below it) and carries the tag "even"; a run would pass with 0 tests. Choose another folder or tags (assay run --folder/--tag), or change the runner.',
      );
      expect((await dataSource.getRepository(Run).findOneByOrFail({ id: empty })).status).to.equal('queued');
    });

    it('refuses a plan over the stored cap, telling how to split the run; stores one just under it', async () => {
      // Test cases of 16,000 quotes each: about 64 KiB as the store's write carries them (each
      // quote escaped in JSON, and that escaped again in the statement). 185 of them (big/near)
      // are just under the 12 MiB cap, 200 (big) over it.
      const now = Date.now();
      const quotes = '"'.repeat(16_000);
      await insertTestCases(
        Array.from({ length: 200 }, (_, i) =>
          testCaseRow(
            ws.id,
            `big-${String(i).padStart(3, '0')}`,
            i < 185 ? 'big/near' : 'big/rest',
            [apiNode('n1', quotes)],
            now + i,
          ),
        ),
      );
      await addRunner('big', 'big');

      const near = await queue('big', { folder: 'big/near' });
      const plan = await activities.startRun({ runId: near, outline: true });
      expect(plan.outline!.count).to.equal(185);
      const kept = (await findRunWithPlan(dataSource.manager, near))!.plan!;
      expect(storedJsonBytes(kept)).to.be.within(11 * MiB, PAYLOAD_LIMITS.storedPlanBytes);

      const over = await queue('big');
      const failure = await failureOf(activities.startRun({ runId: over, outline: true }));
      expect(failure.nonRetryable).to.equal(true);
      expect(failure.type).to.equal('RunSetupFailed');
      expect(failure.message).to.match(
        /^the run's plan \(the runner's test cases and the variables\) exceeds 12\.0 MiB \(12\.\d MiB\);.*Run part of it at a time \(assay run --folder <folder> or --tag <tag>\), or split its test cases over several runners\.$/,
      );
      const row = await findRunWithPlan(dataSource.manager, over);
      expect(row!.status).to.equal('queued');
      expect(row!.plan).to.equal(null);
    });

    it('refuses a plan whose largest test case could not be loaded as a page', async () => {
      await insertTestCases([
        testCaseRow(ws.id, 'giant', 'giant', [apiNode('n1', 'g'.repeat(1600 * 1024))], Date.now()),
      ]);
      await addRunner('giant', 'giant');
      const failure = await failureOf(activities.startRun({ runId: await queue('giant'), outline: true }));
      expect(failure.message).to.match(/with its largest test case \("giant", 1\.6 MiB\) exceeds 1\.5 MiB/);
      expect(failure.message).to.match(/Shrink that test case or the variables\.$/);
    });
  });
}
