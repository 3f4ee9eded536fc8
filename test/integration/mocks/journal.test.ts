/**
 * The mock journal and mockVerify nodes (docs/mocks.md "Journal and verification"; src/mock/journal.ts,
 * src/flow/mock-verify-node.ts): entries with secrets masked and bodies kept; a scoped request in
 * the store before its answer arrives (group commit); the listing's filters; verification inside a
 * real run, where the flow calls a loopback service under test that calls the mock with the run's
 * scope (passing, and a wrong count failing with the message); the bounds and the TTL.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTestApp, waitForRun, type TestApp } from '../../helpers/app';
import { MockJournalEntry } from '../../../src/store/entities';
import { pathMatcher } from '../../../src/mock/journal';

describe('mock path matching of mockVerify (src/mock/journal.ts pathMatcher)', () => {
  it('matches a concrete path whole and a design template by segment, ignoring trailing and repeated slashes', () => {
    const concrete = pathMatcher('/payments');
    expect(['/payments', '/payments/', '//payments'].map(concrete)).to.deep.equal([true, true, true]);
    expect(['/payments/1', '/payment', '/Payments'].map(concrete)).to.deep.equal([false, false, false]);
    const template = pathMatcher('/payments/{id}/refunds');
    expect(template('/payments/7/refunds')).to.equal(true);
    expect(template('/payments/7/8/refunds')).to.equal(false);
    expect(template('/payments//refunds')).to.equal(false);
    const dotted = pathMatcher('/files/{name}.json');
    expect([dotted('/files/a.json'), dotted('/files/a.xml'), dotted('/files/a.b.json')]).to.deep.equal([
      true,
      false,
      true,
    ]);
    expect(pathMatcher('/a+b/{x}')('/a+b/1'), 'literal text is not a regular expression').to.equal(true);
    expect(pathMatcher('/a+b/{x}')('/aab/1')).to.equal(false);
  });
});

for (const dialect of ['mysql', 'sqlite'] as const)
  describe(`mock journal and mockVerify (src/mock/journal.ts) on ${dialect}`, function () {
    this.timeout(120_000);
    let app: TestApp;
    let mock: string;
    let designId: string;
    /** The service under test: `POST /checkout` calls the mock's `POST /payments` with the run's scope. */
    let sut: http.Server;
    let sutUrl: string;

    before(async () => {
      app = await startTestApp({
        worker: true,
        env: { ASSAY_MOCK_JOURNAL_MAX: '40', ASSAY_MOCK_JOURNAL_TTL_SECONDS: '3600' },
      });
      mock = `${app.url}/mock/${app.workspaceId}`;
      const design = await app.request('POST', '/v1/designs', {
        method: 'POST',
        path: '/payments',
        responses: [{ status: 201, code: 1, data: { id: 'pay_1', state: 'accepted' } }],
      });
      expect(design.status, JSON.stringify(design.body)).to.equal(201);
      designId = design.body.id;
      await app.request('POST', '/v1/designs', {
        method: 'GET',
        path: '/payments/{id}',
        responses: [{ status: 200, code: 1, data: { id: 'pay_1' } }],
      });
      sut = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const scope = String(req.headers['x-run'] ?? '');
          const body = Buffer.concat(chunks).toString('utf8');
          // It propagates the run's scope as the header (the /~scope URL would do as well).
          fetch(`${mock}/payments`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-assay-mock-scope': scope, 'x-sut': 'yes' },
            body,
          })
            .then(async (paid) => {
              res.writeHead(200, { 'content-type': 'application/json' });
              res.end(JSON.stringify({ paid: paid.status, payment: await paid.json() }));
            })
            .catch((err: Error) => {
              res.writeHead(502);
              res.end(err.message);
            });
        });
      });
      await new Promise<void>((resolve) => sut.listen(0, '127.0.0.1', resolve));
      sutUrl = `http://127.0.0.1:${(sut.address() as AddressInfo).port}`;
    });
    after(async () => {
      sut?.close();
      await app?.stop();
    });

    it('journals a request with its secrets masked and its body; a scoped one is in the store when its answer arrives', async () => {
      const res = await fetch(`${mock}/~run_journal_1/payments?ref=abc`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer s3cret',
          'x-api-key': 'k3y',
          cookie: 'session=1',
          'x-trace': 'visible',
        },
        body: JSON.stringify({ amount: 42, currency: 'EUR' }),
      });
      expect(res.status).to.equal(201);
      await res.arrayBuffer();
      // Straight from the store, no flush: written before the answer was sent (group commit).
      const rows = await app.dataSource.getRepository(MockJournalEntry).findBy({ scope: 'run_journal_1' });
      expect(rows).to.have.length(1);

      const listed = await app.request('GET', `/v1/designs/${designId}/requests?scope=run_journal_1`);
      expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
      const [entry] = listed.body.items;
      expect(entry).to.include({
        designId,
        scope: 'run_journal_1',
        method: 'POST',
        path: '/payments',
        query: 'ref=abc',
        status: 201,
        fault: null,
        delayMs: 0,
        source: 'mock',
      });
      expect(entry.id).to.match(/^mreq_/);
      expect(entry.body).to.deep.equal({ amount: 42, currency: 'EUR' });
      expect(entry.violations).to.deep.equal([]);
      expect(entry.headers).to.include({
        authorization: '***',
        'x-api-key': '***',
        cookie: '***',
        'x-trace': 'visible',
      });
      expect(JSON.stringify(listed.body)).not.to.match(/s3cret|k3y|session=1/);
    });

    it('lists unscoped requests too (buffered), newest first, with filters and paging', async () => {
      for (const id of ['a', 'b', 'c']) expect((await fetch(`${mock}/payments/${id}`)).status).to.equal(200);
      await fetch(`${mock}/nowhere`);
      const all = await app.request('GET', '/v1/mock-requests?shared=true&method=get&limit=2');
      expect(all.status, JSON.stringify(all.body)).to.equal(200);
      expect(all.body.items.map((e: { path: string }) => e.path)).to.deep.equal(['/nowhere', '/payments/c']);
      const next = await app.request(
        'GET',
        `/v1/mock-requests?shared=true&method=get&limit=2&cursor=${all.body.nextCursor}`,
      );
      expect(next.body.items.map((e: { path: string }) => e.path)).to.deep.equal(['/payments/b', '/payments/a']);
      const notFound = await app.request('GET', '/v1/mock-requests?status=404');
      expect(notFound.body.items.map((e: { path: string; designId: null }) => [e.path, e.designId])).to.deep.equal([
        ['/nowhere', null],
      ]);
      const prefix = await app.request('GET', '/v1/mock-requests?path=/payments/*&shared=true');
      expect(prefix.body.items).to.have.length(3);
      const since = await app.request('GET', `/v1/mock-requests?since=${new Date(Date.now() + 60_000).toISOString()}`);
      expect(since.body.items).to.deep.equal([]);
      for (const bad of ['since=yesterday', 'scope=', 'scope=has%20space', 'status=abc', 'shared=maybe'])
        expect((await app.request('GET', `/v1/mock-requests?${bad}`)).status, bad).to.equal(400);
      expect((await app.request('GET', '/v1/designs/dsg_01JDNOTHERE000000000000000/requests')).status).to.equal(404);
      const deleted = await app.request('DELETE', '/v1/mock-requests?scope=run_journal_1');
      expect(deleted.body).to.deep.equal({ deleted: 1 });
    });

    it("mockVerify in a run: the service under test called POST /payments once with amount 42 in the run's scope; a wrong count fails saying what was found", async () => {
      // A request outside any run: never counted by `scope: "run"`.
      await fetch(`${mock}/payments`, { method: 'POST', body: JSON.stringify({ amount: 42 }) });
      const runIdNode = {
        type: 'script',
        variable: 'runId',
        script: { code: 'async function generateValue() { return $context.runId; }' },
      };
      const checkout = (amount: number) => ({
        type: 'api',
        id: 'checkout',
        request: {
          method: 'POST',
          url: `${sutUrl}/checkout`,
          headers: { 'content-type': 'application/json', 'x-run': '{{runId}}' },
          body: { amount },
        },
        assertions: [{ target: 'response.body.paid', operator: 'equals', expected: 201 }],
      });
      const cases = {
        'verify passes': [
          runIdNode,
          checkout(42),
          {
            type: 'mockVerify',
            id: 'paid',
            method: 'POST',
            path: '/payments',
            where: 'body.amount = 42',
            count: 1,
            assertions: [
              { target: 'requests[0].headers."x-sut"', operator: 'equals', expected: 'yes' },
              { target: 'count', operator: 'equals', expected: 1 },
            ],
          },
          { type: 'mockVerify', id: 'byDesign', designId, path: '/payments/{id}', count: 0 },
        ],
        'verify fails': [
          runIdNode,
          checkout(7),
          { type: 'mockVerify', id: 'twice', method: 'POST', path: '/payments', where: 'body.amount = 7', count: 2 },
        ],
      };
      for (const [name, flow] of Object.entries(cases)) {
        const res = await app.request('POST', '/v1/test-cases', { name, folder: 'journal', flow });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
      }
      await app.request('POST', '/v1/environments', { name: 'journal', variables: {} });
      await app.request('POST', '/v1/runners', { name: 'journal', folder: 'journal' });
      const started = await app.request('POST', '/v1/runs', { runner: 'journal', environment: 'journal' });
      expect(started.status, JSON.stringify(started.body)).to.equal(201);
      const runId = started.body.runId as string;
      const run = await waitForRun(app, runId);
      expect(run.status).to.equal('completed');
      const results = (await app.request('GET', `/v1/runs/${runId}/results`)).body;
      const byName = Object.fromEntries(results.details.testCases.map((c: { name: string }) => [c.name, c]));
      const passed = byName['verify passes'];
      expect(passed.status, JSON.stringify(passed.nodes, null, 1)).to.equal('passed');
      const paid = passed.nodes.find((n: { id: string }) => n.id === 'paid');
      expect(paid.type).to.equal('mockVerify');
      expect(paid.mockVerify).to.include({ count: 1, expected: 'exactly 1', scope: 'run' });
      expect(paid.mockVerify.requests[0]).to.include({ method: 'POST', path: '/payments', scope: runId });
      expect(paid.mockVerify.requests[0].body).to.deep.equal({ amount: 42 });
      expect(paid.assertions.map((a: { passed: boolean }) => a.passed)).to.deep.equal([true, true]);

      const failed = byName['verify fails'];
      expect(failed.status).to.equal('failed');
      const twice = failed.nodes.find((n: { id: string }) => n.id === 'twice');
      expect(twice.status).to.equal('failed');
      expect(twice.error).to.match(
        new RegExp(
          `^Expected exactly 2 requests matching POST /payments where \`body.amount = 7\` in this run's scope \\(${runId}\\), found 1`,
        ),
      );
      // What it found instead: the request the service under test made (the other test case's, with amount 42, is only there when it ran first).
      expect(twice.error).to.match(
        /found 1(: POST \/payments \{"amount":7\} → 201|; 1 other request matched all but `where`)/,
      );
    });

    it('keeps at most ASSAY_MOCK_JOURNAL_MAX entries per workspace (the newest) and none past the TTL', async () => {
      for (let i = 0; i < 50; i++) await fetch(`${mock}/payments/n${i}`);
      await app.api.journal.flush();
      const repo = app.dataSource.getRepository(MockJournalEntry);
      expect(await repo.countBy({ workspaceId: app.workspaceId })).to.be.above(50);
      await app.api.journal.sweep();
      expect(await repo.countBy({ workspaceId: app.workspaceId })).to.equal(40);
      const newest = await app.request('GET', '/v1/mock-requests?limit=1');
      expect(newest.body.items[0].path).to.equal('/payments/n49');
      // An hour and a second later every entry is past the TTL (ASSAY_MOCK_JOURNAL_TTL_SECONDS=3600).
      await app.api.journal.sweep(Date.now() + 3_601_000);
      expect(await repo.countBy({ workspaceId: app.workspaceId })).to.equal(0);
    });
  });
