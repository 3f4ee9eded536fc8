/**
 * Secrets at rest and in answers (api/secrets.ts, src/private-files.ts,
 * docs/security.md): outgoing webhook header values are masked in every answer and `"***"` sent
 * back keeps the stored value; environment variable values are masked for read-scope keys; the
 * data folder is 0700 and the data files 0600.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/logger';
import { ensureDevKey, openStore } from '../../../bin/processes';
import { Deployment, Environment } from '../../../src/store/entities';
import { findTemporalCli, startDevServer } from '../../../src/temporal/dev-server';
import { KeyRing, keyRingFor } from '../../../src/secrets/keyring';
import { openWebhookHeaders } from '../../../src/store/entities/deployment-secrets';

const mode = (file: string): string => (fs.statSync(file).mode & 0o777).toString(8);

describe('secrets at rest and in answers', function () {
  this.timeout(120_000);

  describe('in answers', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ worker: true });
      await app.request('POST', '/v1/environments', {
        name: 'local',
        variables: { base: 'http://127.0.0.1:9', token: 's3cret-token', retries: 3, verbose: true },
      });
      await app.request('POST', '/v1/test-cases', { name: 'waits', folder: 'any', flow: [{ type: 'wait', ms: 1 }] });
      await app.request('POST', '/v1/runners', { name: 'all', folder: 'any' });
    });
    after(async () => {
      await app?.stop();
    });

    // Header values are sealed at rest (docs/secrets.md "Deployments"): every one is `v1.…`; opened here to compare.
    const stored = async (id: string) => {
      const { webhooks } = await app.dataSource.getRepository(Deployment).findOneByOrFail({ id });
      for (const entry of [...(webhooks?.onComplete ?? []), ...(webhooks?.onFailure ?? [])])
        for (const v of Object.values(entry.headers ?? {})) expect(KeyRing.isSealed(v), v).to.equal(true);
      return openWebhookHeaders(keyRingFor(app.config.secretKeys, app.config.dataDir), id, webhooks)!;
    };

    it('outgoing webhook header values are "***" in POST, GET, list and PATCH answers; the stored values stay', async () => {
      const created = await app.request('POST', '/v1/deployments', {
        name: 'hooks',
        runner: 'all',
        environment: 'local',
        webhooks: {
          onComplete: [
            {
              url: 'https://receiver.example/a',
              headers: { Authorization: 'Bearer receiver-token-1', 'X-Team': 'qa' },
            },
          ],
          onFailure: [
            { url: 'https://receiver.example/b', headers: { 'X-Api-Key': 'k-2' } },
            { url: 'https://receiver.example/c' },
          ],
        },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = created.body.id as string;
      const masked = {
        onComplete: [{ url: 'https://receiver.example/a', headers: { Authorization: '***', 'X-Team': '***' } }],
        onFailure: [
          { url: 'https://receiver.example/b', headers: { 'X-Api-Key': '***' } },
          { url: 'https://receiver.example/c' },
        ],
      };
      expect(created.body.webhooks).to.deep.equal(masked);
      for (const scope of ['read', 'run', 'write'] as const) {
        const key = await app.issueKey(scope);
        expect((await app.request('GET', `/v1/deployments/${id}`, undefined, { key })).body.webhooks).to.deep.equal(
          masked,
        );
        expect((await app.request('GET', '/v1/deployments', undefined, { key })).body.items[0].webhooks).to.deep.equal(
          masked,
        );
      }
      expect(JSON.stringify((await app.request('GET', `/v1/deployments/${id}`)).body)).to.not.contain(
        'receiver-token-1',
      );
      expect((await stored(id)).onComplete![0]!.headers).to.deep.equal({
        Authorization: 'Bearer receiver-token-1',
        'X-Team': 'qa',
      });

      // Sending the answer back unchanged keeps every stored value.
      const same = await app.request('PATCH', `/v1/deployments/${id}`, { webhooks: created.body.webhooks });
      expect(same.status, JSON.stringify(same.body)).to.equal(200);
      expect(same.body.webhooks).to.deep.equal(masked);
      expect(await stored(id)).to.deep.equal({
        onComplete: [
          { url: 'https://receiver.example/a', headers: { Authorization: 'Bearer receiver-token-1', 'X-Team': 'qa' } },
        ],
        onFailure: [
          { url: 'https://receiver.example/b', headers: { 'X-Api-Key': 'k-2' } },
          { url: 'https://receiver.example/c' },
        ],
      });

      // A new value replaces; "***" keeps (header names match case-insensitively); a dropped header goes.
      const changed = await app.request('PATCH', `/v1/deployments/${id}`, {
        webhooks: {
          onComplete: [{ url: 'https://receiver.example/a2', headers: { authorization: '***', 'X-Team': 'ops' } }],
          onFailure: [{ url: 'https://receiver.example/b', headers: {} }],
        },
      });
      expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
      expect(await stored(id)).to.deep.equal({
        onComplete: [
          {
            url: 'https://receiver.example/a2',
            headers: { authorization: 'Bearer receiver-token-1', 'X-Team': 'ops' },
          },
        ],
        onFailure: [{ url: 'https://receiver.example/b', headers: {} }],
      });
    });

    it('"***" with no stored value to keep is a 400 naming the header, and nothing is stored', async () => {
      const created = await app.request('POST', '/v1/deployments', {
        name: 'masked-new',
        runner: 'all',
        environment: 'local',
        webhooks: { onComplete: [{ url: 'https://receiver.example/a', headers: { Authorization: '***' } }] },
      });
      expect(created.status).to.equal(400);
      expect(created.body.code).to.equal('validation-failed');
      expect(created.body.errors[0]).to.include({
        field: 'webhooks.onComplete[0].headers.Authorization',
        pointer: '#/webhooks/onComplete/0/headers/Authorization',
      });
      expect(await app.dataSource.getRepository(Deployment).countBy({ name: 'masked-new' })).to.equal(0);

      const id = (
        await app.request('POST', '/v1/deployments', {
          name: 'one-header',
          runner: 'all',
          environment: 'local',
          webhooks: { onComplete: [{ url: 'https://r.example/', headers: { 'X-A': 'a' } }] },
        })
      ).body.id;
      const before = await stored(id);
      const patched = await app.request('PATCH', `/v1/deployments/${id}`, {
        name: 'renamed',
        webhooks: {
          onComplete: [{ url: 'https://r.example/', headers: { 'X-A': '***', 'X-B': '***' } }],
          onFailure: [{ url: 'https://r.example/f', headers: { 'X-A': '***' } }],
        },
      });
      expect(patched.status).to.equal(400);
      expect(patched.body.errors.map((e: { field: string }) => e.field)).to.deep.equal([
        'webhooks.onComplete[0].headers["X-B"]',
        'webhooks.onFailure[0].headers["X-A"]',
      ]);
      expect(await stored(id)).to.deep.equal(before);
      expect((await app.dataSource.getRepository(Deployment).findOneByOrFail({ id })).name).to.equal('one-header');
    });

    it('environment and run variable values are "***" for read-scope keys and in clear for run and write keys', async () => {
      const read = await app.issueKey('read');
      const one = await app.request('GET', '/v1/environments/local', undefined, { key: read });
      expect(one.status).to.equal(200);
      expect(one.body.variables).to.deep.equal({ base: '***', token: '***', retries: '***', verbose: '***' });
      const list = await app.request('GET', '/v1/environments', undefined, { key: read });
      expect(list.body.items.find((e: { name: string }) => e.name === 'local').variables).to.deep.equal({
        base: '***',
        token: '***',
        retries: '***',
        verbose: '***',
      });
      expect(JSON.stringify(list.body)).to.not.contain('s3cret-token');
      for (const scope of ['run', 'write'] as const) {
        const key = await app.issueKey(scope);
        expect((await app.request('GET', '/v1/environments/local', undefined, { key })).body.variables).to.deep.equal({
          base: 'http://127.0.0.1:9',
          token: 's3cret-token',
          retries: 3,
          verbose: true,
        });
      }
      // A run's own variables likewise.
      const started = await app.request('POST', '/v1/runs', {
        runner: 'all',
        environment: 'local',
        variables: { build: '1.4.2', apiToken: 'run-secret' },
      });
      expect(started.status, JSON.stringify(started.body)).to.equal(201);
      const runId = started.body.runId as string;
      expect((await app.request('GET', `/v1/runs/${runId}`, undefined, { key: read })).body.variables).to.deep.equal({
        build: '***',
        apiToken: '***',
      });
      const runs = await app.request('GET', '/v1/runs', undefined, { key: read });
      expect(runs.body.items.find((r: { runId: string }) => r.runId === runId).variables).to.deep.equal({
        build: '***',
        apiToken: '***',
      });
      expect(
        (await app.request('GET', `/v1/runs/${runId}`, undefined, { key: await app.issueKey('run') })).body.variables,
      ).to.deep.equal({ build: '1.4.2', apiToken: 'run-secret' });
      await waitForRun(app, runId);
      // The stored values are untouched by reading.
      expect(
        (await app.dataSource.getRepository(Environment).findOneByOrFail({ name: 'local' })).variables.token,
      ).to.equal('s3cret-token');
    });
  });

  describe('at rest: file modes', () => {
    let root: string;
    before(() => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-modes-'));
    });
    after(() => {
      fs.rmSync(root, { recursive: true, force: true });
    });

    it('a new data folder is 0700; the SQLite store, its -wal and -shm and dev-api-key are 0600 (umask 022)', async () => {
      const previous = process.umask(0o022);
      try {
        const dataDir = path.join(root, 'fresh', 'data');
        const config = loadConfig({ ASSAY_DATA_DIR: dataDir, ASSAY_LOG_LEVEL: 'silent' });
        expect(config.database.type).to.equal('sqlite');
        const ds = await openStore(config, createLogger('silent'));
        try {
          await ensureDevKey(config, ds);
          expect(mode(dataDir)).to.equal('700');
          const db = path.join(dataDir, 'assay.db');
          for (const file of [db, `${db}-wal`, `${db}-shm`, path.join(dataDir, 'dev-api-key')]) {
            expect(fs.existsSync(file), file).to.equal(true);
            expect(mode(file), file).to.equal('600');
          }
        } finally {
          await ds.destroy();
        }
      } finally {
        process.umask(previous);
      }
    });

    it('an existing data folder and files left world-readable by an older version are tightened at start', async () => {
      const dataDir = path.join(root, 'old');
      const config = loadConfig({ ASSAY_DATA_DIR: dataDir, ASSAY_LOG_LEVEL: 'silent' });
      const first = await openStore(config, createLogger('silent'));
      const key = await ensureDevKey(config, first);
      await first.destroy();
      const db = path.join(dataDir, 'assay.db');
      fs.chmodSync(dataDir, 0o755);
      for (const file of [db, path.join(dataDir, 'dev-api-key')]) fs.chmodSync(file, 0o644);
      const again = await openStore(config, createLogger('silent'));
      try {
        expect(await ensureDevKey(config, again)).to.equal(key);
        expect(mode(dataDir)).to.equal('700');
        expect(mode(db)).to.equal('600');
        expect(mode(path.join(dataDir, 'dev-api-key'))).to.equal('600');
      } finally {
        await again.destroy();
      }
    });

    it("the Temporal dev server's history file and log are 0600 in a new 0700 folder", async function () {
      if (!findTemporalCli()) this.skip();
      const dir = path.join(root, 'temporal', 'state');
      const server = await startDevServer({
        dbFile: path.join(dir, 'temporal.db'),
        logFile: path.join(root, 'temporal', 'temporal.log'),
      });
      try {
        expect(mode(dir)).to.equal('700');
        expect(mode(path.join(dir, 'temporal.db'))).to.equal('600');
        for (const extra of ['temporal.db-wal', 'temporal.db-shm']) {
          const file = path.join(dir, extra);
          if (fs.existsSync(file)) expect(mode(file), file).to.equal('600');
        }
        expect(mode(path.join(root, 'temporal', 'temporal.log'))).to.equal('600');
      } finally {
        await server.stop();
      }
    });
  });
});
