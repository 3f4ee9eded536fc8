import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config';

describe('configuration (src/config)', () => {
  it('defaults to an embedded SQLite file and local Temporal', () => {
    const config = loadConfig({ ASSAY_DATA_DIR: '/tmp/x' });
    expect(config.database).to.deep.equal({ type: 'sqlite', file: '/tmp/x/assay.db' });
    expect(config.temporal.address).to.equal('127.0.0.1:7233');
    expect(config.api.port).to.equal(8080);
    expect(config.runs.defaultTimeoutSeconds).to.equal(1800);
  });

  it('reads a MySQL or MariaDB URL', () => {
    expect(loadConfig({ DATABASE_URL: 'mariadb://root@db:3306/assay' }).database).to.deep.equal({ type: 'mysql', url: 'mysql://root@db:3306/assay' });
  });

  it('names the variable that is malformed', () => {
    expect(() => loadConfig({ ASSAY_PORT: 'eighty' })).to.throw(ConfigError, 'ASSAY_PORT');
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x' })).to.throw(ConfigError, 'DATABASE_URL');
    expect(() => loadConfig({ ASSAY_API_NODE_ACTIVITY: 'remote' })).to.throw(ConfigError, 'local, normal');
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
    expect(() => loadConfig({ ASSAY_AUTH_FAILURES_PER_MINUTE: '0' })).to.throw(ConfigError, 'ASSAY_AUTH_FAILURES_PER_MINUTE');
    expect(() => loadConfig({ ASSAY_AUTH_FAILURES_PER_MINUTE: 'many' })).to.throw(ConfigError, 'ASSAY_AUTH_FAILURES_PER_MINUTE');
  });

  it('configures the bundler: its own port, guarded fetches by default, allowed hosts and booleans', () => {
    const defaults = loadConfig({}).bundler;
    expect(defaults).to.include({ port: 8081, publicUrl: 'http://localhost:8081', requireKey: true, allowPrivate: false, maxModules: 2000 });
    expect(defaults.allowHosts).to.deep.equal([]);
    const set = loadConfig({ ASSAY_BUNDLER_ALLOW_HOSTS: 'Mirror.internal, 10.0.0.5:8080,[::1]:9000', ASSAY_BUNDLER_REQUIRE_KEY: 'no', ASSAY_BUNDLER_PUBLIC_URL: 'https://bundler.example/' }).bundler;
    expect(set.allowHosts).to.deep.equal(['mirror.internal', '10.0.0.5:8080', '[::1]:9000']);
    expect(set).to.include({ requireKey: false, publicUrl: 'https://bundler.example' });
    expect(() => loadConfig({ ASSAY_BUNDLER_ALLOW_HOSTS: 'http://mirror' })).to.throw(ConfigError, 'ASSAY_BUNDLER_ALLOW_HOSTS');
    expect(() => loadConfig({ ASSAY_BUNDLER_ALLOW_PRIVATE: 'maybe' })).to.throw(ConfigError, 'ASSAY_BUNDLER_ALLOW_PRIVATE');
  });
});
