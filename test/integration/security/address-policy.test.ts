/**
 * The address policy end to end (docs/security.md "Address policy (outgoing requests)"): workspace B's API node, script `fetch`,
 * library URL and outgoing webhook each try the Temporal frontend (its gRPC port, over HTTP), the
 * Temporal Web UI (a loopback server standing in for it, named by TEMPORAL_UI_URL) and the API's
 * own port, in several spellings. Every one is refused with the policy's message, the servers see
 * no request, the run itself ends normally; the same kinds still reach an ordinary loopback target,
 * which the test app's operator allows (local development egress: src/config.ts LOCAL_DEVELOPMENT_EGRESS).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { eventually, startTestApp, type TestApp } from '../../helpers/app';
import { startReceiver, type Receiver } from '../../helpers/receiver';
import { startTarget, type Target } from '../../helpers/target';

/**
 * A loopback HTTP server that only counts what reaches it (the stand-in for the Temporal Web UI);
 * with `redirectTo`, it answers 302 to that URL instead.
 */
async function startCounter(
  redirectTo?: string,
): Promise<{ url: string; port: number; paths: string[]; close(): Promise<void> }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    if (redirectTo) res.writeHead(302, { location: redirectTo }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"executions":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('address policy: user requests never reach the service itself', function () {
  this.timeout(180_000);
  let app: TestApp;
  let ui: Awaited<ReturnType<typeof startCounter>>;
  let redirector: Awaited<ReturnType<typeof startCounter>>;
  let target: Target;
  let receiver: Receiver;
  /** Requests the API answered whose path carries the probe marker. */
  const apiProbes: string[] = [];

  before(async () => {
    ui = await startCounter();
    redirector = await startCounter(`${ui.url}/egress-probe-redirected`);
    [app, target, receiver] = await Promise.all([
      startTestApp({ worker: true, env: { TEMPORAL_UI_URL: ui.url } }),
      startTarget(),
      startReceiver(),
    ]);
    app.api.server.on('request', (req: http.IncomingMessage) => {
      if (req.url?.includes('egress-probe')) apiProbes.push(req.url);
    });
  });
  after(async () => {
    await receiver?.close();
    await target?.close();
    await app?.stop();
    await ui?.close();
    await redirector?.close();
  });

  it("refuses workspace B's API node, script fetch, library URL and outgoing webhook to Temporal, its Web UI and the API's port, in every spelling", async () => {
    const keyB = await app.issueKey('write', 'team-b');
    const asB = <T = any>(method: string, path: string, body?: unknown) =>
      app.request<T>(method, path, body, { key: keyB });
    const temporalPort = Number(app.config.temporal.address.split(':').pop());
    const apiPort = Number(new URL(app.url).port);
    const forbidden: Record<string, string> = {
      'temporal frontend': `http://${app.config.temporal.address}/egress-probe`,
      'temporal frontend as localhost': `http://localhost:${temporalPort}/egress-probe`,
      'web ui': `${ui.url}/api/v1/namespaces/default/workflows?query=AssayWorkspace&egress-probe`,
      'web ui as 2130706433': `http://2130706433:${ui.port}/api/v1/namespaces/default/workflows/run-x/cancel?egress-probe`,
      'web ui as [::ffff:127.0.0.1]': `http://[::ffff:127.0.0.1]:${ui.port}/egress-probe`,
      'web ui as 0x7f000001': `http://0x7f000001:${ui.port}/egress-probe`,
      'api port': `http://127.0.0.1:${apiPort}/v1/egress-probe`,
      'api port as 127.1': `http://127.1:${apiPort}/v1/egress-probe`,
      'api port as localhost': `http://localhost:${apiPort}/v1/egress-probe`,
    };
    const cases: Array<{ name: string; flow: unknown[] }> = [];
    for (const [what, url] of Object.entries(forbidden)) {
      cases.push({ name: `node → ${what}`, flow: [{ type: 'api', id: 'n', request: { method: 'GET', url } }] });
      cases.push({
        name: `node POST → ${what}`,
        flow: [{ type: 'api', id: 'n', request: { method: 'POST', url, body: { reason: 'x' } } }],
      });
      cases.push({
        name: `script → ${what}`,
        flow: [
          { type: 'script', id: 's', script: { code: `await fetch(${JSON.stringify(url)}, { method: 'POST' });` } },
        ],
      });
      cases.push({
        name: `library → ${what}`,
        flow: [{ type: 'script', id: 's', script: { code: '$log("loaded")', libs: [url] } }],
      });
    }
    // A redirect from an allowed target to the Web UI is refused at the hop.
    cases.push({
      name: 'node redirected → web ui',
      flow: [{ type: 'api', id: 'n', request: { method: 'GET', url: `${redirector.url}/hop`, followRedirects: true } }],
    });
    cases.push({
      name: 'script redirected → web ui',
      flow: [{ type: 'script', id: 's', script: { code: `await fetch(${JSON.stringify(`${redirector.url}/hop`)});` } }],
    });
    // The operator allows loopback: an ordinary target is still reached by every kind.
    cases.push({
      name: 'allowed target',
      flow: [
        {
          type: 'api',
          id: 'n',
          request: { method: 'GET', url: `${target.url}/users/1` },
          assertions: [{ target: 'response.status', operator: 'equals', expected: 200 }],
        },
        {
          type: 'script',
          id: 's',
          script: {
            code: `const r = await fetch(${JSON.stringify(`${target.url}/users/2`)}); if (r.status !== 200) throw new Error('status ' + r.status);`,
          },
        },
        {
          type: 'script',
          id: 'l',
          script: {
            code: 'if (Greeter.greet("b") !== "hello, b!") throw new Error("no library")',
            libs: [`${target.url}/libs/greeter.umd.js`],
          },
        },
      ],
    });
    for (const c of cases) {
      const res = await asB('POST', '/v1/test-cases', { ...c, folder: 'probe' });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    expect((await asB('POST', '/v1/environments', { name: 'b-env', variables: {} })).status).to.equal(201);
    expect((await asB('POST', '/v1/runners', { name: 'probe', folder: 'probe', order: 'createdAt' })).status).to.equal(
      201,
    );
    const webhookUrls = Object.values(forbidden);
    const deployment = await asB('POST', '/v1/deployments', {
      name: 'probe',
      runner: 'probe',
      environment: 'b-env',
      webhooks: { onComplete: [...webhookUrls.map((url) => ({ url })), { url: `${receiver.url}/fine` }] },
    });
    expect(deployment.status, JSON.stringify(deployment.body)).to.equal(201);
    receiver.secret = deployment.body.signingSecret;

    const started = await asB('POST', `/v1/deployments/${deployment.body.id}/runs`);
    expect(started.status, JSON.stringify(started.body)).to.be.oneOf([201, 202]);
    const runId = started.body.runId;
    // Polled with B's key: the run belongs to workspace B.
    const run = await eventually(
      async () => {
        const body = (await asB('GET', `/v1/runs/${runId}`)).body;
        return body.status === 'completed' || body.status === 'failed' ? body : undefined;
      },
      120_000,
      150,
    );
    // Refusals fail nodes, never the run.
    expect(run).to.include({ status: 'completed', result: 'failed' });
    const results = (await asB('GET', `/v1/runs/${runId}/results`)).body;
    const byName = new Map<string, any>(results.details.testCases.map((c: { name: string }) => [c.name, c]));
    for (const what of Object.keys(forbidden)) {
      for (const kind of ['node', 'node POST', 'script', 'library']) {
        const c = byName.get(`${kind} → ${what}`);
        expect(c, `${kind} → ${what}`).to.not.equal(undefined);
        expect(c.status, `${kind} → ${what}`).to.equal('failed');
        const message = JSON.stringify(c.failures ?? c.nodes);
        expect(message, `${kind} → ${what}`).to.contain('The address policy refuses');
        if (kind.startsWith('node')) expect(c.nodes[0].error, `${kind} → ${what}`).to.contain('ADDRESS_NOT_ALLOWED');
      }
    }
    expect(JSON.stringify(byName.get('node → web ui').nodes[0].error)).to.contain(
      'the Temporal Web UI (TEMPORAL_UI_URL)',
    );
    expect(JSON.stringify(byName.get('node → temporal frontend').nodes[0].error)).to.contain(
      'the Temporal frontend (TEMPORAL_ADDRESS)',
    );
    expect(JSON.stringify(byName.get('script → api port').failures)).to.contain("the API's own port");
    const redirected = byName.get('node redirected → web ui');
    expect(redirected.status).to.equal('failed');
    expect(redirected.nodes[0].error).to.contain('ADDRESS_NOT_ALLOWED');
    const scriptRedirected = byName.get('script redirected → web ui');
    expect(scriptRedirected.status).to.equal('failed');
    expect(JSON.stringify(scriptRedirected.failures)).to.contain('The address policy refuses');
    expect(redirector.paths).to.deep.equal(['/hop', '/hop']);
    expect(byName.get('allowed target').status, JSON.stringify(byName.get('allowed target'))).to.equal('passed');

    const deliveries = await eventually(
      async () => {
        const items = (await asB('GET', `/v1/runs/${runId}/deliveries`)).body.items as Array<{
          status: string;
          lastError: string | null;
          url?: string;
        }>;
        return items.length === webhookUrls.length + 1 && items.every((d) => d.status !== 'pending')
          ? items
          : undefined;
      },
      60_000,
      200,
    );
    const refused = deliveries.filter((d) => d.status === 'failed');
    expect(refused, JSON.stringify(deliveries)).to.have.length(webhookUrls.length);
    for (const d of refused) expect(d.lastError).to.contain('The address policy refuses');
    expect(deliveries.filter((d) => d.status === 'delivered')).to.have.length(1);
    expect(receiver.received.map((r) => r.path)).to.deep.equal(['/fine']);

    // Nothing reached the Web UI or the API.
    expect(ui.paths).to.deep.equal([]);
    expect(apiProbes).to.deep.equal([]);
  });
});
