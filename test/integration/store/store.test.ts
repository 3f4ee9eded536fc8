/**
 * The store on both dialects: migrations apply from empty and leave no drift against the entities,
 * records round-trip (millisecond timestamps, JSON), unique names hold, and the queries behind
 * test-case filters and runner selections return what they should.
 */
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { migrate, openDataSource } from '../../../src/store/data-source';
import { Environment, Run, Runner, TestCase, TestCaseTag, Workspace } from '../../../src/store/entities';
import { resolveRunnerSelection, testCaseQuery } from '../../../src/store/test-cases';
import { isUniqueViolation } from '../../../src/store/errors';
import { newId } from '../../../src/ids';
import { ensureWorkspace, findKey, hashKey, issueKey } from '../../../src/api-keys';
import { freshDatabase } from '../../helpers/harness';

for (const dialect of ['mysql', 'sqlite'] as const) {
  describe(`store on ${dialect === 'mysql' ? 'MySQL/MariaDB' : 'SQLite'}`, function () {
    this.timeout(60_000);
    let dataSource: DataSource;
    let drop: () => Promise<void>;
    let ws: Workspace;

    before(async () => {
      const db = await freshDatabase(dialect);
      drop = db.drop;
      dataSource = await openDataSource(db.database);
    });
    after(async () => {
      await dataSource?.destroy();
      await drop?.();
    });

    it('applies the migrations to an empty database, and then has nothing left to apply', async () => {
      const applied = await migrate(dataSource);
      expect(applied).to.deep.equal([
        'Initial1795000000000',
        'DataSets1795100000000',
        'Deployments1795200000000',
        'ApiDesigns1795300000000',
        'Bundles1795400000000',
        'RunRecovery1795500000000',
        'PerformanceRuns1795600000000',
        'SealedSecrets1795700000000',
        'RunnerVariableScope1795800000000',
        'FoldersAndHooks1795900000000',
        'EnvironmentServers1796000000000',
        'AuthProfiles1796100000000',
        'ReusableTestCases1796200000000',
        'RunHistory1796300000000',
        'HistoryStatusIndex1796301000000',
        'MockDesignOptions1796400000000',
        'MockState1796410000000',
        'MockJournal1796420000000',
        'MockSettings1796430000000',
        'LoadControl1796440000000',
        'Durability1796500000000',
        'NodeExecutions1796600000000',
        'TestCaseVersion1796700000000',
        'DebugRuns1796710000000',
        'Files1796720000000',
        'ParallelSuites1797000000000',
        'OriginGate1797900000000',
        'Teams1798000000000',
      ]);
      expect(await migrate(dataSource)).to.deep.equal([]);
      expect(await dataSource.showMigrations()).to.equal(false);
    });

    it('leaves no difference between the migrated schema and the entities', async () => {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).to.deep.equal([]);
    });

    it('stores only a hash of an API key and finds the key by it', async () => {
      ws = await ensureWorkspace(dataSource.manager, 'store-test');
      const { record, key } = await issueKey(dataSource.manager, ws.id, { scope: 'run' });
      expect(record.hash).to.equal(hashKey(key));
      expect(record.hash).not.to.contain(key.slice(6));
      const rows = await dataSource.query('SELECT * FROM api_keys');
      expect(JSON.stringify(rows)).not.to.contain(key);
      expect((await findKey(dataSource.manager, key))?.id).to.equal(record.id);
      expect(await findKey(dataSource.manager, `${key}x`)).to.equal(null);
    });

    it('round-trips timestamps with milliseconds (UTC) and JSON documents', async () => {
      const at = new Date('2026-03-04T05:06:07.891Z');
      const env = dataSource.getRepository(Environment).create({
        id: newId('environment'),
        workspaceId: ws.id,
        name: 'staging',
        description: 'ünïcödé ✓',
        variables: { base: 'http://x', n: 3, flag: true },
        createdAt: at,
        updatedAt: at,
      });
      await dataSource.getRepository(Environment).insert(env);
      const back = await dataSource.getRepository(Environment).findOneByOrFail({ id: env.id });
      expect(back.createdAt.toISOString()).to.equal('2026-03-04T05:06:07.891Z');
      expect(back.variables).to.deep.equal({ base: 'http://x', n: 3, flag: true });
      expect(back.description).to.equal('ünïcödé ✓');
    });

    it('refuses a second environment with the same name in a workspace, with a recognisable error', async () => {
      const now = new Date();
      const dup = {
        id: newId('environment'),
        workspaceId: ws.id,
        name: 'staging',
        description: '',
        variables: {},
        createdAt: now,
        updatedAt: now,
      };
      let error: unknown;
      try {
        await dataSource.getRepository(Environment).insert(dup);
      } catch (err) {
        error = err;
      }
      expect(isUniqueViolation(error)).to.equal(true);
      const other = await ensureWorkspace(dataSource.manager, 'other');
      await dataSource.getRepository(Environment).insert({ ...dup, id: newId('environment'), workspaceId: other.id });
    });

    it('filters test cases by folder (with subfolders) and by all given tags, and resolves runner selections', async () => {
      const now = Date.now();
      const make = async (name: string, folder: string, tags: string[], i: number) => {
        const tc = dataSource.getRepository(TestCase).create({
          id: newId('testCase'),
          workspaceId: ws.id,
          name,
          folder,
          description: '',
          flow: [],
          createdAt: new Date(now + i),
          updatedAt: new Date(now + i),
        });
        await dataSource.getRepository(TestCase).save(tc);
        if (tags.length)
          await dataSource.getRepository(TestCaseTag).insert(tags.map((tag) => ({ testCaseId: tc.id, tag })));
        return tc;
      };
      const a = await make('b-list', 'users', ['smoke', 'fast'], 1);
      const b = await make('a-get', 'users/admin', ['smoke'], 2);
      const c = await make('c-other', 'orders', ['smoke', 'fast'], 3);
      await make('d-users_x', 'users_x', ['fast'], 4);

      const names = async (filter: { folder?: string; tags?: string[] }) =>
        (await testCaseQuery(dataSource.manager, ws.id, filter).orderBy('tc.name').getMany()).map((t) => t.name);
      expect(await names({ folder: 'users' })).to.deep.equal(['a-get', 'b-list']);
      expect(await names({ folder: '/users/admin/' })).to.deep.equal(['a-get']);
      expect(await names({ tags: ['smoke', 'fast'] })).to.deep.equal(['b-list', 'c-other']);
      expect(await names({ folder: 'users', tags: ['fast'] })).to.deep.equal(['b-list']);
      expect(await names({ folder: '' })).to.have.length(4);

      const runner = dataSource.getRepository(Runner).create({
        id: newId('runner'),
        workspaceId: ws.id,
        name: 'r',
        description: '',
        testCaseIds: [c.id, 'tc_gone', a.id],
        folder: 'users',
        tags: [],
        order: 'name',
        createdAt: new Date(),
        updatedAt: new Date(),
      });
      expect((await resolveRunnerSelection(dataSource.manager, runner)).map((t) => t.id)).to.deep.equal([
        c.id,
        a.id,
        b.id,
      ]);
      runner.order = 'createdAt';
      runner.testCaseIds = [];
      runner.folder = null;
      runner.tags = ['fast'];
      expect((await resolveRunnerSelection(dataSource.manager, runner)).map((t) => t.name)).to.deep.equal([
        'b-list',
        'c-other',
        'd-users_x',
      ]);
    });

    it('keeps a run plan out of ordinary reads', async () => {
      const id = newId('run');
      await dataSource.getRepository(Run).save(
        dataSource.getRepository(Run).create({
          id,
          workspaceId: ws.id,
          runnerId: null,
          runnerName: 'r',
          environmentId: null,
          environmentName: 'staging',
          status: 'queued',
          result: null,
          trigger: 'api',
          workflowId: `run-${id}`,
          timeoutSeconds: 60,
          variables: {},
          context: null,
          error: null,
          summary: null,
          progressCompleted: 0,
          progressTotal: 0,
          duration: null,
          plan: null,
          createdAt: new Date(),
          startedAt: null,
          completedAt: null,
        }),
      );
      const plain = await dataSource.getRepository(Run).findOneByOrFail({ id });
      expect(plain.plan).to.equal(undefined);
      const withPlan = await dataSource
        .getRepository(Run)
        .createQueryBuilder('run')
        .addSelect('run.plan')
        .where('run.id = :id', { id })
        .getOneOrFail();
      expect(withPlan.plan).to.equal(null);
    });
  });
}
