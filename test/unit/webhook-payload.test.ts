import { expect } from 'chai';
import { LoadMetrics, performanceResults } from '../../src/perf/metrics';
import { Webhook } from 'standardwebhooks';
import {
  defaultPayload,
  renderTemplate,
  signature,
  standardWebhookHeaders,
  templateIssues,
  type WebhookData,
} from '../../src/webhooks/payload';

const data: WebhookData = {
  event: 'run.completed',
  deployment: { id: 'dep_1', name: 'nightly', runner: 'smoke', environment: 'staging' },
  result: {
    runId: 'run_1',
    status: 'failed',
    runStatus: 'completed',
    result: 'failed',
    summary: { total: 12, passed: 11, failed: 1, skipped: 0 },
    details: { testCases: [] },
    passed: 11,
    failed: 1,
    skipped: 0,
    total: 12,
    duration: 4310,
    timestamp: '2026-11-21T03:00:05.210Z',
    detailsUrl: 'https://assay.example.com/v1/runs/run_1/results',
    error: null,
    trigger: 'webhook',
  },
  context: { version: '1.4.2', branch: 'main' },
};

describe('outgoing webhook payloads (src/webhooks/payload)', () => {
  it("gives templates a performance run's figures, and keeps the default payload to the figures (no series)", async () => {
    const metrics = new LoadMetrics();
    for (let i = 0; i < 100; i++)
      metrics.recordRequest({
        name: 'get',
        testCase: 'tc',
        durationMs: i < 95 ? 10 : 200,
        status: 200,
        bytesSent: 10,
        bytesReceived: 10,
        endedAtMs: 1_700_000_000_000 + i * 100,
      });
    const perf = { ...data, performance: performanceResults(metrics, [], 10_000) };
    expect(
      await renderTemplate(
        { text: 'p95 {{performance.p95ResponseTime}} ms, {{performance.requestsPerSecond}}/s' },
        perf,
      ),
    ).to.deep.equal({ text: 'p95 10.007 ms, 10/s' });
    const payload = defaultPayload(perf) as { performance: Record<string, unknown> };
    expect(payload.performance).to.include({ requests: 100, errorRate: 0 });
    expect(payload.performance).to.not.have.any.keys('series', 'byName', 'byTestCase');
    expect(defaultPayload(data)).to.not.have.property('performance');
  });

  it('signs the exact body bytes: sha256=<hex HMAC-SHA256>', () => {
    // RFC 4231 test case 2.
    expect(signature('Jefe', 'what do ya want for nothing?')).to.equal(
      'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  describe('Standard Webhooks headers, checked with the standardwebhooks package', () => {
    const secret = 'whsec_q9Xo-0uJ3nZ_kR2bH7sVwY4tLmC8eA1dF6gP5iN0oUk';
    const body = JSON.stringify({ event: 'run.completed', run: { runId: 'run_1' } });

    it('webhook-id, integer-second webhook-timestamp and a v1 signature the library verifies with the raw secret', () => {
      const headers = standardWebhookHeaders(secret, 'dlv_01', body);
      expect(headers['webhook-id']).to.equal('dlv_01');
      expect(headers['webhook-timestamp']).to.match(/^\d{10}$/);
      expect(headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]+=*$/);
      // The two documented ways of giving the library our key (the secret's UTF-8 bytes).
      expect(new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' }).verify(body, { ...headers })).to.deep.equal(
        JSON.parse(body),
      );
      expect(
        new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`).verify(body, { ...headers }),
      ).to.deep.equal(JSON.parse(body));
      // The library signs the same bytes the same way.
      const at = new Date(Number(headers['webhook-timestamp']) * 1000);
      expect(new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' }).sign('dlv_01', at, body)).to.equal(
        headers['webhook-signature'],
      );
    });

    it('a replayed (old) delivery, a tampered body, another id or another secret is refused', () => {
      const wh = new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
      const old = standardWebhookHeaders(secret, 'dlv_01', body, new Date(Date.now() - 10 * 60_000));
      expect(() => wh.verify(body, { ...old })).to.throw(/too old/);
      const fresh = standardWebhookHeaders(secret, 'dlv_01', body);
      expect(() => wh.verify(body.replace('run_1', 'run_2'), { ...fresh })).to.throw(/No matching signature/);
      expect(() => wh.verify(body, { ...fresh, 'webhook-id': 'dlv_02' })).to.throw(/No matching signature/);
      expect(() =>
        new Webhook(Buffer.from(`${secret}x`, 'utf8'), { format: 'raw' }).verify(body, { ...fresh }),
      ).to.throw(/No matching signature/);
    });
  });

  it('renders the Slack payload of docs/deployments.md', async () => {
    const slack = await renderTemplate(
      {
        text: "{{result.status = 'passed' ? ':white_check_mark:' : ':x:'}} {{deployment.name}} on {{deployment.environment}}: {{result.passed}}/{{result.total}} passed",
        blocks: [
          {
            type: 'section',
            text: {
              type: 'mrkdwn',
              text: '{{result.passed}} passed, {{result.failed}} failed in {{$round(result.duration / 1000, 1)}} s',
            },
          },
        ],
      },
      data,
    );
    expect(slack).to.deep.equal({
      text: ':x: nightly on staging: 11/12 passed',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '11 passed, 1 failed in 4.3 s' } }],
    });
  });

  it('renders the Discord payload: whole-value placeholders keep their type', async () => {
    const discord = (await renderTemplate(
      {
        color: "{{result.status = 'passed' ? 3066993 : 15158332}}",
        summary: '{{result.summary}}',
        v: '{{context.version}}',
        passed: '{{$string(result.passed)}}',
      },
      data,
    )) as Record<string, unknown>;
    expect(discord).to.deep.equal({
      color: 15158332,
      summary: { total: 12, passed: 11, failed: 1, skipped: 0 },
      v: '1.4.2',
      passed: '11',
    });
  });

  it('leaves placeholders that yield nothing as written; templates in keys work too', async () => {
    expect(
      await renderTemplate({ '{{deployment.name}}-key': '{{result.nothing}} and {{context.branch}}' }, data),
    ).to.deep.equal({ 'nightly-key': '{{result.nothing}} and main' });
  });

  it('reports placeholders that do not parse, with their path', () => {
    expect(
      templateIssues({ a: ['ok {{result.passed}}', 'bad {{result.(}}'] }, ['payload']).map((i) => i.path.join('.')),
    ).to.deep.equal(['payload.a.1']);
  });

  it('builds the default payload without the details', () => {
    const payload = defaultPayload(data) as { run: Record<string, unknown>; event: string };
    expect(payload.event).to.equal('run.completed');
    expect(payload.run).not.to.have.property('details');
    expect(payload.run).to.include({ runId: 'run_1', status: 'failed', total: 12 });
  });

  it('renders a heavy placeholder on the expression threads: the main thread keeps running, a runaway one stays as written', async function () {
    this.timeout(20_000);
    expect(await renderTemplate({ sum: '{{$reduce([1..1000], function($a, $b) { $a + $b })}}' }, data)).to.deep.equal({
      sum: 500500,
    });
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    const runaway = '{{($f := function($n){ $f($n + 1) }; $f(0))}}';
    const rendered = await renderTemplate({ x: runaway }, data);
    clearInterval(ticker);
    expect(rendered).to.deep.equal({ x: runaway });
    expect(ticks, 'the main thread ran timers while the placeholder was evaluated').to.be.greaterThan(0);
  });
});
