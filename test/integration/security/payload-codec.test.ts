/**
 * Encrypted Temporal payloads and the codec server (src/temporal/codec.ts,
 * api/routes/codec.ts, docs/codec.md): a run whose environment variable holds a marker (used in the
 * URL and a header) leaves no trace of it in the history Temporal stores, read by a client without
 * the codec and by `temporal workflow show`; with the codec (in process, through `/codec/decode`,
 * and through the CLI's `--codec-endpoint`) the payloads decode and hold it; the encrypted history
 * replays; the codec server refuses calls without an API key and answers the Web UI's CORS
 * preflight; keys rotate; unencrypted payloads pass through. Each workspace reads only its own
 * payloads (docs/codec.md "Who reads what"): another workspace's key and codec session get a
 * placeholder, the operator credential reads all, and a payload moved to another workspace does
 * not open.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startTarget, type Target } from '../../helpers/target';
import { workflowSource } from '../../../src/temporal/bundle';
import { findTemporalCli } from '../../../src/temporal/dev-server';
import {
  dataConverter,
  EncryptionCodec,
  ENCRYPTED_ENCODING,
  isEncrypted,
  METADATA_WORKSPACE,
  OPERATOR_ONLY_TEXT,
  OTHER_WORKSPACE_TEXT,
  payloadCodec,
  type PayloadScopes,
} from '../../../src/temporal/codec';
import { HistorySealer, NO_HISTORY_SECRETS } from '../../../src/secrets/history-seal';
import { KeyRing, parseSecretKeys } from '../../../src/secrets/keyring';
import { codecOrigins, payloadToJson, type JsonPayload } from '../../../api/routes/codec';
import { loadConfig } from '../../../src/config';

const run = promisify(execFile);
const MARKER = 'zq7MarkerOfTheCodecTestXv3';
/** The codec server's operator credential in this test. */
const OPERATOR = 'operator-credential-of-the-codec-test-0123456789';

/**
 * Every form of `marker` a leak could take in text: itself, and base64 of it at each of the three
 * byte alignments it may have inside a longer base64 text (only the characters that depend on the
 * marker's bytes alone).
 */
