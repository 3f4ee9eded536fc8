import { availableParallelism } from 'node:os';
import { expect } from 'chai';
import { ConfigError, LOCAL_DEVELOPMENT_EGRESS, loadConfig } from '../../src/config';
import { AddressNotAllowedError, policyFromConfig } from '../../src/net/address-policy';
// bin/main.ts starts nothing when imported: commandConfig is what `main.js <command>` uses.
import { commandConfig } from '../../bin/main';

describe('configuration (src/config)', () => {
  it('defaults to an embedded SQLite file and local Temporal', () => {
    const config = loadConfig({ ASSAY_DATA_DIR: '/tmp/x' });
    expect(config.database).to.deep.equal({ type: 'sqlite', file: '/tmp/x/assay.db' });
    expect(config.temporal.address).to.equal('127.0.0.1:7233');
    expect(config.api.port).to.equal(8080);
    expect(config.runs.defaultTimeoutSeconds).to.equal(1800);
  });

  it('reads a MySQL or MariaDB URL', () => {
    expect(loadConfig({ DATABASE_URL: 'mariadb://root@db:3306/assay' }).database).to.deep.equal({
      type: 'mysql',
      url: 'mysql://root@db:3306/assay',
    });
  });

  it('names the variable that is malformed', () => {
    expect(() => loadConfig({ ASSAY_PORT: 'eighty' })).to.throw(ConfigError, 'ASSAY_PORT');
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x' })).to.throw(ConfigError, 'DATABASE_URL');
    expect(() => loadConfig({ ASSAY_API_NODE_ACTIVITY: 'remote' })).to.throw(ConfigError, 'local, normal');
  });

  it('makes a load host with ASSAY_LOAD_ONLY, and refuses one that would poll nothing', () => {
    expect(loadConfig({}).load).to.include({ only: false, shardsPerWorker: 2 });
    expect(loadConfig({ ASSAY_LOAD_ONLY: 'true', ASSAY_LOAD_SHARDS_PER_WORKER: '1' }).load).to.include({
      only: true,
      shardsPerWorker: 1,
    });
    expect(() => loadConfig({ ASSAY_LOAD_ONLY: 'true', ASSAY_LOAD_SHARDS_PER_WORKER: '0' })).to.throw(
      ConfigError,
      'ASSAY_LOAD_SHARDS_PER_WORKER of 1 or more',
    );
    expect(() => loadConfig({ ASSAY_LOAD_ONLY: 'load' })).to.throw(ConfigError, 'ASSAY_LOAD_ONLY');
  });

  it('runs a load shard on every core and sends prepared requests unless told otherwise', () => {
    expect(loadConfig({}).load).to.include({ threads: Math.min(64, availableParallelism()), requestPath: 'prepared' });
    expect(loadConfig({ ASSAY_LOAD_THREADS: '1', ASSAY_LOAD_REQUEST_PATH: 'general' }).load).to.include({
      threads: 1,
      requestPath: 'general',
    });
    expect(() => loadConfig({ ASSAY_LOAD_REQUEST_PATH: 'fast' })).to.throw(ConfigError, 'ASSAY_LOAD_REQUEST_PATH');
    expect(() => loadConfig({ ASSAY_LOAD_THREADS: '0' })).to.throw(ConfigError, 'ASSAY_LOAD_THREADS');
  });

  it('keeps runs forever unless ASSAY_RUN_RETENTION_DAYS says otherwise', () => {
    expect(loadConfig({}).runs.retentionDays).to.equal(0);
    expect(loadConfig({ ASSAY_RUN_RETENTION_DAYS: '' }).runs.retentionDays).to.equal(0);
    expect(loadConfig({ ASSAY_RUN_RETENTION_DAYS: '30' }).runs.retentionDays).to.equal(30);
    expect(() => loadConfig({ ASSAY_RUN_RETENTION_DAYS: '-1' })).to.throw(ConfigError, 'ASSAY_RUN_RETENTION_DAYS');
    expect(() => loadConfig({ ASSAY_RUN_RETENTION_DAYS: '1.5' })).to.throw(ConfigError, 'ASSAY_RUN_RETENTION_DAYS');
  });

  it('limits failed authentication to 30 per client address and minute unless ASSAY_AUTH_FAILURES_PER_MINUTE says otherwise', () => {
    expect(loadConfig({}).api.authFailuresPerMinute).to.equal(30);
    expect(loadConfig({ ASSAY_AUTH_FAILURES_PER_MINUTE: '5' }).api.authFailuresPerMinute).to.equal(5);
    expect(() => loadConfig({ ASSAY_AUTH_FAILURES_PER_MINUTE: '0' })).to.throw(
      ConfigError,
      'ASSAY_AUTH_FAILURES_PER_MINUTE',
    );
    expect(() => loadConfig({ ASSAY_AUTH_FAILURES_PER_MINUTE: 'many' })).to.throw(
      ConfigError,
      'ASSAY_AUTH_FAILURES_PER_MINUTE',
    );
  });

  it('gives the OpenAPI import 32 MiB of body unless ASSAY_IMPORT_MAX_BYTES says otherwise; other bodies keep 1 MiB', () => {
    expect(loadConfig({}).api.importMaxBytes).to.equal(32 * 1024 * 1024);
    expect(loadConfig({}).api.maxBodyBytes).to.equal(1024 * 1024);
    expect(loadConfig({ ASSAY_IMPORT_MAX_BYTES: '262144' }).api.importMaxBytes).to.equal(262_144);
    expect(() => loadConfig({ ASSAY_IMPORT_MAX_BYTES: '10' })).to.throw(ConfigError, 'ASSAY_IMPORT_MAX_BYTES');
    expect(() => loadConfig({ ASSAY_IMPORT_MAX_BYTES: String(512 * 1024 * 1024) })).to.throw(
      ConfigError,
      'ASSAY_IMPORT_MAX_BYTES',
    );
  });

  it('configures the bundler: its own port, guarded fetches by default, allowed hosts and booleans', () => {
    const defaults = loadConfig({}).bundler;
    expect(defaults).to.include({
      port: 8081,
      publicUrl: 'http://localhost:8081',
      requireKey: true,
      allowPrivate: false,
      maxModules: 2000,
    });
    expect(defaults.allowHosts).to.deep.equal([]);
    const set = loadConfig({
      ASSAY_BUNDLER_ALLOW_HOSTS: 'Mirror.internal, 10.0.0.5:8080,[::1]:9000',
      ASSAY_BUNDLER_REQUIRE_KEY: 'no',
      ASSAY_BUNDLER_PUBLIC_URL: 'https://bundler.example/',
    }).bundler;
    expect(set.allowHosts).to.deep.equal(['mirror.internal', '10.0.0.5:8080', '[::1]:9000']);
    expect(set).to.include({ requireKey: false, publicUrl: 'https://bundler.example' });
    expect(() => loadConfig({ ASSAY_BUNDLER_ALLOW_HOSTS: 'http://mirror' })).to.throw(
      ConfigError,
      'ASSAY_BUNDLER_ALLOW_HOSTS',
    );
    expect(() => loadConfig({ ASSAY_BUNDLER_ALLOW_PRIVATE: 'maybe' })).to.throw(
      ConfigError,
      'ASSAY_BUNDLER_ALLOW_PRIVATE',
    );
  });
});

