/**
 * The bundler service against a package CDN on loopback that serves real ES module packages from
 * node_modules (lodash-es: 640 modules of nested relative imports; @turf/distance: bare imports of
 * other packages; ky: a default export; zod), with unpkg-style redirects. Each bundle's blobUrl is
 * loaded into the real script sandbox and the library is called. Also: the cache (hit without
 * refetching; a restarted bundler process and a second one on the same database answering from
 * it; workers reading blobs from the store; concurrent requests; unpinned URLs), each
 * guard (scheme, private hosts on the first URL, at a redirect, at connect time and in an import;
 * slow origins; module, total and output size; module count; syntax errors; top-level await; Node
 * built-ins; not JavaScript), the request validation, and the SQLite store.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { migrate, openDataSource } from '../../../src/store/data-source';
import { ensureWorkspace, issueKey } from '../../../src/api-keys';
import { startBundler, type BundlerHandle } from '../../../bin/processes';
import { Sandbox } from '../../../src/sandbox/sandbox';
import { storedBlobReader } from '../../../src/bundler/blobs';
import type { DatabaseConfig } from '../../../src/config';
import { startCdn, type Cdn } from '../../helpers/cdn';
import { startTarget, type Target } from '../../helpers/target';
import { freshDatabase } from '../../helpers/harness';
import { testEgressPolicy } from '../../helpers/app';

interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

const FIXTURES = {
  'syntax.js': { body: 'export const ok = 1;\nexport const broken = (1 + ;\n' },
  'tla.js': { body: 'const config = await Promise.resolve({ a: 1 });\nexport default config;\n' },
  'node-import.js': {
    body: "import { readFileSync } from 'node:fs';\nexport const read = () => readFileSync('/etc/passwd');\n",
  },
  'node-require.js': {
    body: "var hash = null;\ntry { hash = require('crypto').createHash; } catch (e) { hash = null; }\nmodule.exports = { hasNodeCrypto: function () { return hash !== null; } };\n",
  },
  'data-import.js': { body: "import x from 'data:text/javascript,export default 1';\nexport default x;\n" },
  'private-import.js': { body: "export * from 'http://10.0.0.1/x.js';\n" },
  'page.html': { body: '<!doctype html><title>lodash</title>', type: 'text/html' },
  'missing-import.js': { body: "export * from './gone.js';\n" },
  'uses-big.js': { body: "import '../big.js';\nexport const x = 1;\n" },
  'app.js': {
    body: "import chunk from '/lodash-es@4.17.21/chunk.js';\nimport { distance } from '@turf/distance';\nexport const pairs = (xs) => chunk(xs, 2);\nexport { distance };\n",
  },
} as const;

describe('bundler service', function () {
  this.timeout(60_000);
  let cdn: Cdn;
  let target: Target;
  let db: { database: DatabaseConfig; drop(): Promise<void> };
  let dataSource: DataSource;
  let key: string;
  let sandbox: Sandbox;
  const bundlers: BundlerHandle[] = [];
  let main: BundlerHandle;
  let run = 0;

  async function bundler(
    env: Record<string, string> = {},
    database: DatabaseConfig = db.database,
  ): Promise<BundlerHandle> {
    const config = loadConfig({
      ASSAY_BUNDLER_PORT: '0',
      ASSAY_HOST: '127.0.0.1',
      ASSAY_BUNDLER_ALLOW_HOSTS: `127.0.0.1:${cdn.port},127.0.0.1:${new URL(target.url).port}`,
      // Room for a GC pause of this long-running test process while 640 modules are fetched; the
      // slow-origin test below uses its own bundler with 400 ms.
      ASSAY_BUNDLER_FETCH_TIMEOUT_MS: '3000',
      ASSAY_BUNDLER_MAX_MODULE_BYTES: String(1024 * 1024),
      ASSAY_LOG_LEVEL: process.env.ASSAY_TEST_LOG_LEVEL ?? 'silent',
      ...env,
    });
    config.database = database;
    const ds = database === db.database ? dataSource : await openDataSource(database);
    if (ds !== dataSource) await migrate(ds);
    const handle = await startBundler(config, ds, createLogger(config.logLevel, 'bundler-test'));
    const close = handle.close.bind(handle);
    handle.close = async () => {
      await close();
      if (ds !== dataSource) await ds.destroy();
    };
    bundlers.push(handle);
    return handle;
  }

  /** `node dist/bin/main.js bundler` as its own OS process on the test database; resolves once it listens. */
  async function bundlerProcess(): Promise<{ url: string; close(): Promise<void> }> {
    if (db.database.type !== 'mysql') throw new Error('bundler processes share the MySQL test database');
    const child = spawn(process.execPath, [path.resolve(__dirname, '../../../bin/main.js'), 'bundler'], {
      env: {
        ...process.env,
        DATABASE_URL: db.database.url,
        ASSAY_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bundler-')),
        ASSAY_BUNDLER_PORT: '0',
        ASSAY_HOST: '127.0.0.1',
        ASSAY_BUNDLER_ALLOW_HOSTS: `127.0.0.1:${cdn.port}`,
        ASSAY_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`the bundler process did not start: ${out}`)), 30_000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"bundler listening"/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`the bundler process exited (${code}): ${out}`)));
    });
    return {
      url,
      async close() {
        child.kill('SIGTERM');
        await exited;
      },
    };
  }

  async function post<T = any>(
    b: { url: string },
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply<T>> {
    const res = await fetch(`${b.url}/api/bundle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as T };
  }

  function expectProblem(res: Reply, status: number, code: string): void {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(res.body).to.include({ status, code });
  }

  /** Runs `body` as a generateValue hook with `libs` loaded and answers what it returned (or the error). */
  async function inSandbox(
    libs: string[],
    body: string,
  ): Promise<{ ok: boolean; value?: unknown; error?: { kind: string; message: string } }> {
    const r = await sandbox.execute({
      runId: `bundler-${++run}`,
      script: { code: `async function generateValue() { ${body} }`, libs },
      hook: 'generateValue',
      variables: { base: target.url },
      label: 'n1',
    });
    return { ok: r.ok, value: r.value, error: r.error };
  }

  before(async () => {
    cdn = await startCdn({ fixtures: FIXTURES, slowMs: 5000 });
    target = await startTarget();
    db = await freshDatabase('mysql');
    dataSource = await openDataSource(db.database);
    await migrate(dataSource);
    const workspace = await ensureWorkspace(dataSource.manager, 'default');
    key = (await issueKey(dataSource.manager, workspace.id, { name: 'bundler-test', scope: 'read' })).key;
    main = await bundler();
    // As a worker does: blobs come from the store; loopback (the CDN, the target) is allowed.
    sandbox = new Sandbox({
      timeoutMs: 3000,
      memoryLimitMb: 64,
      localLibrary: storedBlobReader(dataSource, { publicUrl: main.url }),
      policy: testEgressPolicy(),
    });
  });
  after(async () => {
    for (const b of bundlers) await b.close().catch(() => undefined);
    await sandbox?.dispose();
    await dataSource?.destroy();
    await db?.drop();
    await target?.close();
    await cdn?.close();
  });

  describe('bundling real packages, then calling them in the script sandbox', () => {
    let lodash: Reply;

    it('lodash-es through an unpkg-style redirect: 640 nested modules in one script under the detected name lodashEs', async () => {
      lodash = await post(main, { url: `${cdn.url}/lodash-es@4.17.21` });
      expect(lodash.status, JSON.stringify(lodash.body)).to.equal(200);
      expect(lodash.body).to.include({
        globalName: 'lodashEs',
        cached: false,
        url: `${cdn.url}/lodash-es@4.17.21`,
        finalUrl: `${cdn.url}/lodash-es@4.17.21/lodash.js`,
        pinned: true,
      });
      expect(lodash.body.modules).to.be.greaterThan(600);
      expect(lodash.body.blobUrl).to.match(new RegExp(`^${main.url}/blobs/[0-9a-f]{64}\\.js$`));
      expect(lodash.body.blobUrl).to.contain(lodash.body.sha256);
      expect(lodash.body).not.to.have.property('code');
      expect(lodash.body.warnings).to.deep.equal([]);

      const out = await inSandbox(
        [lodash.body.blobUrl],
        `return [lodashEs.chunk([1, 2, 3, 4, 5], 2), lodashEs.camelCase('Foo Bar'), lodashEs.default.VERSION, typeof lodashEs.default.map]`,
      );
      expect(out).to.deep.equal({
        ok: true,
        value: [[[1, 2], [3, 4], [5]], 'fooBar', '4.17.21', 'function'],
        error: undefined,
      });
    });

    it('serves the blob with its size, a JavaScript content type, immutable caching, an ETag and open CORS', async () => {
      const res = await fetch(lodash.body.blobUrl);
      const code = await res.text();
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
      expect(res.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      expect(res.headers.get('access-control-allow-origin')).to.equal('*');
      expect(res.headers.get('etag')).to.equal(`"${lodash.body.sha256}"`);
      expect(Buffer.byteLength(code)).to.equal(lodash.body.size);
      expect(code).to.match(/^\/\* lodashEs: bundled by Assay from /);
      const again = await fetch(lodash.body.blobUrl, { headers: { 'if-none-match': `"${lodash.body.sha256}"` } });
      expect(again.status).to.equal(304);
      const missing = await fetch(`${main.url}/blobs/${'0'.repeat(64)}.js`);
      expect(missing.status).to.equal(404);
      expect(((await missing.json()) as { code: string }).code).to.equal('not-found');
    });

    it('a repeated request is a cache hit: cached, the same blob, nothing fetched again; includeCode adds the code', async () => {
      const before = cdn.total();
      const again = await post(main, { url: `${cdn.url}/lodash-es@4.17.21`, includeCode: true });
      expect(again.status).to.equal(200);
      expect(again.body).to.include({
        cached: true,
        blobUrl: lodash.body.blobUrl,
        size: lodash.body.size,
        globalName: 'lodashEs',
      });
      expect(cdn.total()).to.equal(before);
      expect(again.body.code).to.equal(await (await fetch(lodash.body.blobUrl)).text());
    });

    it('other parameters are another cache entry (a miss): unminified code under a dotted name', async () => {
      const res = await post(main, {
        url: `${cdn.url}/zod@4.1.12/index.js`,
        globalName: 'acme.zod',
        minify: false,
        includeCode: true,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ cached: false, globalName: 'acme.zod' });
      expect(res.body.code.split('\n').length).to.be.greaterThan(1000);
      const small = await post(main, { url: `${cdn.url}/zod@4.1.12/index.js`, globalName: 'acme.zod' });
      expect(small.body.cached).to.equal(false);
      expect(small.body.size).to.be.lessThan(res.body.size);
      const out = await inSandbox(
        [res.body.blobUrl],
        `return [acme.zod.string().email().safeParse('a@b.co').success, acme.zod.number().safeParse('1').success]`,
      );
      expect(out).to.deep.equal({ ok: true, value: [true, false], error: undefined });
    });

    it('a default export lands on .default; defaultAccessPath "default" makes it the global itself (ky)', async () => {
      const plain = await post(main, { url: `${cdn.url}/ky@1.7.3/distribution/index.js`, globalName: 'kyLib' });
      expect(plain.status, JSON.stringify(plain.body)).to.equal(200);
      expect(
        await inSandbox([plain.body.blobUrl], `return [typeof kyLib, typeof kyLib.default, typeof kyLib.get]`),
      ).to.deep.include({ value: ['object', 'function', 'undefined'] });

      const direct = await post(main, {
        url: `${cdn.url}/ky@1.7.3/distribution/index.js`,
        globalName: 'kyLib',
        defaultAccessPath: 'default',
      });
      expect(direct.status).to.equal(200);
      expect(direct.body.blobUrl).not.to.equal(plain.body.blobUrl);
      const out = await inSandbox(
        [direct.body.blobUrl],
        `const user = await kyLib.get($context.get('base') + '/users/2').json(); return [typeof kyLib, user.name]`,
      );
      expect(out).to.deep.equal({ ok: true, value: ['function', 'Grace'], error: undefined });
    });

    it('defaultAccessPath reaches into nested exports (lib.default.fn becomes lib.fn)', async () => {
      const res = await post(main, {
        url: `${cdn.url}/lodash-es@4.17.21`,
        globalName: 'lo',
        defaultAccessPath: 'default',
      });
      expect(res.status).to.equal(200);
      expect(await inSandbox([res.body.blobUrl], `return [lo.VERSION, lo.sum([1, 2, 3])]`)).to.deep.include({
        value: ['4.17.21', 6],
      });
    });

    it('a defaultAccessPath the library does not export fails where the library is loaded, naming the path', async () => {
      const res = await post(main, {
        url: `${cdn.url}/lodash-es@4.17.21`,
        globalName: 'lx',
        defaultAccessPath: 'default.nope',
      });
      expect(res.status).to.equal(200);
      const out = await inSandbox([res.body.blobUrl], 'return 1');
      expect(out.ok).to.equal(false);
      expect(out.error!.kind).to.equal('library');
      expect(out.error!.message).to.contain('no export "default.nope"');
    });

    it('bare imports resolve against the importing CDN (@turf/distance imports @turf/helpers and @turf/invariant)', async () => {
      const res = await post(main, { url: `${cdn.url}/@turf/distance` });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ globalName: 'distance', pinned: false });
      expect(res.body.finalUrl).to.match(/\/@turf\/distance@7\.\d+\.\d+\/dist\/esm\/index\.js$/);
      expect(res.body.modules).to.equal(3);
      expect(res.body.warnings[0]).to.contain('pins no exact version');
      const out = await inSandbox([res.body.blobUrl], `return Math.round(distance.distance([0, 0], [0, 1]) * 10) / 10`);
      expect(out).to.deep.equal({ ok: true, value: 111.2, error: undefined });
    });

    it('a module mixing root-relative and bare imports; one library URL per global, several in one script', async () => {
      const app = await post(main, { url: `${cdn.url}/fixtures/app.js`, globalName: 'app' });
      expect(app.status, JSON.stringify(app.body)).to.equal(200);
      const out = await inSandbox(
        [app.body.blobUrl, lodash.body.blobUrl],
        `return [app.pairs([1, 2, 3]), Math.round(app.distance([0, 0], [1, 0])), lodashEs.last([1, 2])]`,
      );
      expect(out).to.deep.equal({ ok: true, value: [[[1, 2], [3]], 111, 2], error: undefined });
    });

    it('the sandbox\'s "ES module" advice works: the ESM build it refuses, bundled, loads', async () => {
      const esm = `${target.url}/libs/greeter.esm.js`;
      expect((await inSandbox([esm], 'return 1')).error!.message).to.contain('/api/bundle');
      const res = await post(main, { url: esm, globalName: 'Greeter', defaultAccessPath: 'default' });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const out = await inSandbox([res.body.blobUrl], `return Greeter.greet('ada')`);
      expect(out).to.deep.equal({ ok: true, value: 'hello, ada!', error: undefined });
    });

    it('a require() of a Node built-in inside try/catch is left out with a warning; the library works', async () => {
      const res = await post(main, { url: `${cdn.url}/fixtures/node-require.js`, globalName: 'cjsLib' });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.warnings.join(' ')).to.contain('requires the Node built-in "crypto"');
      expect(await inSandbox([res.body.blobUrl], 'return cjsLib.hasNodeCrypto()')).to.deep.include({
        ok: true,
        value: false,
      });
    });
  });

  describe('cache shared through the database', () => {
    it('survives a restart: a new bundler process answers from the cache without fetching', async () => {
      const url = `${cdn.url}/ky@1.7.3/distribution/index.js`;
      const first = await bundlerProcess();
      const built = await post(first, { url, globalName: 'kyRestart', defaultAccessPath: 'default' });
      expect(built.body.cached).to.equal(false);
      await first.close();
      const before = cdn.total();
      const second = await bundlerProcess();
      const again = await post(second, { url, globalName: 'kyRestart', defaultAccessPath: 'default' });
      expect(again.body).to.include({ cached: true, sha256: built.body.sha256 });
      expect(cdn.total()).to.equal(before);
      const blob = await fetch(`${second.url}/blobs/${built.body.sha256}.js`);
      expect(blob.status).to.equal(200);
      await second.close();
    });

    it('workers read blobs from the store: a script loads a bundle while the bundler is down', async () => {
      const b = await bundler();
      const built = await post(b, {
        url: `${cdn.url}/ky@1.7.3/distribution/index.js`,
        globalName: 'kyStored',
        defaultAccessPath: 'default',
      });
      expect(built.status).to.equal(200);
      await b.close();
      expect(
        await fetch(built.body.blobUrl).then(
          () => 'up',
          () => 'down',
        ),
      ).to.equal('down');
      const offline = new Sandbox({
        timeoutMs: 3000,
        localLibrary: storedBlobReader(dataSource, { publicUrl: b.url }),
      });
      try {
        const r = await offline.execute({
          runId: 'stored',
          script: { code: 'async function generateValue() { return typeof kyStored.get }', libs: [built.body.blobUrl] },
          hook: 'generateValue',
          variables: {},
          label: 'n1',
        });
        expect(r.error).to.equal(undefined);
        expect(r.value).to.equal('function');
        const other = await offline.execute({
          runId: 'stored',
          script: {
            code: 'async function generateValue() { return 1 }',
            libs: [`${b.url}/blobs/${'1'.repeat(64)}.js`],
          },
          hook: 'generateValue',
          variables: {},
          label: 'n2',
        });
        expect(other.error?.kind).to.equal('library');
      } finally {
        await offline.dispose();
      }
    });

    it("recognises the bundler's own blobs by address: 127.0.0.1, localhost and [::1] spellings of its public URL are read from the store", async () => {
      const b = await bundler();
      const built = await post(b, {
        url: `${cdn.url}/ky@1.7.3/distribution/index.js`,
        globalName: 'kySpelled',
        defaultAccessPath: 'default',
      });
      expect(built.status).to.equal(200);
      const port = new URL(b.url).port;
      const path = `/blobs/${built.body.sha256}.js`;
      // The public URL says localhost (ASSAY_BUNDLER_PUBLIC_URL's default spelling); the bind address 127.0.0.1.
      const reader = storedBlobReader(dataSource, {
        publicUrl: `http://localhost:${port}`,
        host: '127.0.0.1',
        port: Number(port),
      });
      // A worker's policy: loopback allowed, the bundler's port refused as infrastructure.
      const policy = testEgressPolicy([
        { label: "the bundler's own port (ASSAY_BUNDLER_PORT)", host: '127.0.0.1', port: Number(port) },
      ]);
      const worker = new Sandbox({ timeoutMs: 3000, localLibrary: reader, policy });
      try {
        for (const spelling of [
          `http://127.0.0.1:${port}`,
          `http://localhost:${port}`,
          `http://[::1]:${port}`,
          `http://127.1:${port}`,
        ]) {
          const r = await worker.execute({
            runId: 'spelled',
            script: {
              code: 'async function generateValue() { return typeof kySpelled.get }',
              libs: [`${spelling}${path}`],
            },
            hook: 'generateValue',
            variables: {},
            label: spelling,
          });
          expect(r.error, spelling).to.equal(undefined);
          expect(r.value, spelling).to.equal('function');
        }
        // Another port is not the bundler: fetched under the policy like any library.
        expect(await reader(`http://127.0.0.1:${cdn.port}${path}`)).to.equal(undefined);
        // One of its blob URLs that the store lacks says so, rather than "the bundler's own port is never reachable".
        const missing = await worker.execute({
          runId: 'spelled',
          script: {
            code: 'async function generateValue() { return 1 }',
            libs: [`http://127.0.0.1:${port}/blobs/${'2'.repeat(64)}.js`],
          },
          hook: 'generateValue',
          variables: {},
          label: 'missing',
        });
        expect(missing.error?.kind).to.equal('library');
        expect(missing.error?.message).to.match(
          /is a blob of this Assay's bundler, but no bundle with that digest is stored/,
        );
      } finally {
        await worker.dispose();
        await policy.close();
      }
    });

    it('two bundler processes on one database: what one builds, the other answers and serves', async () => {
      const [a, b] = [main, await bundlerProcess()];
      const body = { url: `${cdn.url}/zod@4.1.12/index.js`, globalName: 'zShared' };
      const built = await post(a, body);
      expect(built.body.cached).to.equal(false);
      const before = cdn.total();
      const answered = await post(b, body);
      expect(answered.body).to.include({ cached: true, sha256: built.body.sha256, size: built.body.size });
      expect(cdn.total()).to.equal(before);
      expect(await (await fetch(`${b.url}/blobs/${built.body.sha256}.js`)).text()).to.equal(
        await (await fetch(built.body.blobUrl)).text(),
      );
      await b.close();
    });

    it('concurrent identical requests share one build', async () => {
      const body = { url: `${cdn.url}/lodash-es@4.17.21`, globalName: 'loConcurrent' };
      const before = cdn.hits.get('/lodash-es@4.17.21/chunk.js') ?? 0;
      const answers = await Promise.all([post(main, body), post(main, body), post(main, body)]);
      expect(new Set(answers.map((a) => a.body.sha256)).size).to.equal(1);
      expect(answers.every((a) => a.status === 200)).to.equal(true);
      expect(cdn.hits.get('/lodash-es@4.17.21/chunk.js')).to.equal(before + 1);
    });

    it('an unpinned URL is built again once its time is up; the same sources give the same blob', async () => {
      const fresh = await bundler({ ASSAY_BUNDLER_UNPINNED_TTL_SECONDS: '0' });
      const body = { url: `${cdn.url}/ky`, globalName: 'kyUnpinned' };
      const first = await post(fresh, body);
      expect(first.body).to.include({ cached: false, pinned: false });
      const hitsBefore = cdn.hits.get('/ky') ?? 0;
      const second = await post(fresh, body);
      expect(second.body).to.include({ cached: false, sha256: first.body.sha256, sourcesHash: first.body.sourcesHash });
      expect(cdn.hits.get('/ky')).to.equal(hitsBefore + 1);
    });
  });

  describe('guards', () => {
    it('refuses a URL that is not http(s), and one with credentials', async () => {
      for (const url of [
        'ftp://example.com/lib.js',
        'file:///etc/passwd',
        'javascript:alert(1)',
        'https://user:pw@example.com/x.js',
        'lodash-es',
      ]) {
        const res = await post(main, { url });
        expectProblem(res, 400, 'validation-failed');
        expect(res.body.errors[0]).to.include({ field: 'url', pointer: '#/url' });
      }
    });

    it('refuses private and loopback hosts on the first URL (literal address, and a name resolved at connect time)', async () => {
      const before = cdn.total();
      const literal = await post(main, { url: `http://127.0.0.2:${cdn.port}/lodash-es@4.17.21` });
      expectProblem(literal, 403, 'host-not-allowed');
      expect(literal.body).to.include({ address: '127.0.0.2' });
      const metadata = await post(main, { url: 'http://169.254.169.254/latest/meta-data/x.js', globalName: 'x' });
      expectProblem(metadata, 403, 'host-not-allowed');
      const named = await post(main, { url: `http://localhost:${cdn.port}/lodash-es@4.17.21` });
      expectProblem(named, 403, 'host-not-allowed');
      expect(named.body.address).to.match(/^(127\.0\.0\.1|::1)$/);
      expect(cdn.total(), 'nothing reached the CDN').to.equal(before);
    });

    it('checks every redirect hop: an allowed origin redirecting to a loopback name is refused at connect time', async () => {
      const res = await post(main, {
        url: `${cdn.url}/redirect?to=${encodeURIComponent(`http://localhost:${cdn.port}/ky`)}`,
        globalName: 'x',
      });
      expectProblem(res, 403, 'host-not-allowed');
      expect(res.body.url).to.equal(`http://localhost:${cdn.port}/ky`);
      expect(res.body.detail).to.contain('(redirected)');
    });

    it('checks imports too', async () => {
      const res = await post(main, { url: `${cdn.url}/fixtures/private-import.js`, globalName: 'x' });
      expectProblem(res, 403, 'host-not-allowed');
      expect(res.body).to.include({ url: 'http://10.0.0.1/x.js', address: '10.0.0.1' });
    });

    it('ASSAY_BUNDLER_ALLOW_PRIVATE lifts the address check', async () => {
      const open = await bundler({ ASSAY_BUNDLER_ALLOW_PRIVATE: 'true' });
      const res = await post(open, {
        url: `http://localhost:${cdn.port}/ky@1.7.3/distribution/index.js`,
        globalName: 'kyLocal',
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });

    it('never hangs on a slow origin: the fetch times out with a 422', async () => {
      const tight = await bundler({ ASSAY_BUNDLER_FETCH_TIMEOUT_MS: '400' });
      const res = await post(tight, { url: `${cdn.url}/slow.js`, globalName: 'x' });
      expectProblem(res, 422, 'module-fetch-timeout');
      expect(res.body).to.include({ url: `${cdn.url}/slow.js`, fetchTimeoutMs: 400 });
    });

    it('the whole bundle has a deadline too', async () => {
      const b = await bundler({ ASSAY_BUNDLER_FETCH_TIMEOUT_MS: '5000', ASSAY_BUNDLER_BUILD_TIMEOUT_MS: '300' });
      const res = await post(b, { url: `${cdn.url}/slow.js`, globalName: 'x' });
      expectProblem(res, 422, 'bundle-timeout');
    });

    it('caps the size of one module, whether or not it declares its length', async () => {
      for (const p of ['/big.js', '/big-declared.js']) {
        const res = await post(main, { url: `${cdn.url}${p}?bytes=${2 * 1024 * 1024}`, globalName: 'x' });
        expectProblem(res, 422, 'module-too-large');
        expect(res.body).to.include({ maxModuleBytes: 1024 * 1024 });
      }
      const imported = await post(main, { url: `${cdn.url}/fixtures/uses-big.js`, globalName: 'x' });
      expectProblem(imported, 422, 'module-too-large');
    });

    it('caps the sum of the sources, the output, and the number of modules', async () => {
      const b = await bundler({ ASSAY_BUNDLER_MAX_TOTAL_BYTES: String(100 * 1024) });
      expectProblem(await post(b, { url: `${cdn.url}/lodash-es@4.17.21`, globalName: 'x' }), 422, 'bundle-too-large');
      const c = await bundler({ ASSAY_BUNDLER_MAX_OUTPUT_BYTES: String(20 * 1024) });
      const output = await post(c, { url: `${cdn.url}/lodash-es@4.17.21`, globalName: 'x' });
      expectProblem(output, 422, 'bundle-too-large');
      expect(output.body.size).to.be.greaterThan(20 * 1024);
      const d = await bundler({ ASSAY_BUNDLER_MAX_MODULES: '50' });
      const many = await post(d, { url: `${cdn.url}/lodash-es@4.17.21`, globalName: 'x' });
      expectProblem(many, 422, 'too-many-modules');
      expect(many.body).to.include({ maxModules: 50 });
    });

    it('a syntax error names the module, line and column', async () => {
      const res = await post(main, { url: `${cdn.url}/fixtures/syntax.js`, globalName: 'x' });
      expectProblem(res, 422, 'module-syntax-error');
      expect(res.body).to.include({ url: `${cdn.url}/fixtures/syntax.js`, line: 2 });
      expect(res.body.lineText).to.contain('broken = (1 + ;');
    });

    it('top-level await and Node built-ins get their own clear errors', async () => {
      const tla = await post(main, { url: `${cdn.url}/fixtures/tla.js`, globalName: 'x' });
      expectProblem(tla, 422, 'top-level-await');
      expect(tla.body).to.include({ url: `${cdn.url}/fixtures/tla.js`, line: 1 });
      const node = await post(main, { url: `${cdn.url}/fixtures/node-import.js`, globalName: 'x' });
      expectProblem(node, 422, 'node-builtin');
      expect(node.body).to.include({ specifier: 'node:fs' });
    });

    it('a web page, a 404, a redirect loop and a data: import are refused with what went wrong', async () => {
      const page = await post(main, { url: `${cdn.url}/fixtures/page.html`, globalName: 'x' });
      expectProblem(page, 422, 'module-not-javascript');
      expect(page.body).to.include({ contentType: 'text/html' });
      const missing = await post(main, { url: `${cdn.url}/fixtures/missing-import.js`, globalName: 'x' });
      expectProblem(missing, 422, 'module-fetch-failed');
      expect(missing.body).to.include({ httpStatus: 404, url: `${cdn.url}/fixtures/gone.js` });
      const loop = `${cdn.url}/redirect?to=${encodeURIComponent('/redirect?to=%2Fredirect%3Fto%3D%252Fredirect%253Fto%253D%25252Fredirect%25253Fto%25253D%2525252Fredirect%2525253Fto%2525253D%252525252Fx')}`;
      const redirects = await post(main, { url: loop, globalName: 'x' });
      expectProblem(redirects, 422, 'module-fetch-failed');
      expect(redirects.body.detail).to.contain('redirects more than 5 times');
      const data = await post(main, { url: `${cdn.url}/fixtures/data-import.js`, globalName: 'x' });
      expectProblem(data, 422, 'unsupported-import');
    });

    it('a refused request stores nothing: the next good one still works and the cache holds only good bundles', async () => {
      const rows = await dataSource.query('SELECT COUNT(*) AS n FROM bundles WHERE url LIKE ?', [
        `${cdn.url}/fixtures/syntax.js%`,
      ]);
      expect(Number(rows[0].n)).to.equal(0);
      const ok = await post(main, { url: `${cdn.url}/lodash-es@4.17.21` });
      expect(ok.body.cached).to.equal(true);
    });
  });

  describe('request validation', () => {
    it('needs an API key', async () => {
      const res = await post(main, { url: `${cdn.url}/ky` }, { authorization: '' });
      expectProblem(res, 401, 'unauthorized');
    });

    it('names the field at fault', async () => {
      const cases: Array<[unknown, string]> = [
        [{}, 'url'],
        [{ url: 42 }, 'url'],
        [{ url: `${cdn.url}/x.js`, minify: 'yes' }, 'minify'],
        [{ url: `${cdn.url}/x.js`, extra: 1 }, 'extra'],
        [{ url: `${cdn.url}/x.js`, globalName: 'my-lib' }, 'globalName'],
        [{ url: `${cdn.url}/x.js`, globalName: 'class' }, 'globalName'],
        [{ url: `${cdn.url}/x.js`, globalName: '_' }, 'globalName'],
        [{ url: `${cdn.url}/x.js`, globalName: 'JSON.extra' }, 'globalName'],
        [{ url: `${cdn.url}/ky@1.7.3/distribution/index.js` }, 'globalName'],
        [{ url: `${cdn.url}/x.js`, globalName: 'ok', defaultAccessPath: 'default..x' }, 'defaultAccessPath'],
      ];
      for (const [body, field] of cases) {
        const res = await post(main, body);
        expectProblem(res, 400, 'validation-failed');
        expect(
          res.body.errors.map((e: { field: string }) => e.field),
          JSON.stringify(body),
        ).to.include(field);
      }
      const detected = await post(main, { url: `${cdn.url}/ky@1.7.3/distribution/index.js` });
      expect(detected.body.errors[0].detail)
        .to.contain('detected from the URL')
        .and.to.contain('"ky" is already a global');
    });

    it('405 with Allow for a known path asked with another method (RFC 9110 §15.5.6)', async () => {
      const cases: Array<[string, string, string[]]> = [
        ['GET', '/api/bundle', ['POST']],
        ['DELETE', `/blobs/${'0'.repeat(64)}.js`, ['GET', 'HEAD']],
        ['POST', '/healthz', ['GET', 'HEAD']],
      ];
      for (const [method, path, allowed] of cases) {
        const res = await fetch(`${main.url}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
        const body = (await res.json()) as { allowed: string[] };
        expectProblem({ status: res.status, headers: res.headers, body }, 405, 'method-not-allowed');
        expect((res.headers.get('allow') ?? '').split(', ').sort(), `${method} ${path}`).to.deep.equal(allowed);
        expect([...body.allowed].sort()).to.deep.equal(allowed);
      }
    });

    it('refuses bodies that are not JSON', async () => {
      expectProblem(
        await post(main, 'url=x', { 'content-type': 'application/x-www-form-urlencoded' }),
        415,
        'unsupported-media-type',
      );
      expectProblem(await post(main, '{"url": '), 400, 'malformed-json');
    });
  });

  it('works on the embedded SQLite store too', async () => {
    const sqlite = await freshDatabase('sqlite');
    try {
      const b = await bundler({ ASSAY_BUNDLER_REQUIRE_KEY: 'false' }, sqlite.database);
      const res = await post(b, { url: `${cdn.url}/fixtures/app.js`, globalName: 'app' });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const again = await post(b, { url: `${cdn.url}/fixtures/app.js`, globalName: 'app', includeCode: true });
      expect(again.body.cached).to.equal(true);
      expect(again.body.code).to.equal(await (await fetch(res.body.blobUrl)).text());
      await b.close();
    } finally {
      await sqlite.drop();
    }
  });
});
