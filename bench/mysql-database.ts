/**
 * A MySQL/MariaDB database of a benchmark's own, on the server `DATABASE_URL` names (default
 * root on 127.0.0.1:3306), created empty and dropped after: the benches that measure a store on
 * MySQL (bench/history-query.ts, bench/mock-crud.ts) never touch another database.
 */
import { randomBytes } from 'node:crypto';

/** Creates `<prefix>_<random>` (utf8mb4); its URL and how to drop it. */
export async function scratchMysqlDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL || 'mysql://root@127.0.0.1:3306/';
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const mysql = await import('mysql2/promise');
  const admin = await mysql.createConnection({ uri: base });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const conn = await mysql.createConnection({ uri: base });
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    },
  };
}