function leakForms(marker: string): string[] {
  const bytes = Buffer.from(marker, 'utf8');
  const forms = [marker];
  for (let k = 0; k < 3; k++) {
    const b64 = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    forms.push(b64.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6)));
  }
  for (const form of [...forms]) forms.push(form.replace(/\+/g, '-').replace(/\//g, '_'));
  return forms;
}

/** The forms of the marker found in `text` (none expected). */
const leaks = (text: string): string[] => leakForms(MARKER).filter((form) => text.includes(form));

/**
 * Every payload in a raw history or in the CLI's JSON of it (objects whose `metadata` holds an
 * `encoding`), but those the codec never sees by design: search attributes (Temporal indexes
 * them; Assay's hold ids and names), the bookkeeping `data` of local-activity markers (sequence
 * numbers and times written by the SDK's core; the activity's result beside it is a payload), and
 * the `patch-data` of patch markers (`patched()`: the patch id, a constant of Assay's workflow code
 * such as `suite-path-parallel-test-cases`, written by the SDK's core, never a user's data).
 */
function payloadsOf(node: unknown, out: Payload[] = [], path = ''): Payload[] {
  if (node === null || typeof node !== 'object' || ArrayBuffer.isView(node)) return out;
  if (/searchAttributes$|markerRecordedEventAttributes\.details\.(data|patch-data)$/.test(path)) return out;
  const maybe = node as Payload;
  if (maybe.metadata && typeof maybe.metadata === 'object' && 'encoding' in maybe.metadata) {
    out.push(maybe);
    return out;
  }
  for (const [name, value] of Object.entries(node)) payloadsOf(value, out, `${path}.${name}`);
  return out;
}

const utf8 = (bytes: Uint8Array | null | undefined): string => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe('encrypted Temporal payloads and the codec server', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;
  let plain: Client;
  let connection: Connection;
  let workflowId: string;
  let history: temporal.api.history.v1.IHistory;
  const cli = findTemporalCli();

  before(async () => {
    [app, target] = await Promise.all([
      startTestApp({ worker: true, env: { ASSAY_CODEC_OPERATOR_TOKEN: OPERATOR } }),
      startTarget(),
    ]);
    connection = await Connection.connect({ address: app.config.temporal.address });
    plain = new Client({ connection, namespace: app.config.temporal.namespace });
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url, token: MARKER } });
    const tc = await app.request('POST', '/v1/test-cases', {
      name: 'echo the token',
      folder: 'codec',
      flow: [
        {
          type: 'api',
          request: { method: 'GET', url: '{{base}}/echo?token={{token}}', headers: { 'X-Token': '{{token}}' } },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    expect(tc.status, JSON.stringify(tc.body)).to.equal(201);
    await app.request('POST', '/v1/runners', { name: 'codec', folder: 'codec' });
    const started = await app.request('POST', '/v1/runs', { runner: 'codec', environment: 'local' });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const done = await waitForRun(app, started.body.runId);
    expect(done).to.include({ status: 'completed', result: 'passed' });
    const [row] = await app.dataSource.query('SELECT workflowId FROM runs WHERE id = ?', [started.body.runId]);
    workflowId = row.workflowId;
    // The row says completed a moment before the workflow closes: wait for the close.
    await plain.workflow
      .getHandle(workflowId)
      .result()
      .catch(() => undefined);
    history = await plain.workflow.getHandle(workflowId).fetchHistory();
  });
  after(async () => {
    await connection?.close();
    await target?.close();
    await app?.stop();
  });

  describe('in Temporal', () => {
    it('stores no trace of the marker: the history read by a client without the codec holds only encrypted payloads', () => {
      const json = historyToJSON(history);
      expect(leaks(json)).to.deep.equal([]);
      const payloads = payloadsOf(history);
      expect(payloads.length).to.be.greaterThan(3);
      const encodings = new Set(payloads.map((p) => utf8(p.metadata!.encoding)));
      expect([...encodings]).to.deep.equal([ENCRYPTED_ENCODING]);
      expect(new Set(payloads.map((p) => utf8(p.metadata!['encryption-key-id'])))).to.deep.equal(new Set(['test1']));
    });

    it('decodes with the codec: the payloads hold the marker (in the URL and the header the run sent)', async () => {
      const decoded = await payloadCodec(app.config).decode(payloadsOf(history));
      expect(decoded.some(isEncrypted)).to.equal(false);
      const texts = decoded.map((p) => utf8(p.data));
      expect(texts.join('\n')).to.include(`token=${MARKER}`);
      expect(texts.join('\n')).to.match(new RegExp(`x-token"\\s*:\\s*"${MARKER}"`, 'i'));
      // Every decoded payload is one the default converter reads again.
      for (const p of decoded) expect(() => defaultPayloadConverter.fromPayload(p)).not.to.throw();
    });

    it("replays the encrypted history with the worker's data converter", async () => {
      await Worker.runReplayHistory(
        { ...workflowSource(), dataConverter: dataConverter(app.config), replayName: 'encrypted' },
        history,
      );
    });

    it('`temporal workflow show -o json` shows encrypted payloads; with --codec-endpoint and --codec-auth it shows the decoded input', async function () {
      if (!cli) this.skip();
      const base = [
        'workflow',
        'show',
        '-w',
        workflowId,
        '-o',
        'json',
        '--address',
        app.config.temporal.address,
        '--namespace',
        app.config.temporal.namespace,
      ];
      const raw = await run(cli!, base, { maxBuffer: 64 * 1024 * 1024 });
      expect(
        raw.stdout.includes(b64(ENCRYPTED_ENCODING)) || raw.stdout.includes(ENCRYPTED_ENCODING),
        'the CLI shows encrypted payloads',
      ).to.equal(true);
      expect(leaks(raw.stdout)).to.deep.equal([]);
      const decoded = await run(
        cli!,
        [...base, '--codec-endpoint', `${app.url}/codec`, '--codec-auth', `Bearer ${app.key}`],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      // The CLI's JSON keeps payloads as proto JSON (base64): read them as a user of the output would.
      const shown = payloadsOf(JSON.parse(decoded.stdout) as unknown) as unknown as JsonPayload[];
      expect(shown.length).to.equal(payloadsOf(history).length);
      expect(shown.map((p) => Buffer.from(p.metadata!.encoding!, 'base64').toString())).not.to.include(
        ENCRYPTED_ENCODING,
      );
      expect(shown.map((p) => Buffer.from(p.data ?? '', 'base64').toString('utf8')).join('\n')).to.include(
        `token=${MARKER}`,
      );
      // Without the key the CLI cannot decode (the codec server refuses it).
      const refused = await run(cli!, [...base, '--codec-endpoint', `${app.url}/codec`]).then(
        (r) => r.stdout + r.stderr,
        (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
      );
      expect(leaks(refused)).to.deep.equal([]);
    });
  });

  describe('the codec server', () => {
    const historyPayloads = (): JsonPayload[] => payloadsOf(history).map(payloadToJson);
    const post = (path: string, body: unknown, key: string | null, headers: Record<string, string> = {}) =>
      app.request('POST', path, body, { key, headers: { 'X-Namespace': app.config.temporal.namespace, ...headers } });

    it("decodes the history's payloads for any API key (read scope here), with X-Namespace, and answers no-store", async () => {
      const read = await app.issueKey('read');
      const res = await post('/codec/decode', { payloads: historyPayloads() }, read);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.body.payloads).to.have.length(historyPayloads().length);
      const texts = (res.body.payloads as JsonPayload[]).map((p) =>
        Buffer.from(p.data ?? '', 'base64').toString('utf8'),
      );
      expect(texts.join('\n')).to.include(MARKER);
      expect(
        (res.body.payloads as JsonPayload[]).every(
          (p) => Buffer.from(p.metadata!.encoding!, 'base64').toString() !== ENCRYPTED_ENCODING,
        ),
      ).to.equal(true);
    });

    it("names the run's workspace on every payload of its history", () => {
      const workspaces = payloadsOf(history).map((p) => utf8(p.metadata![METADATA_WORKSPACE]));
      expect(new Set(workspaces)).to.deep.equal(new Set([app.workspaceId]));
    });

    it("gives another workspace's key and codec session a placeholder for every payload, never the data", async () => {
      const other = await app.issueKey('write', 'codec-other');
      const res = await post('/codec/decode', { payloads: historyPayloads() }, other);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const shown = (res.body.payloads as JsonPayload[]).map((p) => Buffer.from(p.data ?? '', 'base64').toString());
      expect(new Set(shown)).to.deep.equal(new Set([JSON.stringify(OTHER_WORKSPACE_TEXT)]));
      expect(leaks(JSON.stringify(res.body))).to.deep.equal([]);
      const signIn = await app.request('POST', '/codec/session', { key: other }, { key: null });
      const session = /^assay_codec=([^;]+);/.exec(signIn.headers.get('set-cookie')!)![1]!;
      const viaSession = await post('/codec/decode', { payloads: historyPayloads() }, null, {
        Cookie: `assay_codec=${session}`,
      });
      expect(viaSession.status).to.equal(200);
      expect(leaks(JSON.stringify(viaSession.body))).to.deep.equal([]);
      expect(JSON.stringify(viaSession.body)).to.include(b64(JSON.stringify(OTHER_WORKSPACE_TEXT)));
      // What another workspace encodes is its own: the run's workspace reads it as another's.
      const encoded = await post(
        '/codec/encode',
        { payloads: [payloadToJson(defaultPayloadConverter.toPayload('x'))] },
        other,
      );
      const back = await post('/codec/decode', encoded.body, app.key);
      expect(Buffer.from((back.body.payloads as JsonPayload[])[0]!.data!, 'base64').toString()).to.equal(
        JSON.stringify(OTHER_WORKSPACE_TEXT),
      );
    });

    it('decodes every payload for the operator credential, by header and by codec session; a wrong one is 401', async () => {
      const res = await post('/codec/decode', { payloads: historyPayloads() }, OPERATOR);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(
        JSON.stringify(res.body.payloads.map((p: JsonPayload) => Buffer.from(p.data ?? '', 'base64').toString())),
      ).to.include(MARKER);
      const signIn = await app.request('POST', '/codec/session', { key: OPERATOR }, { key: null });
      expect(signIn.status).to.equal(200);
      const session = /^assay_codec=([^;]+);/.exec(signIn.headers.get('set-cookie')!)![1]!;
      const viaSession = await post('/codec/decode', { payloads: historyPayloads() }, null, {
        Cookie: `assay_codec=${session}`,
      });
      expect(viaSession.body).to.deep.equal(res.body);
      expect((await post('/codec/decode', { payloads: [] }, `${OPERATOR}x`)).status).to.equal(401);
      // A payload of no workspace (written before per-workspace keys): the operator reads it, a key does not.
      const [legacy] = await payloadCodec(app.config).encode([defaultPayloadConverter.toPayload({ old: MARKER })]);
      const byKey = await post('/codec/decode', { payloads: [payloadToJson(legacy!)] }, app.key);
      expect(Buffer.from(byKey.body.payloads[0].data, 'base64').toString()).to.equal(
        JSON.stringify(OPERATOR_ONLY_TEXT),
      );
      const byOperator = await post('/codec/decode', { payloads: [payloadToJson(legacy!)] }, OPERATOR);
      expect(JSON.parse(Buffer.from(byOperator.body.payloads[0].data, 'base64').toString())).to.deep.equal({
        old: MARKER,
      });
    });

    it("refuses a payload whose workspace was changed to the reader's: 400, nothing decoded", async () => {
      const other = await app.issueKey('read', 'codec-other');
      const [payload] = payloadsOf(history).map(payloadToJson);
      const [{ id: otherWorkspace }] = await app.dataSource.query('SELECT id FROM workspaces WHERE name = ?', [
        'codec-other',
      ]);
      const moved = { ...payload!, metadata: { ...payload!.metadata, [METADATA_WORKSPACE]: b64(otherWorkspace) } };
      const res = await post('/codec/decode', { payloads: [moved] }, other);
      expect(res.status).to.equal(400);
      expect(res.body.errors[0].field).to.equal('payloads[0]');
      expect(leaks(JSON.stringify(res.body))).to.deep.equal([]);
    });

    it('encodes and decodes back (round trip); the encoded form hides the value', async () => {
      const original = payloadToJson(defaultPayloadConverter.toPayload({ secret: MARKER }));
      const encoded = await post('/codec/encode', { payloads: [original] }, app.key);
      expect(encoded.status, JSON.stringify(encoded.body)).to.equal(200);
      const [enc] = encoded.body.payloads as JsonPayload[];
      expect(Buffer.from(enc!.metadata!.encoding!, 'base64').toString()).to.equal(ENCRYPTED_ENCODING);
      expect(Buffer.from(enc!.metadata!['encryption-key-id']!, 'base64').toString()).to.equal('test1');
      expect(leaks(JSON.stringify(encoded.body))).to.deep.equal([]);
      const decoded = await post('/codec/decode', encoded.body, app.key);
      expect(decoded.status).to.equal(200);
      expect(decoded.body).to.deep.equal({ payloads: [original] });
    });

    it('passes unencrypted payloads through unchanged', async () => {
      const payloads = [
        payloadToJson(defaultPayloadConverter.toPayload({ n: 1 })),
        payloadToJson(defaultPayloadConverter.toPayload(null)),
      ];
      const res = await post('/codec/decode', { payloads }, app.key);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ payloads });
    });

    const expectUnauthorized = (res: { status: number; headers: Headers; body: { code?: string } }) => {
      expect(res.status).to.equal(401);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(res.body.code).to.equal('unauthorized');
    };

    it('refuses a call without a key, or with an unknown key: 401 problem', async () => {
      for (const key of [null, 'not-a-key']) {
        for (const path of ['/codec/decode', '/codec/encode']) {
          const res = await post(path, { payloads: historyPayloads() }, key);
          expect(res.status, `${path} ${key}`).to.equal(401);
          expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
          expect(res.body.code).to.equal('unauthorized');
          expect(leaks(JSON.stringify(res.body))).to.deep.equal([]);
        }
      }
    });

    it('400 for a body that is not the protocol, naming the field; 400 naming the key id a payload needs', async () => {
      const bad = await post('/codec/decode', { payloads: [{ metadata: { encoding: 'not base64!' } }] }, app.key);
      expect(bad.status).to.equal(400);
      expect(bad.body.errors[0].field).to.equal('payloads[0].metadata.encoding');
      expect((await post('/codec/decode', { nope: [] }, app.key)).status).to.equal(400);
      // A payload of the caller's workspace encrypted with a key this ring lacks.
      const foreign = new EncryptionCodec(
        new KeyRing(parseSecretKeys(`other9:${Buffer.alloc(32, 7).toString('base64')}`)),
        { scopeOf: async () => ({ workspaceId: app.workspaceId, sealer: NO_HISTORY_SECRETS }) },
      );
      const [sealed] = await foreign.encode([defaultPayloadConverter.toPayload('x')], {
        type: 'workflow',
        namespace: 'default',
        workflowId: 'run-x',
      });
      const res = await post('/codec/decode', { payloads: [payloadToJson(sealed!)] }, app.key);
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.include('"other9"');
      expect(res.body.errors[0].field).to.equal('payloads[0]');
    });

    it("answers the Temporal UI's CORS preflight (its origin and its localhost/127.0.0.1 twin), and sets the origin on answers, 401s included", async () => {
      const ui = new URL(app.config.temporal.uiUrl).origin;
      const twin = ui.includes('localhost')
        ? ui.replace('localhost', '127.0.0.1')
        : ui.replace('127.0.0.1', 'localhost');
      for (const origin of [ui, twin]) {
        const pre = await fetch(`${app.url}/codec/decode`, {
          method: 'OPTIONS',
          headers: {
            Origin: origin,
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'authorization,content-type,x-namespace',
          },
        });
        expect(pre.status).to.equal(204);
        expect(pre.headers.get('access-control-allow-origin')).to.equal(origin);
        expect(pre.headers.get('access-control-allow-credentials')).to.equal('true');
        expect(pre.headers.get('access-control-allow-methods')).to.include('POST');
        expect(pre.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/)).to.include.members([
          'authorization',
          'content-type',
          'x-namespace',
        ]);
      }
      const answer = await post('/codec/decode', { payloads: [] }, app.key, { Origin: ui });
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('access-control-allow-origin')).to.equal(ui);
      expect(answer.headers.get('vary')).to.match(/origin/i);
      const refused = await post('/codec/decode', { payloads: [] }, null, { Origin: ui });
      expect(refused.status).to.equal(401);
      expect(refused.headers.get('access-control-allow-origin')).to.equal(ui);
      // Another origin gets no CORS headers: a browser keeps its pages from the answers.
      const evil = await fetch(`${app.url}/codec/decode`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
      });
      expect(evil.headers.get('access-control-allow-origin')).to.equal(null);
      expect(evil.headers.get('access-control-allow-headers')).to.equal(null);
    });

    it('signs a browser in for the Web UI: the form, the HttpOnly cookie for /codec, decode with the cookie alone, sign-out', async () => {
      const form = await fetch(`${app.url}/codec/session`);
      expect(form.status).to.equal(200);
      expect(form.headers.get('content-type')).to.match(/^text\/html/);
      expect(form.headers.get('content-security-policy')).to.include("default-src 'none'");
      expect(await form.text()).to.include('<form method="post"');
      const read = await app.issueKey('read');
      expectUnauthorized(await app.request('POST', '/codec/session', { key: 'assay_nope' }, { key: null }));
      const signIn = await fetch(`${app.url}/codec/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ key: read }).toString(),
      });
      expect(signIn.status).to.equal(200);
      const cookie = signIn.headers.get('set-cookie')!;
      const session = /^assay_codec=([^;]+);/.exec(cookie)![1]!;
      expect(session, 'the cookie holds a sealed session, not the key').not.to.include(read.slice(6, 20));
      for (const attribute of ['Path=/codec', 'HttpOnly', 'Secure', 'SameSite=None', 'Max-Age=43200'])
        expect(cookie).to.include(attribute);
      const viaJson = await app.request('POST', '/codec/session', { key: read }, { key: null });
      expect(viaJson.body).to.deep.equal({ signedIn: true, expiresInSeconds: 43200 });
      const ui = new URL(app.config.temporal.uiUrl).origin;
      const decoded = await post('/codec/decode', { payloads: historyPayloads() }, null, {
        Cookie: `other=1; assay_codec=${session}`,
        Origin: ui,
      });
      expect(decoded.status, JSON.stringify(decoded.body)).to.equal(200);
      expect(decoded.headers.get('access-control-allow-credentials')).to.equal('true');
      expect(JSON.stringify(decoded.body)).to.include(b64('json/plain'));
      // A cookie that is not a session of this ring, one altered, and one whose key was revoked: 401.
      expectUnauthorized(await post('/codec/decode', { payloads: [] }, null, { Cookie: `assay_codec=${read}` }));
      const at = session.lastIndexOf('.') + 5;
      const altered = `${session.slice(0, at)}${session[at] === 'A' ? 'B' : 'A'}${session.slice(at + 1)}`;
      expectUnauthorized(await post('/codec/decode', { payloads: [] }, null, { Cookie: `assay_codec=${altered}` }));
      await app.dataSource.query('UPDATE api_keys SET revokedAt = ? WHERE name = ?', [new Date(), 'test-read']);
      expectUnauthorized(await post('/codec/decode', { payloads: [] }, null, { Cookie: `assay_codec=${session}` }));
      const out = await fetch(`${app.url}/codec/session`, { method: 'DELETE' });
      expect(out.status).to.equal(204);
      expect(out.headers.get('set-cookie')).to.match(/^assay_codec=; Path=\/codec; Max-Age=0/);
    });

    it('is a service path: the console never answers under /codec', async () => {
      const res = await fetch(`${app.url}/codec/decode`);
      expect(res.status).to.equal(405);
      expect((await fetch(`${app.url}/codec/other`)).status).to.equal(404);
    });
  });

  describe('the codec', () => {
    const key = (n: number) => Buffer.alloc(32, n).toString('base64');
    const codec = (keys: string) => new EncryptionCodec(new KeyRing(parseSecretKeys(keys)));

    it('rotates: payloads encrypted with k1 decode once the ring is k2,k1; new ones use k2; without k1 the error names it', async () => {
      const value = defaultPayloadConverter.toPayload({ token: MARKER });
      const [old] = await codec(`k1:${key(1)}`).encode([value]);
      const rotated = codec(`k2:${key(2)},k1:${key(1)}`);
      expect(await rotated.decode([old!])).to.deep.equal([{ metadata: { ...value.metadata }, data: value.data }]);
      const [fresh] = await rotated.encode([value]);
      expect(utf8(fresh!.metadata!['encryption-key-id'])).to.equal('k2');
      let error: Error | undefined;
      await codec(`k2:${key(2)}`)
        .decode([old!])
        .catch((err: Error) => (error = err));
      expect(error?.message).to.include('"k1"').and.include('ASSAY_SECRET_KEYS');
    });

    it('passes unencrypted payloads through unchanged and refuses an altered one', async () => {
      const c = codec(`k1:${key(1)}`);
      const unencrypted = defaultPayloadConverter.toPayload({ a: 1 });
      expect(await c.decode([unencrypted])).to.deep.equal([unencrypted]);
      const [sealed] = await c.encode([unencrypted]);
      const altered = { ...sealed!, data: Buffer.from(sealed!.data!) };
      altered.data[20]! ^= 1;
      let error: Error | undefined;
      await c.decode([altered]).catch((err: Error) => (error = err));
      expect(error?.message).to.include('does not open with key "k1"');
    });

    it("allows the Web UI's origin, its localhost twin and ASSAY_CODEC_CORS_ORIGINS; refuses a value that is not an origin", () => {
      const config = loadConfig({
        TEMPORAL_UI_URL: 'http://localhost:8233/',
        ASSAY_CODEC_CORS_ORIGINS: 'https://temporal.example.com, https://ui.example.org:8443/',
      });
      expect([...codecOrigins(config)].sort()).to.deep.equal([
        'http://127.0.0.1:8233',
        'http://localhost:8233',
        'https://temporal.example.com',
        'https://ui.example.org:8443',
      ]);
      expect(() => loadConfig({ ASSAY_CODEC_CORS_ORIGINS: 'https://temporal.example.com/path' })).to.throw(
        /^ASSAY_CODEC_CORS_ORIGINS: .*not an origin/,
      );
      expect(() => loadConfig({ ASSAY_CODEC_CORS_ORIGINS: 'temporal.example.com' })).to.throw(
        /ASSAY_CODEC_CORS_ORIGINS/,
      );
    });

    it("encrypts a run's payloads with its workspace's key; seals its secrets, which the worker opens and the codec server shows as ***", async () => {
      const scopes: PayloadScopes = {
        scopeOf: async (workflowId) =>
          workflowId === 'run-a'
            ? { workspaceId: 'ws_A', sealer: new HistorySealer([MARKER]) }
            : workflowId === 'run-b'
              ? { workspaceId: 'ws_B', sealer: NO_HISTORY_SECRETS }
              : undefined,
      };
      const ring = new KeyRing(parseSecretKeys(`k1:${key(1)}`));
      const c = new EncryptionCodec(ring, scopes);
      const value = defaultPayloadConverter.toPayload({ url: `/x?token=${MARKER}` });
      const context = (workflowId: string) => ({ type: 'workflow' as const, namespace: 'default', workflowId });
      const [a] = await c.encode([value], context('run-a'));
      const [b] = await c.encode([value], context('run-b'));
      const [none] = await c.encode([value], context('other-workflow'));
      expect(utf8(a!.metadata![METADATA_WORKSPACE])).to.equal('ws_A');
      expect(utf8(b!.metadata![METADATA_WORKSPACE])).to.equal('ws_B');
      expect(none!.metadata![METADATA_WORKSPACE]).to.equal(undefined);
      // The worker's view: the value back, exactly.
      expect(await c.decode([a!, b!, none!])).to.deep.equal(
        [value, value, value].map((v) => ({ metadata: { ...v.metadata }, data: v.data })),
      );
      // The codec server's views.
      const shown = (p: Payload) => utf8(p.data);
      const [aForA, bForA, noneForA] = c.decodeFor([a!, b!, none!], { workspaceId: 'ws_A' });
      expect(JSON.parse(shown(aForA!))).to.deep.equal({ url: '/x?token=***' });
      expect(shown(bForA!)).to.equal(JSON.stringify(OTHER_WORKSPACE_TEXT));
      expect(shown(noneForA!)).to.equal(JSON.stringify(OPERATOR_ONLY_TEXT));
      const forOperator = c.decodeFor([a!, b!, none!], { operator: true }).map(shown);
      expect(forOperator.map((t) => JSON.parse(t) as unknown)).to.deep.equal([
        { url: '/x?token=***' },
        { url: `/x?token=${MARKER}` },
        { url: `/x?token=${MARKER}` },
      ]);
      // Moved to another workspace (its metadata changed): it does not open, for anyone.
      const moved = { ...a!, metadata: { ...a!.metadata, [METADATA_WORKSPACE]: Buffer.from('ws_B') } };
      expect(() => c.decodeFor([moved], { workspaceId: 'ws_B' })).to.throw(/does not open/);
      let error: Error | undefined;
      await c.decode([moved]).catch((err: Error) => (error = err));
      expect(error?.message).to.include('does not open');
    });

    it('encrypts each payload with a fresh IV (the same value twice gives two ciphertexts)', async () => {
      const c = codec(`k1:${key(1)}`);
      const value = defaultPayloadConverter.toPayload('same');
      const [a, b] = await c.encode([value, value]);
      expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).to.equal(false);
    });
  });
});
