/**
 * `make bench` part 2: the cost of one `beforeRequest` hook that uses `_` and `faker`, cold and
 * warm, beside postman-sandbox (what Postman and Newman run scripts in) doing the same work.
 *
 * - Assay cold: the first hook of a new run (a new context in a warm isolate, runtime and built-in
 *   libraries loaded, then the hook). Assay warm: later hooks of the same run.
 * - postman-sandbox cold: `createContext` and one `execute`; warm: more `execute`s on that context.
 *   postman-sandbox has no `faker` global; Postman scripts get fake data through dynamic variables
 *   (`pm.variables.replaceIn('{{$randomFirstName}}')`, faker inside), so that stands in for it.
 *
 * Prints p50 and p99 in milliseconds as a Markdown table for docs/benchmarks.md.
 */
import os from 'node:os';
import { Sandbox } from '../src/sandbox/sandbox';

const COLD = Number(process.env.BENCH_COLD ?? 40);
const WARM = Number(process.env.BENCH_WARM ?? 500);

const ASSAY_HOOK = `async function beforeRequest() {
  $request.headers['X-User'] = faker.person.firstName();
  $request.headers['X-Batch'] = _.chunk(_.range(10), 3).map((c) => c.join('-')).join(',');
}`;
const POSTMAN_SCRIPT = `
pm.request.headers.upsert({ key: 'X-User', value: pm.variables.replaceIn('{{$randomFirstName}}') });
pm.request.headers.upsert({ key: 'X-Batch', value: _.chunk(_.range(10), 3).map((c) => c.join('-')).join(',') });
`;

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function assay(): Promise<{ cold: number[]; warm: number[] }> {
  const sandbox = new Sandbox({ spareIsolates: 2 });
  const request = { method: 'GET', url: 'http://127.0.0.1/x', headers: {} };
  const hook = async (runId: string) => {
    const r = await sandbox.execute({
      runId,
      script: { code: ASSAY_HOOK },
      hook: 'beforeRequest',
      request,
      variables: {},
      label: 'bench',
    });
    if (!r.ok || !r.request?.headers['X-User']) throw new Error(`hook failed: ${JSON.stringify(r.error)}`);
  };
  await hook('warmup'); // compiles and caches the library code once per process
  await sandbox.releaseRun('warmup');
  const cold: number[] = [];
  for (let i = 0; i < COLD; i++) {
    cold.push(await timed(() => hook(`cold-${i}`)));
    await sandbox.releaseRun(`cold-${i}`);
    await new Promise((r) => setTimeout(r, 20)); // let the spare isolates refill, as between runs
  }
  const warm: number[] = [];
  for (let i = 0; i < WARM; i++) warm.push(await timed(() => hook('warm')));
  await sandbox.dispose();
  return { cold, warm };
}

async function postman(): Promise<{ cold: number[]; warm: number[] }> {
  // postman-sandbox is CommonJS without types.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const PostmanSandbox = require('postman-sandbox') as {
    createContext(o: object, cb: (err: Error | null, ctx: PostmanContext) => void): void;
  };
  interface PostmanContext {
    execute(target: string, options: object, cb: (err: Error | null, result: unknown) => void): void;
    dispose(): void;
  }
  const context = { request: { url: 'http://127.0.0.1/x', method: 'GET', header: [] } };
  const create = () =>
    new Promise<PostmanContext>((resolve, reject) =>
      PostmanSandbox.createContext({ timeout: 10_000 }, (err, ctx) => (err ? reject(err) : resolve(ctx))),
    );
  const exec = (ctx: PostmanContext) =>
    new Promise<void>((resolve, reject) =>
      ctx.execute(POSTMAN_SCRIPT, { context, timeout: 5000 }, (err) => (err ? reject(err) : resolve())),
    );
  const cold: number[] = [];
  for (let i = 0; i < Math.min(COLD, 20); i++) {
    let ctx: PostmanContext | undefined;
    cold.push(
      await timed(async () => {
        ctx = await create();
        await exec(ctx);
      }),
    );
    ctx?.dispose();
  }
  const ctx = await create();
  const warm: number[] = [];
  await exec(ctx);
  for (let i = 0; i < WARM; i++) warm.push(await timed(() => exec(ctx)));
  ctx.dispose();
  return { cold, warm };
}

async function main(): Promise<void> {
  const a = await assay();
  const p = await postman();
  const row = (name: string, v: number[]) =>
    `| ${name} | ${v.length} | ${percentile(v, 50).toFixed(2)} ms | ${percentile(v, 99).toFixed(2)} ms |`;
  const out = [
    `One beforeRequest hook using _ and faker (Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'})`,
    '',
    '| what | samples | p50 | p99 |',
    '|---|---:|---:|---:|',
    row('Assay sandbox, cold (first hook of a run: new context, libraries loaded)', a.cold),
    row('Assay sandbox, warm (later hooks of the run)', a.warm),
    row('postman-sandbox 6.7.4, cold (createContext + execute)', p.cold),
    row('postman-sandbox 6.7.4, warm (execute on a ready context)', p.warm),
    '',
    `Warm p50 ratio Assay / postman-sandbox: ${(percentile(a.warm, 50) / percentile(p.warm, 50)).toFixed(2)}; cold: ${(percentile(a.cold, 50) / percentile(p.cold, 50)).toFixed(2)}`,
  ].join('\n');
  process.stdout.write(`${out}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
