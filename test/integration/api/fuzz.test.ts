/**
 * Fuzz test of the API's input handling (docs/security.md "Input limits"): every route that takes a body
 * (found by walking the routers the API is built from, so a new endpoint is covered without
 * editing this file) gets deep nesting, wrong types, huge strings, malformed JSON and seeded
 * random mutations of a valid body; every listing gets crafted cursors. Nothing may answer 5xx, and
 * every error must be RFC 9457 problem+json with a `code`. Bounded: a few hundred requests, one
 * seed (FUZZ_SEED overrides it; the failure message names the seed, the request and the answer).
 */
import { expect } from 'chai';
import { createLogger } from '../../../src/logger';
import { startBundler } from '../../../bin/processes';
import { appRouters, startTestApp, type Reply, type TestApp } from '../../helpers/app';
import { seededRandom } from '../../../src/mock/chaos';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

/** mulberry32 (src/mock/chaos.ts): a small seeded generator, so a failure can be replayed. */
const rng = seededRandom;

interface Route {
  method: string;
  path: string;
}

/** Every method+path of the API's routers (the same routers createApp mounts). */
function apiRoutes(app: TestApp): Route[] {
  const routes: Route[] = [];
  for (const router of appRouters(app)) {
    for (const layer of router.stack) {
      for (const method of layer.methods) if (method !== 'HEAD') routes.push({ method, path: String(layer.path) });
    }
  }
  return routes;
}

const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const deepObject = (n: number) => `${'{"a":'.repeat(n)}{}${'}'.repeat(n)}`;

