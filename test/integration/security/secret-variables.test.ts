/**
 * Secret variables through the API (docs/secrets.md), against the real app
 * on MariaDB with a worker: environments, runs and incoming webhooks take `{"value": …, "secret":
 * true}`, store it sealed with the key ring (the raw rows hold `v1.` text, never the value) and
 * answer `{"secret": true, "value": "***"}` to every key; `"***"` sent back keeps a stored secret;
 * refusals name the field. Deployment signing secrets and webhook header values are sealed at rest
 * and deliveries still verify. Key rotation: values sealed under k1 work under `k2,k1` and a write
 * seals them again under k2.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { eventually, startTestApp, waitForRun, type Reply, type TestApp } from '../../helpers/app';
import { startReceiver, verifySignature, type Receiver } from '../../helpers/receiver';
import { startTarget, type Target } from '../../helpers/target';
import { KeyRing, keyRingFor, parseSecretKeys } from '../../../src/secrets/keyring';
import { openVariables } from '../../../src/secrets/variables';
import { sealSigningSecret, sealWebhookHeaders } from '../../../src/store/entities/deployment-secrets';

const K1 = `k1:${randomBytes(32).toString('base64')}`;
const K2 = `k2:${randomBytes(32).toString('base64')}`;
const MASKED = { secret: true, value: '***' };

function expectInvalid(res: Reply, fields: string[]): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(400);
  expect(res.body.code).to.equal('validation-failed');
  expect(
    res.body.errors.map((e: { field: string }) => e.field),
    JSON.stringify(res.body),
  ).to.include.members(fields);
}

/** A JSON column as the driver gives it (text or parsed), as text. */
const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
/** A JSON column, parsed. */
const json = (v: unknown): any => (typeof v === 'string' ? JSON.parse(v) : v);

