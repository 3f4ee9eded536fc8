/**
 * Data source for the TypeORM CLI (`npx typeorm migration:generate -d dist/src/store/cli-data-source.js ...`).
 * It reads `DATABASE_URL` like the service does; see docs/development.md ("Changing the schema").
 */
import { loadConfig } from '../config';
import { createDataSource } from './data-source';

// The CLI needs a synchronous export: a mariadb:// URL selects TypeORM's MariaDB dialect.
export default createDataSource(loadConfig().database, {
  flavour: process.env.DATABASE_URL?.startsWith('mariadb:') ? 'mariadb' : 'mysql',
});