describe('local development egress (make dev, make cluster, local stacks, test apps)', () => {
  const kinds = ['node', 'script', 'library', 'webhook'] as const;

  it('lets API nodes, scripts, libraries loaded by URL and outgoing webhooks reach loopback under `dev`, as the test apps do', async () => {
    const dev = commandConfig('dev', { ASSAY_DATA_DIR: '/tmp/x' });
    expect(dev.egress.privateAccess).to.deep.equal({
      node: 'loopback',
      script: 'loopback',
      library: 'loopback',
      webhook: 'loopback',
    });
    expect(
      loadConfig({ ...LOCAL_DEVELOPMENT_EGRESS }).egress.privateAccess,
      'the test apps and local stacks',
    ).to.deep.equal(dev.egress.privateAccess);
    const policy = policyFromConfig(dev);
    try {
      for (const kind of kinds) {
        expect(await policy.judge(kind, '127.0.0.1', '127.0.0.1', 4000), `${kind} to a local service`).to.equal(
          undefined,
        );
        // The service's own ports stay refused: the API's 8080, the bundler's 8081, Temporal's 7233.
        for (const port of [8080, 8081, 7233])
          expect(await policy.judge(kind, 'localhost', '127.0.0.1', port), `${kind} to ${port}`).to.be.instanceOf(
            AddressNotAllowedError,
          );
      }
    } finally {
      await policy.close();
    }
  });

  it('leaves a switch the operator set as it is, and other commands at none', () => {
    const dev = commandConfig('dev', {
      ASSAY_EGRESS_PRIVATE_FOR_WEBHOOKS: 'none',
      ASSAY_EGRESS_PRIVATE_FOR_LIBRARIES: 'true',
      ASSAY_EGRESS_PRIVATE_FOR_NODES: '',
    });
    expect(dev.egress.privateAccess).to.deep.equal({
      node: 'loopback',
      script: 'loopback',
      library: 'all',
      webhook: 'none',
    });
    for (const command of ['all', 'api', 'worker']) {
      expect(commandConfig(command, {}).egress.privateAccess, command).to.deep.equal({
        node: 'none',
        script: 'none',
        library: 'none',
        webhook: 'none',
      });
    }
  });

  it('gives `dev` the mocks their own port 8082 unless ASSAY_MOCK_PORT is set', () => {
    expect(commandConfig('dev', {}).mocks.port).to.equal(8082);
    expect(commandConfig('dev', { ASSAY_MOCK_PORT: '9000' }).mocks.port).to.equal(9000);
    expect(commandConfig('all', {}).mocks.port).to.equal(null);
  });
});