describe('secret variables', function () {
  this.timeout(180_000);
  let app: TestApp;
  let target: Target;
  let receiver: Receiver;
  let ring: KeyRing;
  let keys: Record<'read' | 'run' | 'write', string>;

  const envRow = async (t: TestApp, name: string) =>
    (await t.dataSource.query('SELECT variables FROM environments WHERE name = ?', [name]))[0].variables as unknown;
  const runRow = async (t: TestApp, id: string) =>
    (await t.dataSource.query('SELECT * FROM runs WHERE id = ?', [id]))[0] as Record<string, unknown>;
  const deploymentRow = async (t: TestApp, id: string) =>
    (await t.dataSource.query('SELECT signingSecret, webhooks FROM deployments WHERE id = ?', [id]))[0] as {
      signingSecret: string;
      webhooks: unknown;
    };

  before(async () => {
    [app, target, receiver] = await Promise.all([
      startTestApp({
        worker: true,
        env: { ASSAY_SECRET_KEYS: K1, ASSAY_WEBHOOK_RETRY_INITIAL_MS: '200', ASSAY_WEBHOOK_RETRY_MAX_MS: '1000' },
      }),
      startTarget(),
      startReceiver(),
    ]);
    ring = keyRingFor(app.config.secretKeys, app.config.dataDir);
    keys = { read: await app.issueKey('read'), run: await app.issueKey('run'), write: app.key };
    await app.request('POST', '/v1/test-cases', {
      name: 'ok',
      folder: 'green',
      flow: [
        {
          type: 'api',
          request: { method: 'GET', url: '{{base}}/users/1' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    await app.request('POST', '/v1/runners', { name: 'green', folder: 'green' });
  });
  after(async () => {
    await receiver?.close();
    await target?.close();
    await app?.stop();
  });

  describe('environments', () => {
    it('stores secrets sealed (the row holds only v1. text) and answers them masked to write, run and read keys', async () => {
      const created = await app.request('POST', '/v1/environments', {
        name: 'svc',
        variables: {
          base: target.url,
          token: { value: 'tok-SECRET-1234', secret: true },
          pin: { value: 98765, secret: true },
        },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.variables).to.deep.equal({ base: target.url, token: MASKED, pin: MASKED });
      for (const scope of ['write', 'run'] as const) {
        expect(
          (await app.request('GET', '/v1/environments/svc', undefined, { key: keys[scope] })).body.variables,
          scope,
        ).to.deep.equal({ base: target.url, token: MASKED, pin: MASKED });
      }
      const read = await app.request('GET', '/v1/environments', undefined, { key: keys.read });
      expect(read.body.items.find((e: { name: string }) => e.name === 'svc').variables).to.deep.equal({
        base: '***',
        token: MASKED,
        pin: MASKED,
      });

      const raw = await envRow(app, 'svc');
      expect(text(raw)).to.not.contain('tok-SECRET-1234').and.not.contain('98765');
      const stored = json(raw);
      expect(stored.base).to.equal(target.url);
      expect(stored.token).to.have.keys('secret', 'sealed');
      expect(stored.token.sealed).to.match(/^v1\.k1\./);
      expect(stored.pin.sealed).to.match(/^v1\.k1\./);
      // What a run gets once opened (activities/runs.ts opens them with the same ring).
      expect(openVariables(stored, ring).values).to.deep.equal({
        base: target.url,
        token: 'tok-SECRET-1234',
        pin: 98765,
      });
    });

    it('keeps a stored secret when {"secret": true, "value": "***"} comes back (PUT, PATCH); 400 naming the variable when there is none', async () => {
      const before = json(await envRow(app, 'svc'));
      const answer = (await app.request('GET', '/v1/environments/svc')).body;

      const put = await app.request('PUT', '/v1/environments/svc', {
        description: 'round trip',
        variables: answer.variables,
      });
      expect(put.status, JSON.stringify(put.body)).to.equal(200);
      expect(put.body.variables).to.deep.equal({ base: target.url, token: MASKED, pin: MASKED });
      expect(json(await envRow(app, 'svc'))).to.deep.equal(before);

      const patched = await app.request('PATCH', '/v1/environments/svc', {
        description: 'patched',
        variables: { token: MASKED },
      });
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      expect(json(await envRow(app, 'svc'))).to.deep.equal(before);

      expectInvalid(
        await app.request('PATCH', '/v1/environments/svc', { description: 'no', variables: { nope: MASKED } }),
        ['variables.nope'],
      );
      expectInvalid(await app.request('PUT', '/v1/environments/svc', { variables: { token: MASKED, base: MASKED } }), [
        'variables.base',
      ]);
      expectInvalid(await app.request('POST', '/v1/environments', { name: 'fresh', variables: { token: MASKED } }), [
        'variables.token',
      ]);
      expect((await app.request('GET', '/v1/environments/svc')).body.description).to.equal('patched');
      expect(json(await envRow(app, 'svc'))).to.deep.equal(before);
      expect((await app.request('GET', '/v1/environments/fresh')).status).to.equal(404);
    });

    it('mixes plain and secret values: a plain value replaces a secret, a secret a plain value, null removes', async () => {
      const toPlain = await app.request('PATCH', '/v1/environments/svc', {
        variables: { pin: 1234, extra: { value: 'extra-SECRET-77', secret: true } },
      });
      expect(toPlain.status, JSON.stringify(toPlain.body)).to.equal(200);
      expect(toPlain.body.variables).to.deep.equal({ base: target.url, token: MASKED, pin: 1234, extra: MASKED });
      const toSecret = await app.request('PATCH', '/v1/environments/svc', {
        variables: { pin: { value: 'pin-SECRET-4321', secret: true }, extra: null },
      });
      expect(toSecret.body.variables).to.deep.equal({ base: target.url, token: MASKED, pin: MASKED });
      const raw = await envRow(app, 'svc');
      expect(text(raw)).to.not.contain('pin-SECRET-4321').and.not.contain('extra-SECRET-77');
      expect(openVariables(json(raw), ring).values).to.deep.equal({
        base: target.url,
        token: 'tok-SECRET-1234',
        pin: 'pin-SECRET-4321',
      });
      const replaced = await app.request('PUT', '/v1/environments/svc', {
        variables: { base: target.url, token: 'now-plain', pin: MASKED },
      });
      expect(replaced.body.variables).to.deep.equal({ base: target.url, token: 'now-plain', pin: MASKED });
      await app.request('PATCH', '/v1/environments/svc', {
        variables: { token: { value: 'tok-SECRET-1234', secret: true } },
      });
    });

    it('refuses a secret shorter than 4 characters and malformed secret objects, naming each field (with schema errors), without echoing values; stores nothing', async () => {
      const short = await app.request('POST', '/v1/environments', {
        name: 'short',
        variables: { pin: { value: 'xyz', secret: true } },
      });
      expectInvalid(short, ['variables.pin.value']);
      expect(JSON.stringify(short.body)).to.not.contain('xyz');
      expectInvalid(
        await app.request('POST', '/v1/environments', {
          name: 'short',
          variables: { n: { value: 123, secret: true } },
        }),
        ['variables.n.value'],
      );
      expectInvalid(
        await app.request('POST', '/v1/environments', {
          name: 'short',
          variables: { x: { value: 'abcd', secret: false } },
        }),
        ['variables.x.secret'],
      );
      expectInvalid(
        await app.request('POST', '/v1/environments', {
          name: 'short',
          variables: { x: { value: 'abcd', secret: true, note: 1 } },
        }),
        ['variables.x'],
      );
      expectInvalid(
        await app.request('POST', '/v1/environments', {
          name: 'short',
          variables: { x: { value: { deep: 1 }, secret: true } },
        }),
        ['variables.x'],
      );
      expectInvalid(
        await app.request('POST', '/v1/environments', {
          name: 'has space',
          variables: { s: { value: 'ab', secret: true } },
        }),
        ['name', 'variables.s.value'],
      );
      expectInvalid(
        await app.request('PATCH', '/v1/environments/svc', { variables: { pin: { value: 'ab', secret: true } } }),
        ['variables.pin.value'],
      );
      expect((await app.request('GET', '/v1/environments/short')).status).to.equal(404);
      expect(openVariables(json(await envRow(app, 'svc')), ring).values.pin).to.equal('pin-SECRET-4321');
    });
  });

  describe('runs and incoming webhooks', () => {
    it("stores a run's secret variables sealed and answers them masked; an idempotent replay stores no plain secret", async () => {
      const body = {
        runner: 'green',
        environment: 'svc',
        variables: { build: '7', apiKey: { value: 'run-SECRET-5678', secret: true } },
      };
      const first = await app.request('POST', '/v1/runs', body, { headers: { 'idempotency-key': 'secret-run-1' } });
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      const runId = first.body.runId as string;
      for (const scope of ['write', 'run'] as const) {
        expect(
          (await app.request('GET', `/v1/runs/${runId}`, undefined, { key: keys[scope] })).body.variables,
          scope,
        ).to.deep.equal({ build: '7', apiKey: MASKED });
      }
      expect(
        (await app.request('GET', `/v1/runs/${runId}`, undefined, { key: keys.read })).body.variables,
      ).to.deep.equal({ build: '***', apiKey: MASKED });
      const listed = (await app.request('GET', '/v1/runs', undefined, { key: keys.read })).body.items.find(
        (r: { runId: string }) => r.runId === runId,
      );
      expect(listed.variables).to.deep.equal({ build: '***', apiKey: MASKED });

      const replay = await app.request(
        'POST',
        '/v1/runs',
        {
          variables: { apiKey: { secret: true, value: 'run-SECRET-5678' }, build: '7' },
          environment: 'svc',
          runner: 'green',
        },
        { headers: { 'idempotency-key': 'secret-run-1' } },
      );
      expect(replay.status).to.equal(201);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.body.runId).to.equal(runId);
      const other = await app.request(
        'POST',
        '/v1/runs',
        { ...body, variables: { build: '7', apiKey: { value: 'run-SECRET-0000', secret: true } } },
        { headers: { 'idempotency-key': 'secret-run-1' } },
      );
      expect(other.status).to.equal(422);
      expect(other.body.code).to.equal('idempotency-key-reused');

      await waitForRun(app, runId);
      const row = await runRow(app, runId);
      const all = JSON.stringify(await app.dataSource.query('SELECT * FROM runs'));
      expect(all)
        .to.not.contain('run-SECRET-5678')
        .and.not.contain('run-SECRET-0000')
        .and.not.contain('tok-SECRET-1234')
        .and.not.contain('pin-SECRET-4321');
      expect(json(row.variables).apiKey.sealed).to.match(/^v1\.k1\./);
      expect(openVariables(json(row.variables), ring).values).to.deep.equal({ build: '7', apiKey: 'run-SECRET-5678' });
      expect(row.idempotencyFingerprint).to.match(/^[0-9a-f]{64}$/);

      expectInvalid(
        await app.request('POST', '/v1/runs', { runner: 'green', environment: 'svc', variables: { apiKey: MASKED } }),
        ['variables.apiKey'],
      );
      expectInvalid(
        await app.request('POST', '/v1/runs', {
          runner: 'green',
          environment: 'svc',
          variables: { apiKey: { value: 'ab', secret: true } },
        }),
        ['variables.apiKey.value'],
      );
    });

    it('takes secret variables in an incoming webhook body: sealed on the run, masked in its document, replayed without a plain secret', async () => {
      const d = (
        await app.request('POST', '/v1/deployments', {
          name: 'hooked',
          runner: 'green',
          environment: 'svc',
          webhookEnabled: true,
        })
      ).body;
      const hook = new URL(d.webhookUrl).pathname;
      const headers = { authorization: `Bearer ${d.webhookToken}`, 'idempotency-key': 'hook-1' };
      const body = {
        trigger: 'ci',
        branch: 'main',
        variables: { plain: 'p', hookSecret: { value: 'hook-SECRET-9012', secret: true } },
      };
      const started = await app.request('POST', hook, body, { key: null, headers });
      expect(started.status, JSON.stringify(started.body)).to.equal(200);
      const runId = started.body.runId as string;
      const doc = (await app.request('GET', `/v1/runs/${runId}`)).body;
      expect(doc.variables).to.deep.equal({ plain: 'p', hookSecret: MASKED });
      expect(doc.context).to.deep.equal({ trigger: 'ci', branch: 'main' });
      const replay = await app.request('POST', hook, body, { key: null, headers });
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.body.runId).to.equal(runId);
      await waitForRun(app, runId);
      const row = await runRow(app, runId);
      expect(JSON.stringify(row)).to.not.contain('hook-SECRET-9012');
      expect(openVariables(json(row.variables), ring).values).to.deep.equal({
        plain: 'p',
        hookSecret: 'hook-SECRET-9012',
      });
      expectInvalid(
        await app.request(
          'POST',
          hook,
          { variables: { s: { value: 'ab', secret: true } } },
          { key: null, headers: { authorization: `Bearer ${d.webhookToken}` } },
        ),
        ['variables.s.value'],
      );
      expectInvalid(
        await app.request(
          'POST',
          hook,
          { variables: { s: MASKED } },
          { key: null, headers: { authorization: `Bearer ${d.webhookToken}` } },
        ),
        ['variables.s'],
      );
    });
  });

  describe('deployments', () => {
    let deploymentId: string;

    it('stores the signing secret and webhook header values sealed; a delivery still carries them and verifies', async () => {
      const created = await app.request('POST', '/v1/deployments', {
        name: 'signed',
        runner: 'green',
        environment: 'svc',
        webhooks: {
          onComplete: [{ url: `${receiver.url}/signed`, headers: { Authorization: 'Bearer recv-SECRET-3456' } }],
        },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      deploymentId = created.body.id;
      const secret = created.body.signingSecret as string;
      expect(secret).to.match(/^whsec_/);
      const row = await deploymentRow(app, deploymentId);
      expect(row.signingSecret)
        .to.match(/^v1\.k1\./)
        .and.not.contain(secret.slice(6));
      expect(text(row.webhooks)).to.not.contain('recv-SECRET-3456');
      expect(JSON.stringify((await app.request('GET', `/v1/deployments/${deploymentId}`)).body))
        .to.not.contain(secret)
        .and.not.contain('recv-SECRET-3456');

      receiver.secret = secret;
      const { runId } = (await app.request('POST', `/v1/deployments/${deploymentId}/runs`)).body;
      await waitForRun(app, runId);
      const got = await eventually(
        async () => receiver.received.find((r) => r.path === '/signed' && r.body?.run?.runId === runId),
        30_000,
        100,
      );
      expect(got.headers.authorization).to.equal('Bearer recv-SECRET-3456');
      expect(verifySignature(secret, Buffer.from(got.raw), got.headers['x-assay-signature'] as string)).to.equal(true);
    });

    it('seals a signing secret given on PATCH, and one stored plain before encryption on its next use', async () => {
      const patched = await app.request('PATCH', `/v1/deployments/${deploymentId}`, {
        signingSecret: 'my-own-signing-secret-0001',
      });
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      expect(patched.body).to.not.have.property('signingSecret');
      expect((await deploymentRow(app, deploymentId)).signingSecret).to.match(/^v1\.k1\./);
      receiver.secret = 'my-own-signing-secret-0001';
      const one = (await app.request('POST', `/v1/deployments/${deploymentId}/runs`)).body.runId;
      await eventually(async () => receiver.received.some((r) => r.body?.run?.runId === one), 60_000, 100);

      // A row from before encryption: plain signing secret and header value.
      await app.dataSource.query('UPDATE deployments SET signingSecret = ?, webhooks = ? WHERE id = ?', [
        'legacy-plain-secret-0002',
        JSON.stringify({
          onComplete: [{ url: `${receiver.url}/signed`, headers: { Authorization: 'Bearer legacy-token' } }],
        }),
        deploymentId,
      ]);
      receiver.secret = 'legacy-plain-secret-0002';
      const two = (await app.request('POST', `/v1/deployments/${deploymentId}/runs`)).body.runId;
      const got = await eventually(async () => receiver.received.find((r) => r.body?.run?.runId === two), 60_000, 100);
      expect(got.headers.authorization).to.equal('Bearer legacy-token');
      expect((await deploymentRow(app, deploymentId)).signingSecret).to.match(/^v1\.k1\./);
      // Its next write seals the header values too.
      await app.request('PATCH', `/v1/deployments/${deploymentId}`, { enabled: true });
      expect(text((await deploymentRow(app, deploymentId)).webhooks)).to.not.contain('legacy-token');
    });
  });

  describe('key rotation', () => {
    let rotated: TestApp | undefined;
    after(async () => {
      await rotated?.stop();
    });

    it('uses secrets sealed with k1 under ASSAY_SECRET_KEYS=k2,k1, and a write seals them again under k2', async () => {
      const oldEnv = await envRow(app, 'svc');
      rotated = await startTestApp({
        worker: true,
        env: {
          ASSAY_SECRET_KEYS: `${K2},${K1}`,
          ASSAY_WEBHOOK_RETRY_INITIAL_MS: '200',
          ASSAY_WEBHOOK_RETRY_MAX_MS: '1000',
        },
      });
      const ring2 = keyRingFor(rotated.config.secretKeys, rotated.config.dataDir);
      expect(ring2.primaryId).to.equal('k2');
      // The environment row as the old key sealed it.
      await rotated.dataSource.query(
        'INSERT INTO environments (id, workspaceId, name, description, variables, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, NOW(3), NOW(3))',
        ['env_rotated0000000000000000', rotated.workspaceId, 'svc', '', text(oldEnv)],
      );
      expect((await rotated.request('GET', '/v1/environments/svc')).body.variables).to.deep.equal({
        base: target.url,
        token: MASKED,
        pin: MASKED,
      });
      expect(openVariables(json(await envRow(rotated, 'svc')), ring2).values).to.deep.equal({
        base: target.url,
        token: 'tok-SECRET-1234',
        pin: 'pin-SECRET-4321',
      });

      // A deployment whose signing secret and header were sealed with k1 only: its delivery works under k2,k1.
      await rotated.request('POST', '/v1/test-cases', {
        name: 'ok',
        folder: 'green',
        flow: [
          {
            type: 'api',
            request: { method: 'GET', url: '{{base}}/users/1' },
            assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
          },
        ],
      });
      await rotated.request('POST', '/v1/runners', { name: 'green', folder: 'green' });
      const d = (
        await rotated.request('POST', '/v1/deployments', { name: 'old-key', runner: 'green', environment: 'svc' })
      ).body;
      const k1Only = new KeyRing(parseSecretKeys(K1));
      const webhooks = sealWebhookHeaders(k1Only, d.id, {
        onComplete: [{ url: `${receiver.url}/rotated`, headers: { Authorization: 'Bearer rotated-token' } }],
      });
      await rotated.dataSource.query('UPDATE deployments SET signingSecret = ?, webhooks = ? WHERE id = ?', [
        sealSigningSecret(k1Only, d.id, 'k1-signing-secret-0003'),
        JSON.stringify(webhooks),
        d.id,
      ]);
      receiver.secret = 'k1-signing-secret-0003';
      const runId = (await rotated.request('POST', `/v1/deployments/${d.id}/runs`)).body.runId;
      const got = await eventually(
        async () => receiver.received.find((r) => r.path === '/rotated' && r.body?.run?.runId === runId),
        60_000,
        100,
      );
      expect(got.headers.authorization).to.equal('Bearer rotated-token');
      expect((await deploymentRow(rotated, d.id)).signingSecret).to.match(/^v1\.k2\./);

      // Writing the environment seals its secrets again under k2; the values stay.
      const patched = await rotated.request('PATCH', '/v1/environments/svc', { description: 'rotated' });
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      const resealed = json(await envRow(rotated, 'svc'));
      expect(resealed.token.sealed).to.match(/^v1\.k2\./);
      expect(resealed.pin.sealed).to.match(/^v1\.k2\./);
      expect(openVariables(resealed, new KeyRing(parseSecretKeys(K2))).values).to.deep.equal({
        base: target.url,
        token: 'tok-SECRET-1234',
        pin: 'pin-SECRET-4321',
      });
      // The deployment's write seals its header values under k2 as well.
      await rotated.request('PATCH', `/v1/deployments/${d.id}`, { enabled: true });
      const headers = json((await deploymentRow(rotated, d.id)).webhooks).onComplete[0].headers;
      expect(headers.Authorization).to.match(/^v1\.k2\./);
    });
  });
});
