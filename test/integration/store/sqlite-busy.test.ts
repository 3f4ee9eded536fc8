/**
 * The embedded store (SQLite) under concurrent writes (docs/operations.md "The embedded store under
 * concurrent writes"): an API on SQLite takes many `POST /v1/test-cases` at once, some of them for
 * the same name (409 `name-taken`, a rolled-back transaction), while another process (as a worker
 * process started apart from the API does) writes to the same file. Every answer is 201, 409 or
 * 503 `database-unavailable` with `Retry-After` (or, on a machine too busy to read a request's
 * headers within 10 s, 408 `request-timeout`), never 500; and the store holds exactly the test
 * cases answered 201 (one request's rollback never takes another's write with it).
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { startTestApp, type TestApp } from '../../helpers/app';

/** A second process writing to `file` in short transactions until killed (what a worker process does). */
function otherWriter(file: string): ChildProcess {
  const script = `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(file)});
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec('CREATE TABLE IF NOT EXISTS busy_probe (n INTEGER)');
    const insert = db.prepare('INSERT INTO busy_probe (n) VALUES (?)');
    let n = 0;
    const tick = () => {
      try { db.transaction(() => { for (let i = 0; i < 20; i++) insert.run(n++); })(); } catch {}
      setImmediate(tick);
    };
    process.stdout.write('ready\\n');
    tick();
  `;
  return spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
}

describe('SQLite store under concurrent writes (another process writing the same file)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let writer: ChildProcess | undefined;

  before(async () => {
    app = await startTestApp({ dialect: 'sqlite' });
  });
  after(async () => {
    if (writer && writer.exitCode === null) {
      const exited = new Promise((r) => writer!.once('exit', r));
      writer.kill('SIGKILL');
      await exited;
    }
    await app?.stop();
  });

  it('concurrent POST /v1/test-cases answer 201, 409 or 503 with Retry-After, never 500, and the store keeps exactly the 201s', async () => {
    const db = app.config.database;
    if (db.type !== 'sqlite') throw new Error('expected an SQLite test app');
    writer = otherWriter(db.file);
    await new Promise<void>((resolve, reject) => {
      writer!.stdout!.once('data', () => resolve());
      writer!.once('exit', (code) => reject(new Error(`the other writer exited (${code})`)));
    });

    const flow = [{ id: 'get', type: 'api', request: { method: 'GET', url: 'http://127.0.0.1:1/items' } }];
    const names = Array.from({ length: 60 }, (_, i) => `case ${i % 45}`); // 15 names asked for twice
    const answers: Array<{ name: string; status: number; code?: string; retryAfter: string | null }> = [];
    for (let round = 0; round < 3; round++) {
      const replies = await Promise.all(
        names.map((name) =>
          app.request('POST', '/v1/test-cases', { name, folder: `busy/${round}`, flow, tags: ['contract'] }),
        ),
      );
      replies.forEach((r, i) =>
        answers.push({
          name: `busy/${round}\u0000${names[i]}`,
          status: r.status,
          code: r.body?.code,
          retryAfter: r.headers.get('retry-after'),
        }),
      );
    }

    const unexpected = answers.filter(
      (a) =>
        !(
          a.status === 201 ||
          (a.status === 409 && a.code === 'name-taken') ||
          (a.status === 503 && a.code === 'database-unavailable' && Number(a.retryAfter) > 0) ||
          // The API's event loop waits in SQLite's synchronous busy handler (up to 5 s a write):
          // on a busy machine a request's headers may not be read within 10 s (src/net/server-bounds.ts).
          (a.status === 408 && a.code === 'request-timeout')
        ),
    );
    expect(unexpected, JSON.stringify(unexpected.slice(0, 5))).to.deep.equal([]);

    const created = answers
      .filter((a) => a.status === 201)
      .map((a) => a.name)
      .sort();
    const stored: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await app.request(
        'GET',
        `/v1/test-cases?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.status).to.equal(200);
      for (const tc of page.body.items as Array<{ name: string; folder: string }>)
        if (tc.folder.startsWith('busy/')) stored.push(`${tc.folder}\u0000${tc.name}`);
      cursor = page.body.nextCursor ?? undefined;
    } while (cursor);
    expect(stored.sort()).to.deep.equal(created);
  });
});
