/**
 * Input bounds (docs/security.md "Input limits"; docs/spec-choices.md "Input bounds") against a real API on loopback, a real
 * MariaDB/MySQL store and a real Temporal (schedules):
 *
 * - JSON nested deeper than 31 levels is 400 `too-deep` on every kind of body (test cases, IF
 *   trees, assertions, data sets, designs, deployments' webhook payloads, incoming-webhook
 *   metadata, imported OpenAPI documents in JSON and YAML), never a 500 nor a stack message;
 *   self-referencing schemas are 400 naming the field;
 * - crafted cursors are 400 `bad-cursor` on every listing;
 * - after a 413 for an oversized chunked body the keep-alive connection is closed, so the next
 *   request on the same pool gets an answer;
 * - design paths with dot segments are refused naming `path`;
 * - mock samples over the caps are 422 `sample-too-large`, quickly and as problem+json;
 * - cron expressions Temporal refuses (`0 0 ? * *`) are 400 naming `schedule`, nothing stored.
 */
import net from 'node:net';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { Pool } from 'undici';
import { startTestApp, type Reply, type TestApp } from '../../helpers/app';

function expectProblem(res: Reply, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).to.equal(status);
  expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
  expect(res.body).to.include({ status, code, type: `/problems/${code}` });
  expect(JSON.stringify(res.body)).not.to.match(/call stack/i);
}

/** JSON text of arrays nested `n` deep: `[[[…]]]`. */
const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
/** JSON text of objects nested `n` deep: `{"a":{"a":…{}}}`. */
const deepObject = (n: number) => `${'{"a":'.repeat(n)}{}${'}'.repeat(n)}`;

