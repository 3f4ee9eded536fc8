/**
 * `make bench` part 4: the bundler service, time per request (docs/benchmarks.md).
 *
 * A package CDN on loopback (test/helpers/cdn.ts) serves lodash-es 4.17.21 (640 modules) and
 * zod 4.1.12 from node_modules. For each library:
 *
 * - cold: POST /api/bundle with a global name not used before, so every module is fetched over
 *   HTTP, bundled by esbuild and stored (BENCH_BUNDLER_COLD runs, default 5);
 * - cached: the same request again, answered from the cache (BENCH_BUNDLER_CACHED sequential
 *   requests, default 300);
 * - the floor: plain esbuild bundling the same package from the local disk (no HTTP, no store).
 *
 * The store is DATABASE_URL when set, else a temporary SQLite file. Everything binds to loopback.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { openStore, startBundler } from '../bin/processes';
import { startCdn } from '../test/helpers/cdn';

const COLD = Number(process.env.BENCH_BUNDLER_COLD ?? 5);
const CACHED = Number(process.env.BENCH_BUNDLER_CACHED ?? 300);
const NODE_MODULES = path.resolve(__dirname, '../../node_modules');

const LIBRARIES = [
  { name: 'lodash-es 4.17.21', path: '/lodash-es@4.17.21', local: 'lodash-es/lodash.js' },
  { name: 'zod 4.1.12', path: '/zod@4.1.12/index.js', local: 'zod/index.js' },
];

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(v >= 10 ? 1 : 2));

async function main(): Promise<void> {
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const cdn = await startCdn();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-bundler-'));
  const config = loadConfig({
    ...process.env,
    ASSAY_DATA_DIR: dataDir,
    ASSAY_BUNDLER_PORT: '0',
    ASSAY_BUNDLER_REQUIRE_KEY: 'false',
    ASSAY_BUNDLER_RATE_LIMIT_PER_MINUTE: '10000000',
    ASSAY_BUNDLER_ALLOW_HOSTS: `127.0.0.1:${cdn.port}`,
    ASSAY_LOG_LEVEL: 'warn',
  });
  const logger = createLogger(config.logLevel, 'bench');
  const dataSource = await openStore(config, logger);
  const bundler = await startBundler(config, dataSource, logger);
  const post = async (body: unknown) => {
    const res = await fetch(`${bundler.url}/api/bundle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { cached: boolean; size: number; modules: number; detail?: string };
    if (res.status !== 200) throw new Error(`bundle failed: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const rows: string[] = [];
  try {
    for (const lib of LIBRARIES) {
      const url = `${cdn.url}${lib.path}`;
      log(`${lib.name}: ${COLD} cold bundles`);
      const cold: number[] = [];
      let info = { size: 0, modules: 0 };
      for (let i = 0; i < COLD; i++) {
        const t = performance.now();
        const answer = await post({ url, globalName: `bench${i}_${Date.now()}` });
        cold.push(performance.now() - t);
        if (answer.cached) throw new Error('a cold request was answered from the cache');
        info = answer;
      }
      log(`${lib.name}: ${CACHED} cached answers`);
      const name = `benchCached${Date.now()}`;
      await post({ url, globalName: name });
      const cached: number[] = [];
      for (let i = 0; i < CACHED; i++) {
        const t = performance.now();
        const answer = await post({ url, globalName: name });
        cached.push(performance.now() - t);
        if (!answer.cached) throw new Error('a repeated request was not answered from the cache');
      }
      const floor: number[] = [];
      for (let i = 0; i < COLD; i++) {
        const t = performance.now();
        await esbuild.build({
          entryPoints: [path.join(NODE_MODULES, lib.local)],
          bundle: true,
          write: false,
          format: 'iife',
          globalName: 'x',
          minify: true,
          target: 'es2022',
          logLevel: 'silent',
        });
        floor.push(performance.now() - t);
      }
      cold.sort((a, b) => a - b);
      cached.sort((a, b) => a - b);
      floor.sort((a, b) => a - b);
      rows.push(
        `| ${lib.name} (${info.modules} modules, ${Math.round(info.size / 1024)} KiB out) | ${ms(quantile(cold, 0.5))} ms (${ms(cold[0]!)}–${ms(cold[cold.length - 1]!)}) | ${ms(quantile(cached, 0.5))} ms / ${ms(quantile(cached, 0.99))} ms | ${ms(quantile(floor, 0.5))} ms |`,
      );
    }
    const store = config.database.type === 'sqlite' ? 'SQLite file' : 'MySQL/MariaDB (DATABASE_URL)';
    process.stdout.write(
      [
        `Bundler, time per request over loopback (${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, esbuild ${esbuild.version}, store: ${store})`,
        '',
        `| library | cold bundle, median (min–max of ${COLD}) | cached answer p50 / p99 (${CACHED} requests) | plain esbuild from local disk, median |`,
        '|---|---:|---:|---:|',
        ...rows,
        '',
      ].join('\n'),
    );
  } finally {
    await bundler.close();
    await dataSource.destroy();
    await cdn.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
