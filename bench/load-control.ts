/**
 * `make bench`: control latency of a running performance run (docs/performance.md "Steering a
 * running test"): from `POST /v1/runs/{id}/control` sent to the command applied on every shard
 * (each shard's stored snapshot says which command its parts applied and when: `position.control`,
 * activities/load.ts), p50 / p99 / max over COMMANDS commands (pause and resume in turn), and the
 * API's answer time (the `loadControl` update applied and published). One local stack (API and
 * worker in this process, dev Temporal server), a constant-vus profile of SHARDS shards against a
 * loopback server. Everything binds to loopback; the loop is bounded.
 *
 * Env: BENCH_CONTROL_COMMANDS (20), BENCH_CONTROL_SHARDS (2), BENCH_CONTROL_VUS (4).
 * Prints a Markdown table for docs/benchmarks.md.
 */
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { startLocalStack } from '../bin/local-stack';
import { openDataSource } from '../src/store/data-source';
import { RunLoadShard } from '../src/store/entities';
import type { ShardControl } from '../activities/load';

const COMMANDS = Number(process.env.BENCH_CONTROL_COMMANDS ?? 20);
const SHARDS = Number(process.env.BENCH_CONTROL_SHARDS ?? 2);
const VUS = Number(process.env.BENCH_CONTROL_VUS ?? 4);
const NAME = `control-${process.pid}-${Date.now()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The `q` quantile (0–1) of `values`, nearest rank. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

async function main(): Promise<void> {
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const server = http.createServer((_req, res) => setTimeout(() => res.end('{"ok":true}'), 5));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stack = await startLocalStack({ ASSAY_LOAD_SHARDS_PER_WORKER: String(SHARDS) });
  const db = await openDataSource(stack.config.database);
  try {
    await stack.call('POST', '/v1/environments', { name: NAME, variables: { base: url } });
    await stack.call('POST', '/v1/test-cases', {
      name: NAME,
      folder: NAME,
      flow: [{ type: 'api', request: { method: 'GET', url: '{{base}}/x' } }],
    });
    await stack.call('POST', '/v1/runners', { name: NAME, folder: NAME });
    const { runId } = await stack.call<{ runId: string }>('POST', '/v1/runs', {
      runner: NAME,
      environment: NAME,
      timeout: 900,
      performance: { executor: 'constant-vus', vus: VUS, duration: '10m', shards: SHARDS, thinkTime: '20ms' },
    });
    const shards = () => db.getRepository(RunLoadShard).findBy({ runId });
    for (let until = Date.now() + 60_000; ; await sleep(200)) {
      const rows = await shards();
      if (rows.length === SHARDS && rows.every((s) => s.metrics.all.requests > 0)) break;
      if (Date.now() > until) throw new Error('the shards did not start within 60 s');
    }
    const applied: number[] = [];
    const answered: number[] = [];
    for (let i = 0; i < COMMANDS; i++) {
      const action = i % 2 === 0 ? 'pause' : 'resume';
      const sentAt = Date.now();
      const { control } = await stack.call<{ control: { seq: number } }>('POST', `/v1/runs/${runId}/control`, {
        action,
      });
      answered.push(Date.now() - sentAt);
      for (let until = Date.now() + 10_000; ; await sleep(50)) {
        const rows = await shards();
        const seen = rows.map((s) => (s.position as { control?: ShardControl }).control);
        if (seen.length === SHARDS && seen.every((c) => (c?.seq ?? 0) >= control.seq)) {
          applied.push(Math.max(...seen.map((c) => c!.appliedAt)) - sentAt);
          break;
        }
        if (Date.now() > until) throw new Error(`command ${control.seq} not applied on every shard within 10 s`);
      }
      await sleep(300);
    }
    await stack.call('POST', `/v1/runs/${runId}/control`, { action: 'stop' });
    const row = (name: string, v: number[]) =>
      `| ${name} | ${quantile(v, 0.5)} | ${quantile(v, 0.99)} | ${Math.max(...v)} |`;
    const out = [
      `### Control latency (${COMMANDS} commands, pause and resume in turn, ${SHARDS} shards, ${VUS} VUs)`,
      '',
      '| ms | p50 | p99 | max |',
      '| --- | ---: | ---: | ---: |',
      row('API answer (update applied and published)', answered),
      row('command sent → applied on every shard', applied),
      '',
      `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, store ${stack.config.database.type}; shards poll every 500 ms (CONTROL_POLL_MS).`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    log('stopping');
    await db.destroy().catch(() => undefined);
    await stack.stop();
    server.closeAllConnections();
    server.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
