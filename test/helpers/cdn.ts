/**
 * A package CDN on loopback for bundler tests and benchmarks, shaped like unpkg: it serves the
 * real packages installed in node_modules.
 *
 *   GET /{name}@{version}/{file}   the file from node_modules/{name} (404 unless that version is
 *                                  the one installed); `name` may be scoped (`@turf/helpers`)
 *   GET /{name}, /{name}@{version} 302 to the package's ES module entry (package.json `exports`
 *                                  "." import/default, else `module`, else `main`), as unpkg
 *                                  answers bare package URLs
 *   GET /redirect?to={url}         302 to any URL
 *   GET /fixtures/{name}           a fixture module given to {@link startCdn}
 *   GET /slow.js                   headers only after `slowMs` (default 10 s; the socket is
 *                                  closed when the CDN closes)
 *   GET /big.js?bytes=N            N bytes of JavaScript, chunked (no Content-Length)
 *   GET /big-declared.js?bytes=N   the same with Content-Length
 *
 * Every request is counted by path (`hits`), so tests can tell whether something was fetched.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

const NODE_MODULES = path.resolve(__dirname, '../../../node_modules');

export interface Fixture {
  body: string;
  type?: string;
  status?: number;
}

export interface Cdn {
  /** `http://127.0.0.1:{port}` */
  url: string;
  port: number;
  /** Requests per path. */
  hits: Map<string, number>;
  /** All requests so far. */
  total(): number;
  close(): Promise<void>;
}

interface PackagePath {
  name: string;
  version?: string;
  file: string;
}

function parsePackagePath(pathname: string): PackagePath | undefined {
  const segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let index = 0;
  let scope = '';
  if (segments[0]?.startsWith('@')) {
    scope = `${segments[0]}/`;
    index = 1;
  }
  const head = segments[index];
  if (!head) return undefined;
  const at = head.indexOf('@');
  const name = scope + (at === -1 ? head : head.slice(0, at));
  return { name, version: at === -1 ? undefined : head.slice(at + 1), file: segments.slice(index + 1).join('/') };
}

function entryOf(pkg: { exports?: unknown; module?: string; main?: string }): string {
  let e: unknown = pkg.exports;
  if (e && typeof e === 'object' && '.' in e) e = (e as Record<string, unknown>)['.'];
  for (let depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const o = e as Record<string, unknown>;
    e = o.import ?? o.browser ?? o.default;
  }
  const chosen = typeof e === 'string' ? e : (pkg.module ?? pkg.main ?? 'index.js');
  return chosen.replace(/^\.\//, '');
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.cjs': 'text/javascript',
  '.json': 'application/json',
  '.css': 'text/css',
};

export async function startCdn(options: { fixtures?: Record<string, Fixture>; slowMs?: number } = {}): Promise<Cdn> {
  const hits = new Map<string, number>();
  const slow = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://cdn.local');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const send = (status: number, body: string | Buffer, type = 'text/plain', headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
      res.end(body);
    };
    if (url.pathname === '/redirect')
      return send(302, '', 'text/plain', { location: url.searchParams.get('to') ?? '/' });
    if (url.pathname === '/slow.js') {
      slow.add(res);
      const timer = setTimeout(
        () => send(200, 'export const late = true;', 'text/javascript'),
        options.slowMs ?? 10_000,
      );
      res.on('close', () => {
        clearTimeout(timer);
        slow.delete(res);
      });
      return;
    }
    if (url.pathname === '/big.js' || url.pathname === '/big-declared.js') {
      const bytes = Number(url.searchParams.get('bytes') ?? 2 * 1024 * 1024);
      const line = `// ${'x'.repeat(1020)}\n`;
      const lines = Math.ceil(bytes / line.length);
      if (url.pathname === '/big-declared.js') return send(200, line.repeat(lines), 'text/javascript');
      res.writeHead(200, { 'content-type': 'text/javascript' });
      let i = 0;
      const pump = () => {
        while (i < lines) {
          i++;
          if (!res.write(line)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => undefined);
      return pump();
    }
    if (url.pathname.startsWith('/fixtures/')) {
      const fixture = options.fixtures?.[url.pathname.slice('/fixtures/'.length)];
      if (!fixture) return send(404, 'no such fixture');
      return send(fixture.status ?? 200, fixture.body, fixture.type ?? 'text/javascript');
    }
    const p = parsePackagePath(url.pathname);
    const dir = p && path.join(NODE_MODULES, p.name);
    if (!p || !dir || !dir.startsWith(NODE_MODULES + path.sep) || !fs.existsSync(path.join(dir, 'package.json')))
      return send(404, 'Not found');
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      version: string;
      exports?: unknown;
      module?: string;
      main?: string;
    };
    if (p.version !== undefined && p.version !== pkg.version)
      return send(404, `Not found: ${p.name}@${p.version} (installed: ${pkg.version})`);
    if (p.version === undefined || p.file === '') {
      return send(302, '', 'text/plain', { location: `/${p.name}@${pkg.version}/${entryOf(pkg)}` });
    }
    const file = path.resolve(dir, p.file);
    if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile())
      return send(404, 'Not found');
    send(200, fs.readFileSync(file), TYPES[path.extname(file)] ?? 'application/octet-stream', {
      'cache-control': 'public, max-age=31536000',
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    total: () => [...hits.values()].reduce((a, b) => a + b, 0),
    async close() {
      for (const res of slow) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