describe('Input bounds (JSON depth, cursors, 413 keep-alive, design paths, sample caps, cron)', function () {
  this.timeout(120_000);
  let app: TestApp;
  const post = (path: string, raw: string, headers: Record<string, string> = {}) =>
    app.request('POST', path, undefined, { raw, headers: { 'content-type': 'application/json', ...headers } });

  before(async () => {
    app = await startTestApp();
    expect((await app.request('POST', '/v1/environments', { name: 'local', variables: {} })).status).to.equal(201);
    const tc = await app.request('POST', '/v1/test-cases', {
      name: 'one',
      folder: 'f',
      flow: [{ type: 'wait', ms: 1 }],
    });
    expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
    expect((await app.request('POST', '/v1/runners', { name: 'r', folder: 'f' })).status).to.equal(201);
  });
  after(async () => {
    await app?.stop();
  });

  describe('deep JSON', () => {
    const api = (extra: string) => `{"type":"api","request":{"method":"GET","url":"http://127.0.0.1:9/x"}${extra}}`;
    const cases: Array<[string, string, string]> = [
      [
        'a test case body',
        '/v1/test-cases',
        `{"name":"deep","flow":[${api(`,"assertions":[{"target":"response.body","operator":"equals","expected":${deepArray(10_000)}}]`)}]}`,
      ],
      [
        'an IF tree',
        '/v1/test-cases',
        `{"name":"deep-if","flow":[${'{"type":"if","condition":"true","then":['.repeat(3_000)}{"type":"wait","ms":1}${']}'.repeat(3_000)}]}`,
      ],
      [
        'a data set',
        '/v1/test-cases',
        `{"name":"deep-ds","flow":[{"type":"wait","ms":1}],"dataSets":[{"name":"d","type":"json","data":[{"v":${deepObject(6_000)}}]}]}`,
      ],
      [
        'a design',
        '/v1/designs',
        `{"method":"GET","path":"/deep","responses":[{"status":200,"code":1,"data":${deepArray(8_000)}}]}`,
      ],
      [
        'a design schema',
        '/v1/designs',
        `{"method":"GET","path":"/deep2","responses":[{"status":200,"code":1,"schema":${'{"type":"array","items":'.repeat(2_000)}{}${'}'.repeat(2_000)}}]}`,
      ],
      [
        'a deployment webhook payload',
        '/v1/deployments',
        `{"name":"deep","runner":"r","environment":"local","webhooks":{"onComplete":[{"url":"http://127.0.0.1:9/h","payload":${deepObject(7_000)}}]}}`,
      ],
      ['a mock-samples schema', '/v1/mock-samples', `{"schema":${deepObject(9_000)}}`],
      [
        'an OpenAPI import',
        '/v1/designs/import',
        `{"openapi":"3.0.0","info":{"title":"t"},"paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"example":${deepArray(6_000)}}}}}}}}}`,
      ],
      ['a run body', '/v1/runs', `{"runner":"r","environment":"local","variables":{"v":${deepArray(10_000)}}}`],
    ];
    for (const [what, path, raw] of cases) {
      it(`refuses ${what} nested thousands deep with 400 too-deep`, async () => {
        const res = await post(path, raw);
        expectProblem(res, 400, 'too-deep');
        expect(res.body.limit).to.equal(31);
        expect(res.body.errors[0].pointer).to.match(/^#\//);
      });
    }

    it('accepts 31 levels (what every store keeps) and refuses 32, naming where', async () => {
      // body(1) → dataSets(2) → [0](3) → data(4) → [0](5) → v: k arrays at depths 6 … 5+k.
      const at = (depth: number) =>
        `{"name":"depth-${depth}","flow":[{"type":"wait","ms":1}],"dataSets":[{"name":"d","type":"json","data":[{"v":${deepArray(depth - 5)}}]}]}`;
      const ok = await post('/v1/test-cases', at(31));
      expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).to.equal(201);
      const deep = await post('/v1/test-cases', at(32));
      expectProblem(deep, 400, 'too-deep');
      expect(deep.body.errors[0].pointer).to.match(/^#\/dataSets\/0\/data\/0\/v(\/0)+$/);
    });

    it('refuses a YAML import nested thousands deep (the YAML parser would overflow its stack)', async () => {
      const yaml = `openapi: 3.0.0\ninfo: {title: t}\npaths:\n  /x:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              example: ${deepArray(5_000)}\n`;
      const res = await app.request('POST', '/v1/designs/import', { document: yaml });
      expectProblem(res, 400, 'too-deep');
      expect(res.body.errors[0].field).to.match(/^document/);
    });

    it('refuses incoming-webhook metadata nested thousands deep', async () => {
      const d = await app.request('POST', '/v1/deployments', {
        name: 'hook',
        runner: 'r',
        environment: 'local',
        webhookEnabled: true,
        webhookRequireAuth: false,
      });
      expect(d.status, JSON.stringify(d.body)).to.equal(201);
      const url = new URL(d.body.webhookUrl as string);
      const res = await app.request('POST', url.pathname, undefined, {
        key: null,
        raw: `{"metadata":${deepObject(8_000)}}`,
        headers: { 'content-type': 'application/json' },
      });
      expectProblem(res, 400, 'too-deep');
      const runs = await app.request('GET', `/v1/runs?deployment=${d.body.id}`);
      expect(runs.body.items).to.have.length(0);
      // The body is stored whole as the run's context: 31 levels (body 1, metadata 2, …) must store.
      const fits = await app.request('POST', url.pathname, undefined, {
        key: null,
        raw: `{"metadata":${deepObject(29)}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(fits.status, JSON.stringify(fits.body)).to.equal(200);
      const tooDeepByOne = await app.request('POST', url.pathname, undefined, {
        key: null,
        raw: `{"metadata":${deepObject(30)}}`,
        headers: { 'content-type': 'application/json' },
      });
      expectProblem(tooDeepByOne, 400, 'too-deep');
    });

    it('refuses schemas that refer back to themselves in place (they never finish validating), and accepts tree schemas', async () => {
      for (const schema of [
        { $ref: '#' },
        { allOf: [{ $ref: '#' }] },
        { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
      ]) {
        const sample = await app.request('POST', '/v1/mock-samples', { schema });
        expectProblem(sample, 400, 'validation-failed');
        expect(sample.body.errors[0].field).to.equal('schema');
        const design = await app.request('POST', '/v1/designs', {
          method: 'GET',
          path: '/loop',
          responses: [{ status: 200, code: 1, schema }],
        });
        expectProblem(design, 400, 'validation-failed');
        expect(design.body.errors[0].field).to.equal('responses[0].schema');
        const tc = await app.request('POST', '/v1/test-cases', {
          name: 'loop',
          flow: [
            {
              type: 'api',
              request: { method: 'GET', url: 'http://127.0.0.1:9/' },
              assertions: [{ target: 'response.body', operator: 'matchesSchema', expected: schema }],
            },
          ],
        });
        expectProblem(tc, 400, 'validation-failed');
        expect(tc.body.errors[0].field).to.match(/assertions\[0\]/);
      }
      const tree = {
        type: 'object',
        properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      };
      const ok = await app.request('POST', '/v1/mock-samples', { schema: tree });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      expect(ok.body.data).to.have.property('name');
      const design = await app.request('POST', '/v1/designs', {
        method: 'GET',
        path: '/tree',
        responses: [{ status: 200, code: 1, schema: tree }],
      });
      expect(design.status, JSON.stringify(design.body)).to.equal(201);
    });
  });

  describe('paging cursors', () => {
    const listings = [
      '/v1/environments',
      '/v1/runners',
      '/v1/deployments',
      '/v1/test-cases',
      '/v1/designs',
      '/v1/runs',
    ];
    const crafted = [
      'e30', // {}
      'W251bGwsbnVsbF0', // [null,null]
      Buffer.from('[1,2]').toString('base64url'),
      Buffer.from('["a","b","c"]').toString('base64url'),
      Buffer.from('null').toString('base64url'),
      Buffer.from('{"a":1}').toString('base64url'),
      '%%%',
      'bm90IGpzb24',
      'A'.repeat(5000),
    ];
    /** Well-formed cursors of another listing's shape. */
    const otherShape: Record<string, string[]> = {
      name: [Buffer.from('["a","b"]').toString('base64url'), Buffer.from('""').toString('base64url')],
      pair: [Buffer.from('"x"').toString('base64url')],
      'time-id': [Buffer.from('"x"').toString('base64url'), Buffer.from('["not a date","x"]').toString('base64url')],
    };
    const shapeOf = (listing: string) =>
      listing === '/v1/runs' ? 'time-id' : ['/v1/test-cases', '/v1/designs'].includes(listing) ? 'pair' : 'name';
    for (const listing of listings) {
      it(`answers 400 bad-cursor on ${listing} for cursors it never returned`, async () => {
        for (const c of [...crafted, ...otherShape[shapeOf(listing)]!]) {
          const res = await app.request('GET', `${listing}?cursor=${c}`);
          expectProblem(res, 400, 'bad-cursor');
          expect(res.body.errors[0]).to.include({ field: 'cursor' });
        }
        expectProblem(await app.request('GET', `${listing}?cursor=e30&cursor=e30`), 400, 'bad-cursor');
      });
    }

    it('still pages with the cursors it returns', async () => {
      for (const name of ['p1', 'p2', 'p3']) await app.request('POST', '/v1/environments', { name, variables: {} });
      const seen: string[] = [];
      let next: string | null = null;
      for (let i = 0; i < 10; i++) {
        const res: Reply = await app.request('GET', `/v1/environments?limit=1${next ? `&cursor=${next}` : ''}`);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        seen.push(...res.body.items.map((e: { name: string }) => e.name));
        next = res.body.nextCursor;
        if (!next) break;
      }
      expect(seen).to.include.members(['local', 'p1', 'p2', 'p3']);
    });
  });

  describe('413 on a keep-alive connection', () => {
    it('closes the connection after a 413 for an oversized chunked body, and a pool reusing it gets its next answer', async () => {
      const pool = new Pool(app.url, { connections: 1, pipelining: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
      try {
        const big = Buffer.alloc(2 * 1024 * 1024, 'a');
        async function* chunks() {
          yield Buffer.from('{"name":"');
          for (let i = 0; i < big.length; i += 64 * 1024) yield big.subarray(i, i + 64 * 1024);
          yield Buffer.from('"}');
        }
        const first = await pool
          .request({
            path: '/v1/environments',
            method: 'POST',
            headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json' },
            body: Readable.from(chunks()),
          })
          .catch((err: Error) => err);
        if (!(first instanceof Error)) {
          expect(first.statusCode).to.equal(413);
          expect(String(first.headers['content-type'])).to.match(/^application\/problem\+json/);
          expect(first.headers.connection).to.equal('close');
          await first.body.text();
        }
        const second = await pool.request({
          path: '/v1/environments',
          method: 'GET',
          headers: { authorization: `Bearer ${app.key}` },
        });
        expect(second.statusCode).to.equal(200);
        await second.body.json();
      } finally {
        await pool.close();
      }
    });

    it('on a raw socket: 413 with Connection: close, then the server ends the connection', async () => {
      const { port } = new URL(app.url);
      const socket = net.connect(Number(port), '127.0.0.1');
      let received = '';
      const ended = new Promise<void>((resolve) => {
        socket.on('close', () => resolve());
        socket.on('error', () => resolve());
      });
      socket.on('data', (d) => (received += d.toString('latin1')));
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `POST /v1/environments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${app.key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n`,
      );
      const chunk = 'a'.repeat(256 * 1024);
      for (let i = 0; i < 6 && !socket.destroyed && !received; i++) {
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await ended;
      expect(received).to.match(/^HTTP\/1\.1 413/);
      expect(received).to.match(/\r\nconnection: close\r\n/i);
    });
  });

  describe('design paths', () => {
    for (const path of ['/../../etc/x', '/a/./b', '/a/..', '/%2e%2e/x', '/a/%2E/b']) {
      it(`refuses ${path} naming path, storing nothing`, async () => {
        const res = await app.request('POST', '/v1/designs', {
          method: 'GET',
          path,
          responses: [{ status: 200, code: 1, data: { ok: true } }],
        });
        expectProblem(res, 400, 'validation-failed');
        expect(res.body.errors[0].field).to.equal('path');
        const list = await app.request('GET', '/v1/designs?path=/');
        expect(
          list.body.items.map((d: { path: string }) => d.path).filter((p: string) => /\.\.|\/\.(\/|$)|%2e/i.test(p)),
        ).to.deep.equal([]);
      });
    }
    it('still accepts dots inside a segment', async () => {
      const res = await app.request('POST', '/v1/designs', {
        method: 'GET',
        path: '/files/v1.2/a..b/.well-known',
        responses: [{ status: 200, code: 1, data: {} }],
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    });
  });

  describe('mock sample caps', () => {
    const big: Array<[string, object, string]> = [
      ['minItems 2e6', { type: 'array', minItems: 2e6, items: { type: 'string' } }, 'schema.minItems'],
      ['minItems 1e8', { type: 'array', minItems: 1e8, items: { type: 'integer' } }, 'schema.minItems'],
      ['minLength 1e8', { type: 'string', minLength: 1e8 }, 'schema.minLength'],
      [
        'nested arrays 1000×1000',
        { type: 'array', minItems: 1000, items: { type: 'array', minItems: 1000, items: { type: 'string' } } },
        'schema',
      ],
      [
        'wide recursion',
        {
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, { $ref: '#/$defs/n' }])),
          $defs: {
            n: {
              type: 'object',
              properties: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`q${i}`, { $ref: '#/$defs/m' }])),
            },
            m: { type: 'array', minItems: 1000, items: { type: 'string', minLength: 100 } },
          },
        },
        'schema',
      ],
    ];
    for (const [what, schema, field] of big) {
      it(`answers 422 sample-too-large for ${what}`, async () => {
        const res = await app.request('POST', '/v1/mock-samples', { schema });
        expectProblem(res, 422, 'sample-too-large');
        expect(res.body.errors[0].field.startsWith(field)).to.equal(true, res.body.errors[0].field);
      });
    }
    it('refuses a design whose response would sample too large, naming the schema; stores nothing', async () => {
      const res = await app.request('POST', '/v1/designs', {
        method: 'GET',
        path: '/huge',
        responses: [{ status: 200, code: 1, schema: { type: 'array', minItems: 2e6, items: { type: 'string' } } }],
      });
      expectProblem(res, 422, 'sample-too-large');
      expect(res.body.errors[0].field).to.equal('responses[0].schema.minItems');
      expect((await app.request('GET', '/v1/designs?path=/huge')).body.items).to.have.length(0);
    });
    it('refuses an import whose schema would sample too large', async () => {
      const doc = {
        openapi: '3.0.0',
        info: { title: 't' },
        paths: {
          '/many': {
            get: {
              responses: {
                200: {
                  description: 'ok',
                  content: {
                    'application/json': { schema: { type: 'array', minItems: 5e6, items: { type: 'integer' } } },
                  },
                },
              },
            },
          },
        },
      };
      const res = await app.request('POST', '/v1/designs/import', doc);
      expectProblem(res, 422, 'sample-too-large');
      expect(res.body.errors[0].field).to.match(/^document/);
    });
    it('still samples within the caps, $refs into the schema itself included', async () => {
      const res = await app.request('POST', '/v1/mock-samples', {
        schema: {
          type: 'array',
          minItems: 1000,
          items: { $ref: '#/$defs/s' },
          $defs: { s: { type: 'string', minLength: 3 } },
        },
      });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(200);
      expect(res.body.data).to.have.length(1000);
    });
  });

  describe('cron expressions Temporal refuses', () => {
    for (const schedule of [
      '0 0 ? * *',
      '0 0 * * ?',
      '0 0 L * *',
      '0 0 * * 1#2',
      '*/0 * * * *',
      '0 0 1-2-3 * *',
      '0 0 5-1 * *',
      '0 0 * * 8',
      '0 0 * x *',
      'H 0 * * *',
    ]) {
      it(`refuses "${schedule}" with 400 naming schedule, storing nothing`, async () => {
        const name = `cron-${Math.random().toString(36).slice(2)}`;
        const res = await app.request('POST', '/v1/deployments', { name, runner: 'r', environment: 'local', schedule });
        expectProblem(res, 400, 'validation-failed');
        expect(res.body.errors.map((e: { field: string }) => e.field)).to.include('schedule');
        const list = await app.request('GET', '/v1/deployments?limit=200');
        expect(list.body.items.map((d: { name: string }) => d.name)).not.to.include(name);
      });
    }
    it('accepts what Temporal accepts and the schedule becomes active', async () => {
      for (const schedule of ['*/15 9-17 * * mon-fri', '0 0 1 jan,jul *', '0 12 * * 7', '5/10 * * * *']) {
        const res = await app.request('POST', '/v1/deployments', {
          name: `ok-${schedule.replace(/\W+/g, '-')}`,
          runner: 'r',
          environment: 'local',
          schedule,
          enabled: false,
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body.scheduleState.status, JSON.stringify(res.body.scheduleState)).to.equal('paused');
      }
    });
  });
});
