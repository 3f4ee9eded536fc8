/**
 * `make bench` part: the command line beside Newman's. The Postman coverage collection
 * (test/fixtures/postman/, 21 requests, 64 tests) against go-httpbin on loopback, as a CI job runs
 * it, process start included, median of BENCH_REPEAT (default 5):
 *
 * - `newman run collection.json -e env.json -r cli,junit` (Newman 6 CLI);
 * - `assay run --runner … --env … --wait --reporter cli,junit` (the CLI from dist/bin/assay.js and the
 *   single-file dist/cli/assay.cjs), the collection imported once before with `assay import postman`.
 *
 * Both write a JUnit file; both report the same 58 passed and 6 failed tests
 * (test/integration/cli/postman-newman.test.ts checks that). Prints a Markdown table for
 * docs/benchmarks.md. Uses TEMPORAL_ADDRESS or a dev server, DATABASE_URL or SQLite.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalStack } from '../bin/local-stack';
import { freePort } from '../src/net/free-port';

const ROOT = path.resolve(__dirname, '../..');
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
const FIXTURES = path.join(ROOT, 'test/fixtures/postman');

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Runs a command; answers its wall time in ms and exit code. */
async function timed(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ ms: number; code: number | null }> {
  const started = performance.now();
  const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ms = performance.now() - started;
  if (code !== 0 && code !== 1) throw new Error(`${cmd} ${args.join(' ')} exited with ${code}: ${stderr}`);
  return { ms, code };
}

async function main(): Promise<void> {
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const httpbinBin = execFileSync(path.join(ROOT, 'scripts/ensure-httpbin.sh'), { encoding: 'utf8' }).trim();
  const port = await freePort();
  const httpbin = spawn(httpbinBin, ['-host', '127.0.0.1', '-port', String(port)], { stdio: 'ignore' });
  const baseUrl = `http://127.0.0.1:${port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-cli-'));
  const stack = await startLocalStack({ ASSAY_RATE_LIMIT_PER_MINUTE: '1000000' });
  try {
    for (let i = 0; i < 50; i++) {
      if (
        await fetch(`${baseUrl}/status/200`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const environment = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'httpbin.postman_environment.json'), 'utf8'));
    environment.values.find((v: { key: string }) => v.key === 'baseUrl').value = baseUrl;
    const envFile = path.join(dir, 'env.json');
    fs.writeFileSync(envFile, JSON.stringify(environment));
    const collection = path.join(FIXTURES, 'coverage.postman_collection.json');
    const env = { ...process.env, ASSAY_URL: stack.apiUrl, ASSAY_API_KEY: stack.key, NODE_OPTIONS: '' };
    const node = process.execPath;
    const assayJs = path.join(ROOT, 'dist/bin/assay.js');
    const assayCjs = path.join(ROOT, 'dist/cli/assay.cjs');
    const newman = path.join(ROOT, 'node_modules/newman/bin/newman.js');

    const imported = await timed(
      node,
      [assayJs, 'import', 'postman', collection, '--environment', envFile, '--runner', 'coverage'],
      env,
      dir,
    );
    log(`imported in ${imported.ms.toFixed(0)} ms`);

    const variants: Array<{ name: string; cmd: string; args: string[] }> = [
      {
        name: 'Newman 6.2.2 CLI: `newman run … -r cli,junit`',
        cmd: node,
        args: [
          newman,
          'run',
          collection,
          '-e',
          envFile,
          '-r',
          'cli,junit',
          '--reporter-junit-export',
          path.join(dir, 'newman.xml'),
        ],
      },
      {
        name: 'Assay CLI (`npx assay`): `assay run … --wait --reporter cli,junit`',
        cmd: node,
        args: [
          assayJs,
          'run',
          '--runner',
          'coverage',
          '--env',
          'httpbin-local',
          '--wait',
          '--reporter',
          'cli,junit',
          '--out',
          path.join(dir, 'a'),
        ],
      },
      {
        name: 'Assay CLI, single file (`node assay.cjs`)',
        cmd: node,
        args: [
          assayCjs,
          'run',
          '--runner',
          'coverage',
          '--env',
          'httpbin-local',
          '--wait',
          '--reporter',
          'cli,junit',
          '--out',
          path.join(dir, 'b'),
        ],
      },
      {
        name: 'Assay CLI, polling once a second (`--poll-interval 1`)',
        cmd: node,
        args: [
          assayJs,
          'run',
          '--runner',
          'coverage',
          '--env',
          'httpbin-local',
          '--wait',
          '--poll-interval',
          '1',
          '--reporter',
          'cli,junit',
          '--out',
          path.join(dir, 'c'),
        ],
      },
    ];
    const rows: Array<{ name: string; ms: number }> = [];
    for (const v of variants) {
      await timed(v.cmd, v.args, env, dir); // warm-up
      const runs: number[] = [];
      for (let i = 0; i < REPEAT; i++) runs.push((await timed(v.cmd, v.args, env, dir)).ms);
      log(`${v.name}: ${runs.map((r) => r.toFixed(0)).join(', ')} ms`);
      rows.push({ name: v.name, ms: median(runs) });
    }
    const out = [
      `CLI in CI: the Postman coverage collection (21 requests, 64 tests) on go-httpbin, process start to exit, median of ${REPEAT}`,
      `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, store ${stack.config.database.type}; import once: ${imported.ms.toFixed(0)} ms`,
      '',
      '| what | wall time | vs Newman |',
      '|---|---:|---:|',
      ...rows.map((r) => `| ${r.name} | ${r.ms.toFixed(0)} ms | ${(r.ms / rows[0]!.ms).toFixed(2)} |`),
    ].join('\n');
    process.stdout.write(`${out}\n`);
  } finally {
    await stack.stop();
    httpbin.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
