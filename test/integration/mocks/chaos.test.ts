/**
 * Latency and faults as a client sees them (docs/mocks.md "Latency and faults"; src/mock/chaos.ts):
 * each fault through undici (the HTTP client of Node's fetch and of Assay's API nodes) as the
 * network error it is, the `status` fault as a 5xx problem, a real delay, seeded faults giving the
 * same sequence in two scopes, and the journal recording faults and delays.
 */
import { expect } from 'chai';
import { request } from 'undici';
import { startTestApp, type TestApp } from '../../helpers/app';

/** What one request ended with: `status 200 {…}` or the error's name/code/message. */
async function outcome(url: string, headers: Record<string, string> = {}): Promise<string> {
  try {
    const res = await request(url, { headers, reset: true });
    const body = await res.body.text();
    return `status ${res.statusCode} ${body.slice(0, 400)}`;
  } catch (err) {
    const e = err as Error & { code?: string };
    return `error ${e.code ?? e.name}: ${e.message}`;
  }
}

describe('mock latency and faults (src/mock/chaos.ts)', function () {
  this.timeout(60_000);
  let app: TestApp;
  let mock: string;
  let seededId: string;

  before(async () => {
    app = await startTestApp({ dialect: 'sqlite' });
    mock = `${app.url}/mock/${app.workspaceId}`;
    const plain = await app.request('POST', '/v1/designs', {
      method: 'GET',
      path: '/things/{id}',
      responses: [{ status: 200, code: 1, data: { id: 1, name: 'thing' } }],
    });
    expect(plain.status, JSON.stringify(plain.body)).to.equal(201);
    const seeded = await app.request('POST', '/v1/designs', {
      method: 'GET',
      path: '/flaky',
      seed: 2026,
      faults: [
        { fault: 'status', probability: 0.3, status: 502 },
        { fault: 'empty-response', probability: 0.2 },
      ],
      delay: { type: 'uniform', lower: 0, upper: 20 },
      responses: [{ status: 200, code: 1, data: { ok: true } }],
    });
    expect(seeded.status, JSON.stringify(seeded.body)).to.equal(201);
    seededId = seeded.body.id;
  });
  after(async () => {
    await app?.stop();
  });

  it('each fault reaches an undici client as the right error; status as a 503 problem', async () => {
    const seen: Record<string, string> = {};
    for (const fault of ['connection-reset', 'empty-response', 'malformed-chunk', 'random-data', 'status'])
      seen[fault] = await outcome(`${mock}/things/1?_fault_=${fault}`);
    expect(seen['connection-reset']).to.match(/^error ECONNRESET/);
    expect(seen['empty-response']).to.match(/^error UND_ERR_SOCKET: other side closed/);
    expect(seen['malformed-chunk']).to.match(/^error HTTPParserError: .*Invalid character in chunk size/);
    expect(seen['random-data']).to.match(/^error HTTPParserError: .*Expected HTTP\//);
    expect(seen.status).to.match(/^status 503 .*"code":"mock-fault"/);
    // The header selector works alike; `none` and no selector: the answer.
    expect(await outcome(`${mock}/things/1`, { _fault_: 'empty-response' })).to.match(/^error UND_ERR_SOCKET/);
    expect(await outcome(`${mock}/things/1?_fault_=none`)).to.match(/^status 200 /);
    // A bad selector: 400 mock-bad-selector, saying what is allowed.
    const bad = await fetch(`${mock}/things/1?_fault_=explode`);
    expect(bad.status).to.equal(400);
    const problem = (await bad.json()) as { code: string; detail: string };
    expect(problem.code).to.equal('mock-bad-selector');
    expect(problem.detail).to.match(
      /not one of connection-reset, empty-response, malformed-chunk, random-data, status, none/,
    );
    const badDelay = await fetch(`${mock}/things/1?_delay_=soon`);
    expect(badDelay.status).to.equal(400);
  });

  it('waits the _delay_ asked for (a real delay, within 150 ms over)', async () => {
    const started = performance.now();
    const res = await fetch(`${mock}/things/1?_delay_=300`);
    const took = performance.now() - started;
    expect(res.status).to.equal(200);
    expect(took).to.be.within(295, 450);
  });

  it('gives the same sequence of faults and delays twice: two scopes, the same seed', async () => {
    const sequence = async (scope: string) => {
      const out: string[] = [];
      for (let i = 0; i < 30; i++) {
        const text = await outcome(`${mock}/flaky`, { 'x-assay-mock-scope': scope });
        out.push(text.startsWith('status 502') ? '502' : text.startsWith('status 200') ? '200' : 'closed');
      }
      return out;
    };
    const first = await sequence('run_seq_a');
    const second = await sequence('run_seq_b');
    expect(second).to.deep.equal(first);
    expect(new Set(first).size, `all three outcomes occur: ${first.join(' ')}`).to.equal(3);
    // The journal has the same fault and delay for each n-th request of both scopes.
    const journal = async (scope: string) =>
      (await app.request('GET', `/v1/designs/${seededId}/requests?scope=${scope}&limit=200`)).body.items
        .reverse()
        .map((e: { status: number; fault: string | null; delayMs: number }) => `${e.status}/${e.fault}/${e.delayMs}`);
    const a = await journal('run_seq_a');
    expect(a).to.have.length(30);
    expect(await journal('run_seq_b')).to.deep.equal(a);
    expect(a.some((e: string) => e.startsWith('0/empty-response/'))).to.equal(true);
    expect(a.some((e: string) => e.startsWith('502/status/'))).to.equal(true);
  });
});
