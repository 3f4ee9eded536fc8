/**
 * `make bench` part 3: the mock service's throughput and latency, with autocannon (its own
 * process, 50 connections, BENCH_MOCK_SECONDS each, default 8), side by side with a bare
 * `node:http` server that returns the same bytes and with Prism (bench/peers.ts: installed on
 * demand into ~/.cache/assay/peers, its own process, serving the same body as the example of an
 * OpenAPI document; BENCH_MOCK_PRISM=0 leaves it out). BENCH_MOCK_ROUNDS (default 1) goes through
 * all the lines that many times, alternating, and reports each line's median round (a shared
 * machine's load then falls on every line alike):
 *
 * - static: a fixed JSON response (target: at least 0.8 of the bare server's requests/s);
 * - dynamic: a path parameter and two faker placeholders filled per request;
 * - parameterised: a path with a parameter, matched among 1,000 designs.
 *
 * Prints a Markdown table for docs/benchmarks.md. Everything binds to loopback.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import { startLocalStack, type LocalStack } from '../bin/local-stack';
import { freePort } from '../src/net/free-port';
import { ensurePeer, PRISM, startPeer, type RunningPeer } from './peers';

const SECONDS = Number(process.env.BENCH_MOCK_SECONDS ?? 8);
/** Rounds through all lines (BENCH_MOCK_ROUNDS, default 1); each line reports its median round. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_MOCK_ROUNDS ?? 1));
const STATIC_DATA = { id: 1, name: 'Ada Lovelace', email: 'ada@example.com', roles: ['admin', 'author'], active: true };

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Runs autocannon as a separate process (so load and server do not share an event loop). */
async function load(url: string): Promise<Load> {
  const bin = path.resolve(__dirname, '../../node_modules/.bin/autocannon');
  const child = spawn(bin, ['-c', '50', '-d', String(SECONDS), '-j', url], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((r) => child.once('exit', r));
  const r = JSON.parse(out) as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors };
}

async function bareServer(): Promise<{ url: string; close(): void }> {
  const body = JSON.stringify(STATIC_DATA);
  const server = http.createServer((_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/users`, close: () => server.close() };
}

/** Prism serving an OpenAPI 3.0 document whose `GET /static` has STATIC_DATA as its example (static mode, logs at `error`). */
async function prism(log: (m: string) => void): Promise<{ url: string; peer: RunningPeer }> {
  const bin = await ensurePeer(PRISM, log);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-prism-'));
  const doc = path.join(dir, 'openapi.json');
  fs.writeFileSync(
    doc,
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'bench', version: '1' },
      paths: {
        '/static': {
          get: {
            responses: { '200': { description: 'ok', content: { 'application/json': { example: STATIC_DATA } } } },
          },
        },
      },
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/static`;
  const peer = await startPeer(bin, ['mock', doc, '-p', String(port), '-h', '127.0.0.1', '-v', 'error'], url);
  return { url, peer };
}

async function designs(stack: LocalStack): Promise<void> {
  await stack.call('POST', '/v1/designs', {
    method: 'GET',
    path: '/static',
    responses: [{ status: 200, code: 1, data: STATIC_DATA }],
  });
  await stack.call('POST', '/v1/designs', {
    method: 'GET',
    path: '/users/{userId}',
    responses: [
      {
        status: 200,
        code: 1,
        dynamic: true,
        data: { id: '{{userId}}', name: '{{faker.person.fullName}}', email: '{{faker.internet.email}}', active: true },
      },
    ],
  });
  for (let i = 0; i < 1000; i++) {
    await stack.call('POST', '/v1/designs', {
      method: 'GET',
      path: `/svc${i}/items/{itemId}`,
      responses: [{ status: 200, code: 1, data: { svc: i, ok: true } }],
    });
  }
}

async function main(): Promise<void> {
  const log = (m: string) => process.stderr.write(`${m}\n`);
  const stack = await startLocalStack({ ASSAY_RATE_LIMIT_PER_MINUTE: '1000000', ASSAY_MOCK_REVALIDATE_MS: '60000' });
  const bare = await bareServer();
  let peer: RunningPeer | undefined;
  try {
    log('creating 1,002 designs');
    await designs(stack);
    const [ws] = (await stack.call<{ items: Array<{ id: string }> }>('GET', '/v1/workspaces')).items;
    const mock = `${stack.apiUrl}/mock/${ws!.id}`;
    await fetch(`${mock}/static`); // builds the router once
    const lines: Array<[string, string]> = [
      ['bare node:http, same bytes', bare.url],
      ['Assay mock, static', `${mock}/static`],
      ['Assay mock, dynamic (param + 2 faker calls)', `${mock}/users/42`],
      ['Assay mock, parameterised among 1,000 designs', `${mock}/svc500/items/42`],
    ];
    if (process.env.BENCH_MOCK_PRISM !== '0') {
      const p = await prism(log);
      peer = p.peer;
      lines.push([`Prism ${PRISM.version}, static example`, p.url]);
    }
    // Rounds through every line, the lines' figures the median round's (by requests/s): on a shared
    // machine the load of the moment moves every line, and alternating spreads it over all of them.
    const runs: Load[][] = lines.map(() => []);
    for (let round = 1; round <= ROUNDS; round++)
      for (const [i, [name, url]] of lines.entries()) {
        log(`autocannon ${name}${ROUNDS > 1 ? ` (round ${round}/${ROUNDS})` : ''}`);
        runs[i]!.push(await load(url));
      }
    const rows = lines.map(([name], i) => {
      const sorted = [...runs[i]!].sort((a, b) => a.rps - b.rps);
      return { name, r: sorted[Math.floor((sorted.length - 1) / 2)]! };
    });
    const bareRps = rows[0]!.r.rps;
    const out = [
      `Mock throughput: autocannon -c 50 -d ${SECONDS}${ROUNDS > 1 ? `, median of ${ROUNDS} alternating rounds` : ''} from a separate process (${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version})`,
      '',
      '| what | requests/s | vs bare | p50 | p99 | errors |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows.map(
        ({ name, r }) =>
          `| ${name} | ${Math.round(r.rps)} | ${(r.rps / bareRps).toFixed(2)} | ${r.p50} ms | ${r.p99} ms | ${r.errors} |`,
      ),
    ].join('\n');
    process.stdout.write(`${out}\n`);
  } finally {
    await peer?.stop();
    bare.close();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
