/**
 * The console's run page for the nodes that wait for the world outside (docs/async.md), in
 * Chromium: a finished run whose stored results hold a Poll, Callback, WebSocket, SSE and gRPC node
 * (test/fixtures/junit/report-documents.ts `asyncNodes`, written into the run's stored result), and
 * the live line of a running run while its Poll node waits between attempts.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { waitForRun, type TestApp } from '../helpers/app';
import { launchBrowser, screenshot, signedIn, startConsoleApp } from '../helpers/browser';
import { startJobServer, type JobServer } from '../helpers/job-server';
import { asyncNodes } from '../fixtures/junit/report-documents';
import { Run, RunTestCaseResult } from '../../src/store/entities';

describe('console: nodes that wait (Chromium)', function () {
  this.timeout(90_000);
  let app: TestApp;
  let jobs: JobServer;
  let browser: Browser;

  before(async () => {
    [app, jobs, browser] = await Promise.all([startConsoleApp({ worker: true }), startJobServer(), launchBrowser()]);
    await app.request('POST', '/v1/environments', { name: 'local', variables: { base: jobs.url } });
  });
  after(async () => {
    await browser?.close();
    await jobs?.close();
    await app?.stop();
  });

  async function start(name: string, flow: unknown[]): Promise<string> {
    expect((await app.request('POST', '/v1/test-cases', { name, folder: name, flow })).status).to.equal(201);
    await app.request('POST', '/v1/runners', { name, folder: name });
    const res = await app.request('POST', '/v1/runs', { runner: name, environment: 'local' });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.runId;
  }

  it("a finished run shows each node's attempts, callbacks, messages and gRPC status", async () => {
    const runId = await start('finished', [{ type: 'wait', ms: 1 }]);
    await waitForRun(app, runId);
    const { passing, failing } = asyncNodes();
    const repo = app.dataSource.getRepository(RunTestCaseResult);
    const row = await repo.findOneByOrFail({ runId, position: 0 });
    await repo.update(
      { runId, position: 0 },
      { detail: { ...row.detail, status: 'failed', nodes: [...passing, ...failing] } as never },
    );
    // The run's own figures agree with its (failed) test case, as in the picture docs/console.md shows.
    await app.dataSource
      .getRepository(Run)
      .update({ id: runId }, { result: 'failed', summary: { total: 1, passed: 0, failed: 1, skipped: 0 } });
    const { context, page } = await signedIn(browser, app);
    try {
      await page.goto(`${app.url}/runs/${runId}`);
      const attempts = page.getByRole('table', { name: 'Attempts of wait for the job' });
      await page.getByText('3 attempts · condition met').click();
      await attempts.waitFor();
      expect(await attempts.locator('tbody tr').count()).to.equal(3);
      expect(await attempts.locator('tbody tr').nth(2).innerText()).to.match(/3\s+200\s+12 ms\s+✓ met/);
      // A failed Poll node's attempts are open; every attempt keeps its number.
      const gaveUp = page.getByRole('table', { name: 'Attempts of export' });
      expect(await gaveUp.locator('tbody tr td:first-child').allInnerTexts()).to.deep.equal(['1', '30']);
      await page.getByText('cb_4f2a9c1e').waitFor();
      await page.getByText('1 of 1 · 2 did not match').waitFor();
      expect(await page.getByRole('table', { name: 'Callbacks of paid' }).innerText()).to.include('"paid"');
      await page.getByText('3 · stopped by until · handshake 101').waitFor();
      await page.getByText('2 · stopped by closed · handshake 200').waitFor();
      await page.getByText('NOT_FOUND (5)').waitFor();
      await page.getByText('Messages').first().waitFor();
      // The picture (docs/console.md): the Callback, WebSocket and SSE nodes below the Poll node.
      await page
        .getByText('cb_4f2a9c1e')
        .first()
        .evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await screenshot(page, 'run-async-nodes');
    } finally {
      await context.close();
    }
  });

  it('a running run names the Poll node waiting between attempts', async () => {
    const runId = await start('live', [
      {
        type: 'poll',
        id: 'job',
        request: { method: 'GET', url: '{{base}}/jobs/live?ready=3' },
        until: "response.body.status = 'done'",
        interval: '3s',
      },
    ]);
    const { context, page } = await signedIn(browser, app);
    try {
      await page.goto(`${app.url}/runs/${runId}`);
      const line = page.locator('[data-waiting="poll"]');
      await line.waitFor({ timeout: 10_000 });
      expect(await line.innerText()).to.match(
        /^job: polling: attempt [23]\/30 at \d\d:\d\d:\d\d · since \d\d:\d\d:\d\d, until .+ \(until response\.body\.status = 'done'\)$/,
      );
    } finally {
      await context.close();
    }
    expect((await waitForRun(app, runId)).status).to.equal('completed');
  });
});