describe('Fuzz: every body endpoint and every listing (no 5xx; every error a problem with a code)', function () {
  this.timeout(300_000);
  let app: TestApp;
  const ids: Record<string, string> = {};
  const failures: string[] = [];
  let sent = 0;
  /** An `admin` key: members and keys are fuzzed past the scope check too (api/scopes.ts). */
  let adminKey: string;

  before(async () => {
    app = await startTestApp({
      env: { ASSAY_RATE_LIMIT_PER_MINUTE: '1000000', ASSAY_BUNDLER_RATE_LIMIT_PER_MINUTE: '1000000' },
    });
    adminKey = await app.issueKey('admin');
    const ok = async (res: Promise<Reply>) => {
      const r = await res;
      expect(r.status, JSON.stringify(r.body)).to.be.oneOf([200, 201]);
      return r.body;
    };
    await ok(app.request('POST', '/v1/environments', { name: 'local', variables: { base: 'http://127.0.0.1:9' } }));
    ids.environmentName = 'local';
    ids.testCaseId = (
      await ok(app.request('POST', '/v1/test-cases', { name: 'tc', folder: 'f', flow: [{ type: 'wait', ms: 1 }] }))
    ).id;
    await ok(app.request('POST', '/v1/runners', { name: 'r', folder: 'f' }));
    ids.runnerName = 'r';
    const d = await ok(
      app.request('POST', '/v1/deployments', {
        name: 'd',
        runner: 'r',
        environment: 'local',
        webhookEnabled: true,
        webhookRequireAuth: false,
        enabled: true,
      }),
    );
    ids.deploymentId = d.id;
    ids.webhookId = String(d.webhookUrl).split('/').pop()!;
    ids.designId = (
      await ok(
        app.request('POST', '/v1/designs', {
          method: 'GET',
          path: '/users/{id}',
          responses: [{ status: 200, code: 1, data: { id: 1 } }],
        }),
      )
    ).id;
    ids.runId =
      (await ok(app.request('POST', '/v1/runs', { runner: 'r', environment: 'local' }))).runId ?? 'run_missing';
  });
  after(async () => {
    await app?.stop();
  });

  /** A valid-looking body per route, mutated by the fuzzer. */
  const templates: Record<string, unknown> = {
    'POST /v1/environments': { name: 'e', variables: { a: '1' } },
    'PUT /v1/environments/:environmentName': { name: 'local', variables: { a: '1' } },
    'PATCH /v1/environments/:environmentName': { variables: { a: '1' } },
    'POST /v1/test-cases': {
      name: 't',
      folder: 'f',
      tags: ['x'],
      flow: [
        {
          type: 'api',
          request: { method: 'GET', url: '{{base}}/x' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
      dataSets: [{ name: 'd', type: 'json', data: [{ a: 1 }] }],
    },
    'PUT /v1/test-cases/:testCaseId': {
      name: 'tc',
      folder: 'f',
      flow: [{ type: 'if', condition: 'true', then: [{ type: 'wait', ms: 1 }] }],
    },
    'PATCH /v1/test-cases/:testCaseId': { tags: ['a'] },
    'POST /v1/runners': { name: 'r2', folder: 'f' },
    'POST /v1/runs': { runner: 'r', environment: 'local', variables: { a: '1' } },
    'POST /v1/deployments': {
      name: 'd2',
      runner: 'r',
      environment: 'local',
      schedule: '0 3 * * *',
      webhooks: { onComplete: [{ url: 'http://127.0.0.1:9/h', payload: { a: 1 } }] },
    },
    'PATCH /v1/deployments/:deploymentId': { schedule: '*/5 * * * *' },
    'POST /v1/designs': {
      method: 'GET',
      path: '/a/{b}',
      responses: [{ status: 200, code: 1, schema: { type: 'array', items: { type: 'string' } } }],
    },
    'PUT /v1/designs/:designId': {
      method: 'GET',
      path: '/users/{id}',
      responses: [{ status: 200, code: 1, data: {} }],
    },
    'PATCH /v1/designs/:designId': { name: 'n' },
    'POST /v1/designs/import': {
      openapi: '3.0.0',
      info: { title: 't' },
      paths: { '/x': { get: { responses: { 200: { description: 'ok' } } } } },
    },
    'POST /v1/mock-samples': { schema: { type: 'object', properties: { a: { type: 'string' } } } },
    'PUT /v1/mock-settings': { proxy: { url: 'http://127.0.0.1:9/base', mode: 'validate' }, seed: 1 },
    // Cloud metadata: the address policy refuses it (403) before any connection, so a mutation
    // that stays valid sends nothing off the machine.
    'POST /v1/relay': {
      method: 'POST',
      url: 'http://169.254.169.254/latest',
      headers: [['Content-Type', 'text/plain']],
      body: 'x',
      bodyEncoding: 'utf8',
      timeoutMs: 1000,
    },
    'POST /webhooks/deploy/:webhookId': { trigger: 'ci', metadata: { a: 1 } },
  };

  function fill(path: string): string {
    return path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(ids[name] ?? `no-such-${name}`));
  }

  async function send(
    method: string,
    path: string,
    raw: string | undefined,
    label: string,
    base?: string,
  ): Promise<void> {
    sent++;
    let res: Reply;
    if (base) {
      // Another service (the bundler): same checks, its own address.
      const answer = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json' },
        body: raw,
      });
      const text = await answer.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep the text */
      }
      res = { status: answer.status, headers: answer.headers, body };
    } else {
      res = await app.request(method, path, undefined, {
        key: adminKey,
        raw,
        headers: raw === undefined ? {} : { 'content-type': 'application/json' },
      });
    }
    const where = `seed ${SEED}: ${method} ${path} [${label}] body ${String(raw).slice(0, 120)} → ${res.status} ${String(JSON.stringify(res.body)).slice(0, 300)}`;
    if (res.status >= 500) failures.push(where);
    else if (res.status >= 400) {
      const type = res.headers.get('content-type') ?? '';
      if (
        !/^application\/problem\+json/.test(type) ||
        typeof res.body?.code !== 'string' ||
        res.body.status !== res.status
      )
        failures.push(`${where} (not problem+json)`);
      if (/call stack/i.test(JSON.stringify(res.body))) failures.push(`${where} (leaks a stack message)`);
    }
  }

  /** Random JSON values of every type, some huge, some deep. */
  function randomValue(r: () => number, depth = 0): unknown {
    const k = Math.floor(r() * 12);
    switch (k) {
      case 0:
        return null;
      case 1:
        return r() < 0.5;
      case 2:
        return Math.floor(r() * 2 ** 53) * (r() < 0.5 ? -1 : 1);
      case 3:
        return r() * 1e308;
      case 4:
        return 'x'.repeat(Math.floor(r() * 300_000));
      case 5:
        return '\u0000\ud800{{}}${}`<script>'.repeat(1 + Math.floor(r() * 50));
      case 6:
        return depth < 3 ? Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1)) : [];
      case 7:
        return depth < 3
          ? Object.fromEntries(
              Array.from({ length: Math.floor(r() * 4) }, (_, i) => [`k${i}`, randomValue(r, depth + 1)]),
            )
          : {};
      case 8:
        return JSON.parse(deepArray(40 + Math.floor(r() * 200)));
      case 9:
        return { $ref: '#' };
      case 10:
        return 1e21;
      default:
        return '';
    }
  }

  /** The template with one field (at any depth) replaced by a random value. */
  function mutate(template: unknown, r: () => number): unknown {
    const copy = JSON.parse(JSON.stringify(template ?? {})) as unknown;
    const containers: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) {
        node.forEach((v, i) => {
          containers.push({ parent: node, key: i });
          walk(v);
        });
      } else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          containers.push({ parent: node as Record<string, unknown>, key: k });
          walk(v);
        }
      }
    };
    walk(copy);
    if (containers.length === 0) return randomValue(r);
    const { parent, key } = containers[Math.floor(r() * containers.length)]!;
    (parent as Record<string | number, unknown>)[key] = randomValue(r);
    return copy;
  }

  it('walks the routers and finds the body endpoints', function () {
    const routes = apiRoutes(app);
    const bodies = routes.filter((rt) => ['POST', 'PUT', 'PATCH'].includes(rt.method));
    expect(bodies.length).to.be.greaterThan(15);
    for (const rt of bodies) expect(rt.path).to.match(/^\/(v1|webhooks|codec|callbacks|auth)\//);
  });

  it('answers no 5xx and only problem+json errors on every body endpoint', async function () {
    const r = rng(SEED);
    const bodies = apiRoutes(app).filter((rt) => ['POST', 'PUT', 'PATCH'].includes(rt.method));
    for (const rt of bodies) {
      const path = fill(rt.path);
      const template = templates[`${rt.method} ${rt.path}`] ?? {};
      const fixed: Array<[string, string]> = [
        ['deep array', deepArray(6_000)],
        ['deep object', deepObject(5_000)],
        ['deep inside', JSON.stringify(template).replace(/^\{/, `{"zz":${deepArray(3_000)},`)],
        ['wrong top-level type', JSON.stringify(['not', 'an', 'object'])],
        ['string', '"hello"'],
        ['malformed', '{"a":'],
        ['huge string', JSON.stringify({ ...(template as object), name: 'n'.repeat(900_000) })],
        ['too large', `{"a":"${'x'.repeat(1_100_000)}"}`],
      ];
      for (const [label, raw] of fixed) await send(rt.method, path, raw, label);
      for (let i = 0; i < 6; i++) await send(rt.method, path, JSON.stringify(mutate(template, r)), `mutation ${i}`);
    }
    expect(sent).to.be.within(200, 1000);
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it("answers no 5xx and only problem+json errors on the bundler's body endpoint", async function () {
    const bundler = await startBundler(app.config, app.dataSource, createLogger('silent', 'fuzz-bundler'));
    try {
      const r = rng(SEED + 2);
      // Only loopback URLs: the bundler refuses them (403) before any fetch, so nothing leaves the machine.
      const template = { url: 'http://127.0.0.1:9/lib.js', globalName: 'lib', minify: true };
      const fixed = [
        deepArray(6_000),
        deepObject(5_000),
        `{"url":${deepArray(100)}}`,
        '[]',
        '"x"',
        '{"url":',
        JSON.stringify({ url: `http://127.0.0.1:9/${'a'.repeat(70_000)}` }),
      ];
      for (const raw of fixed) await send('POST', '/api/bundle', raw, 'fixed', bundler.url);
      for (let i = 0; i < 10; i++)
        await send('POST', '/api/bundle', JSON.stringify(mutate(template, r)), `mutation ${i}`, bundler.url);
    } finally {
      await bundler.close();
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('answers crafted cursors on every listing with 400 problems, never 5xx', async function () {
    const listings = apiRoutes(app).filter(
      (rt) => rt.method === 'GET' && !rt.path.includes(':') && rt.path.startsWith('/v1/'),
    );
    expect(listings.map((l) => l.path)).to.include.members([
      '/v1/environments',
      '/v1/runners',
      '/v1/deployments',
      '/v1/runs',
      '/v1/test-cases',
      '/v1/designs',
    ]);
    const r = rng(SEED + 1);
    const cursors = [
      'e30',
      'W251bGwsbnVsbF0',
      '%%%',
      'AAAA',
      Buffer.from('[[[[[]]]]]').toString('base64url'),
      Buffer.from('["2026-01-01T00:00:00Z",{}]').toString('base64url'),
    ];
    for (let i = 0; i < 4; i++)
      cursors.push(
        Buffer.from(JSON.stringify(randomValue(r)))
          .toString('base64url')
          .slice(0, 3000),
      );
    for (const l of listings)
      for (const c of cursors)
        await send(
          'GET',
          `${l.path}?cursor=${encodeURIComponent(c)}&limit=${Math.floor(r() * 400) - 100}`,
          undefined,
          'cursor',
        );
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });
});
