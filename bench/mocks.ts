/**
 * `make bench` part 3: the mock service's throughput and latency, with autocannon (its own
 * process, 50 connections, BENCH_MOCK_SECONDS each, default 8), side by side with a bare
 * `node:http` server that returns the same bytes:
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
import { startLocalStack, type LocalStack } from '../bin/local-stack';

const SECONDS = Number(process.env.BENCH_MOCK_SECONDS ?? 8);
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
  try {
    log('creating 1,002 designs');
    await designs(stack);
    const [ws] = (await stack.call<{ items: Array<{ id: string }> }>('GET', '/v1/workspaces')).items;
    const mock = `${stack.apiUrl}/mock/${ws!.id}`;
    await fetch(`${mock}/static`); // builds the router once
    const rows: Array<{ name: string; r: Load }> = [];
    for (const [name, url] of [
      ['bare node:http, same bytes', bare.url],
      ['Assay mock, static', `${mock}/static`],
      ['Assay mock, dynamic (param + 2 faker calls)', `${mock}/users/42`],
      ['Assay mock, parameterised among 1,000 designs', `${mock}/svc500/items/42`],
    ] as const) {
      log(`autocannon ${name}`);
      rows.push({ name, r: await load(url) });
    }
    const bareRps = rows[0]!.r.rps;
    const out = [
      `Mock throughput: autocannon -c 50 -d ${SECONDS} from a separate process (${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version})`,
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
