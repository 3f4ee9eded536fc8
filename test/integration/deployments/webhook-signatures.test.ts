/**
 * Outgoing webhook signatures (docs/deployments.md, docs/security.md "Outgoing
 * webhook signatures"): a real delivery carries `x-assay-signature` AND the Standard Webhooks
 * headers, which the `standardwebhooks` package verifies with the deployment's signing secret
 * given as the raw key; a retried delivery keeps its `webhook-id`; the same delivery replayed
 * later is refused by the library.
 */
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { eventually, startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { startReceiver, verifySignature, type Receiver } from '../../helpers/receiver';
import { startTarget, type Target } from '../../helpers/target';

describe('outgoing webhook signatures (x-assay-signature and Standard Webhooks)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let target: Target;
  let receiver: Receiver;

  before(async () => {
    [app, target, receiver] = await Promise.all([
      startTestApp({
        worker: true,
        env: { ASSAY_WEBHOOK_RETRY_INITIAL_MS: '200', ASSAY_WEBHOOK_RETRY_MAX_MS: '1000' },
      }),
      startTarget(),
      startReceiver(),
    ]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: target.url } });
    await app.request('POST', '/v1/test-cases', {
      name: 'ok',
      folder: 'f',
      flow: [
        {
          type: 'api',
          request: { method: 'GET', url: '{{base}}/users/1' },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
      ],
    });
    await app.request('POST', '/v1/runners', { name: 'r', folder: 'f' });
  });
  after(async () => {
    await receiver?.close();
    await target?.close();
    await app?.stop();
  });

  it('a delivery (retried once) carries both signatures; standardwebhooks verifies it, and refuses it replayed later or tampered', async () => {
    const created = await app.request('POST', '/v1/deployments', {
      name: 'signed',
      runner: 'r',
      environment: 'local',
      // A header the entry sets itself cannot replace the signature headers.
      webhooks: {
        onComplete: [
          { url: `${receiver.url}/signed`, headers: { 'webhook-signature': 'v1,forged', 'webhook-id': 'forged' } },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const secret = created.body.signingSecret as string;
    expect(secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    receiver.secret = secret;
    receiver.failFirst('/signed', 1);
    const { runId } = (await app.request('POST', `/v1/deployments/${created.body.id}/runs`)).body;
    await waitForRun(app, runId);
    const got = await eventually(async () => receiver.received.find((r) => r.path === '/signed'), 60_000, 100);
    const delivery = (await app.request('GET', `/v1/runs/${runId}/deliveries`)).body.items[0];
    expect(delivery.attempts).to.equal(2);

    // The spec's own signature still holds (the receiver checked it before accepting).
    expect(verifySignature(secret, Buffer.from(got.raw), got.headers['x-assay-signature'] as string)).to.equal(true);
    const headers = {
      'webhook-id': got.headers['webhook-id'] as string,
      'webhook-timestamp': got.headers['webhook-timestamp'] as string,
      'webhook-signature': got.headers['webhook-signature'] as string,
    };
    expect(headers['webhook-id']).to.equal(got.headers['x-assay-delivery']).and.to.equal(delivery.id);
    expect(headers['webhook-signature']).to.match(/^v1,/);
    expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).to.be.below(120);

    const wh = new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
    expect(wh.verify(got.raw, headers)).to.deep.equal(got.body);
    expect(
      new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`).verify(got.raw, headers),
    ).to.deep.equal(got.body);
    expect(() => wh.verify(got.raw.replace('"passed"', '"failed"'), headers)).to.throw(/No matching signature/);
    // Replayed 10 minutes later: the library refuses the old timestamp (tolerance 5 minutes), and
    // moving the timestamp breaks the signature.
    const realNow = Date.now;
    Date.now = () => realNow() + 10 * 60_000;
    try {
      expect(() => wh.verify(got.raw, headers)).to.throw(/too old/);
    } finally {
      Date.now = realNow;
    }
    const moved = String(Number(headers['webhook-timestamp']) - 1);
    expect(() => wh.verify(got.raw, { ...headers, 'webhook-timestamp': moved })).to.throw(/No matching signature/);
  });
});
