/**
 * A secret never leaks (docs/secrets.md "Masking in results, logs, webhooks and reports"): a run of a deployment whose environment holds a secret used in
 * the URL, a header, the body, a script's logs, a failing assertion and a script error, run by a
 * real Assay process (API + worker, `node dist/bin/main.js all`, logging at trace level) on the
 * Temporal dev server, reporting to an outgoing webhook receiver. The secret — and its URL-encoded
 * and base64 forms — must appear nowhere: not in the database rows of the run, its results or its
 * webhook deliveries, not in what the receiver got, not in the API's answers, not in the process's
 * log output (nor is any key of the ring), and not in the workflow history Temporal stores (fetched without the codec). With
 * the codec, the history decodes and the run did use the value.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { startTestApp, TEST_SECRET_KEYS, waitForRun, type TestApp } from '../../helpers/app';
import { parseSecretKeys } from '../../../src/secrets/keyring';
import { processEnv, spawnAssay, waitForHttp, type AssayProcess } from '../../helpers/processes';
import { startReceiver, type Receiver } from '../../helpers/receiver';
import { startTarget, type Target } from '../../helpers/target';
import { payloadCodec } from '../../../src/temporal/codec';
import { freePort } from '../../../src/net/free-port';

describe('secrets never leak: results, deliveries, logs, the Temporal history', function () {
  this.timeout(180_000);
  const secret = `S3cr3t-${randomBytes(8).toString('hex')}`;
  const forms = [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64').replace(/=+$/, '')];
  let app: TestApp;
  let target: Target;
  let receiver: Receiver;
  let proc: AssayProcess;
  let api: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
  };
  const expectNoSecret = (where: string, text: string) => {
    for (const f of forms)
      expect(text.includes(f), `${where} holds the secret (${f === secret ? 'as is' : f})`).to.equal(false);
  };

  before(async () => {
    [app, target, receiver] = await Promise.all([startTestApp(), startTarget(), startReceiver()]);
    const port = await freePort();
    proc = spawnAssay(
      'all',
      processEnv(app, {
        ASSAY_PORT: String(port),
        ASSAY_LOG_LEVEL: 'trace',
        ASSAY_PUBLIC_URL: `http://127.0.0.1:${port}`,
      }),
    );
    api = `http://127.0.0.1:${port}`;
    await waitForHttp(`${api}/healthz`);
  });
  after(async () => {
    await proc?.kill();
    await receiver?.close();
    await target?.close();
    await app?.stop();
  });

  it('a run using a secret everywhere stores, sends, logs and records it nowhere', async () => {
    const env = await call('POST', '/v1/environments', {
      name: 'prod',
      variables: { base: target.url, token: { value: secret, secret: true } },
    });
    expect(env.status, env.text).to.equal(201);
    expect(env.body.variables.token).to.deep.equal({ secret: true, value: '***' });
    const flow = [
      {
        type: 'api',
        id: 'echo',
        request: {
          method: 'POST',
          url: '{{base}}/echo?t={{token}}',
          headers: { Authorization: 'Bearer {{token}}' },
          body: { secret: '{{token}}' },
        },
        script: {
          code: "async function afterResponse() { $log('token is', $context.get('token')); console.info(btoa($context.get('token'))); $context.set('copy', $context.get('token')); }",
        },
        assertions: [
          { target: 'response.status', operator: 'equals', expected: 200 },
          {
            name: 'echoed query is not the token (fails on purpose, showing actual)',
            target: 'response.body.query.t',
            operator: 'equals',
            expected: 'something else',
          },
        ],
      },
      { type: 'script', id: 'boom', script: { code: "throw new Error('refused with ' + $context.get('copy'))" } },
    ];
    const tc = await call('POST', '/v1/test-cases', { name: 'uses the secret', folder: 'secret', flow });
    expect(tc.status, tc.text).to.equal(201);
    expect((await call('POST', '/v1/runners', { name: 'secret', folder: 'secret' })).status).to.equal(201);
    const hook = {
      url: `${receiver.url}/hook`,
      method: 'POST',
      payload: { details: '{{result.details}}', status: '{{result.status}}' },
    };
    const dep = await call('POST', '/v1/deployments', {
      name: 'with-secret',
      runner: 'secret',
      environment: 'prod',
      enabled: true,
      webhooks: { onComplete: [hook], onFailure: [hook] },
    });
    expect(dep.status, dep.text).to.equal(201);
    receiver.secret = dep.body.signingSecret; // the receiver checks the signature (made with the sealed-at-rest secret)

    const started = await call('POST', `/v1/deployments/${dep.body.id}/runs`, {});
    expect(started.status, started.text).to.equal(201);
    const runId = started.body.runId as string;
    const run = await waitForRun(app, runId, 90_000);
    expect(run).to.include({ status: 'completed', result: 'failed' });

    // The run did use the secret: the target received it in the query, the header and the body.
    // (The echo answer held it too, and the assertion's actual value.)
    const results = await call('GET', `/v1/runs/${runId}/results`);
    expectNoSecret('the results answer', results.text);
    const node = results.body.details.testCases[0].nodes[0];
    expect(node.request.url).to.equal(`${target.url}/echo?t=***`);
    expect(node.assertions[1]).to.include({ passed: false, actual: '***' });
    expect(JSON.stringify(node.logs)).to.include('token is ***');
    expect(results.body.details.testCases[0].nodes[1].error).to.include('refused with ***');

    expectNoSecret('the run answer', (await call('GET', `/v1/runs/${runId}`)).text);
    expectNoSecret('the environment answer', (await call('GET', '/v1/environments/prod')).text);

    // Database rows: the run (its frozen plan keeps the secret sealed), its results, its deliveries.
    const rows = async (sql: string) => JSON.stringify(await app.dataSource.query(sql, [runId]));
    expectNoSecret('the runs row', await rows('SELECT * FROM runs WHERE id = ?'));
    expectNoSecret('the result rows', await rows('SELECT * FROM run_test_case_results WHERE runId = ?'));
    expectNoSecret(
      'the environment row',
      JSON.stringify(await app.dataSource.query("SELECT * FROM environments WHERE name = 'prod'")),
    );

    // The outgoing webhook and its stored delivery.
    const got = await (async () => {
      for (let i = 0; i < 100; i++) {
        const r = receiver.received.find((x) => x.path === '/hook');
        if (r) return r;
        await new Promise((res) => setTimeout(res, 100));
      }
      throw new Error('no delivery');
    })();
    expect(got.raw).to.include('***');
    expectNoSecret('the delivered webhook', got.raw);
    expectNoSecret('the delivery rows', await rows('SELECT * FROM webhook_deliveries WHERE runId = ?'));

    // The process's own log output, at trace level.
    expect(proc.output().length).to.be.greaterThan(1000);
    if (process.env.DEBUG_SECRETS)
      for (const line of proc.output().split('\n'))
        if (forms.some((f) => line.includes(f))) console.log('LEAK', line.slice(0, 1500));
    expectNoSecret('the log output', proc.output());
    // Nor the key ring: the Temporal SDK logs the worker's options (its data converter) at debug level.
    for (const { key } of parseSecretKeys(TEST_SECRET_KEYS)) {
      const asJsonBytes = JSON.stringify(Object.fromEntries([...key.subarray(0, 4)].map((b, i) => [i, b]))).slice(
        0,
        -1,
      );
      for (const form of [key.toString('base64'), key.toString('base64url'), key.toString('hex'), asJsonBytes])
        expect(proc.output().includes(form), `the log output holds a key of the ring (${form.slice(0, 8)}…)`).to.equal(
          false,
        );
    }
    expect(proc.output(), 'the worker logged its options').to.include('"msg":"Creating worker"');

    // The history Temporal stores: ciphertext without the codec; the value with it.
    const connection = await Connection.connect({ address: app.config.temporal.address });
    try {
      const plain = new Client({ connection });
      const history = await plain.workflow.getHandle(`run-${runId}`).fetchHistory();
      const raw = JSON.stringify(history);
      expectNoSecret('the raw workflow history', raw);
      expectNoSecret('the raw workflow history (payload bytes)', Buffer.from(raw).toString('latin1'));
      // Every payload of the history is ciphertext; decoded with the run's key ring, the plan the
      // workflow got does hold the value (the run used it).
      const payloads: Array<{ metadata?: Record<string, Uint8Array>; data?: Uint8Array }> = [];
      const walk = (v: unknown) => {
        if (!v || typeof v !== 'object') return;
        if (Array.isArray(v)) return v.forEach(walk);
        const o = v as Record<string, unknown>;
        if (o.metadata && o.data instanceof Uint8Array) payloads.push(o as never);
        else Object.values(o).forEach(walk);
      };
      walk(history);
      expect(payloads.length).to.be.greaterThan(3);
      const decoded = await payloadCodec(app.config).decode(payloads as never);
      expect(
        decoded.some((p) =>
          Buffer.from(p.data ?? [])
            .toString('utf8')
            .includes(secret),
        ),
      ).to.equal(true);
      // What the codec server shows the run's own workspace (the Web UI, the CLI): the secret sealed, `***`.
      const shown = payloadCodec(app.config)
        .decodeFor(payloads as never, { workspaceId: app.workspaceId })
        .map((p) => Buffer.from(p.data ?? []).toString('utf8'))
        .join('\n');
      expect(shown).to.include('***');
      expectNoSecret('the history decoded by the codec server', shown);
    } finally {
      await connection.close();
    }
  });
});
