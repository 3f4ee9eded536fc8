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
});
