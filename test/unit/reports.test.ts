/**
 * The cli, json and html reporters and writeReports, on documents built by hand
 * (test/fixtures/junit/report-documents.ts): what a person reads in the terminal, what a script
 * reads in results.json, and what the HTML file holds (escaped user text, embedded chart data,
 * no external resource). The page itself is opened in Chromium by test/browser/html-report.test.ts.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REPORT_FILES, renderCli, renderHtml, renderJson, renderJunit, writeReports } from '../../cli/reports/index';
import { scriptJson } from '../../cli/reports/html';
import {
  asyncRun,
  dataDrivenRun,
  errorCodeRun,
  failingRun,
  flakyRun,
  passingRun,
  performanceRun,
  timedOutRun,
} from '../fixtures/junit/report-documents';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

describe('reports: cli', () => {
  it('nodes that wait: a failed Poll or gRPC node is named with what it got', () => {
    const text = renderCli(asyncRun(), { color: false });
    expect(text).to.include(
      "✘ export (GET http://127.0.0.1:4010/exports/9 → 202; 30 attempts, condition not met): condition `response.body.status = 'done'` did not hold after 30 attempts (last status 202)",
    );
    expect(text).to.include('✘ greet (gRPC NOT_FOUND (5), 0 messages in 14 ms)');
    expect(text).to.match(/✔ async ok/);
  });

  it('a passing run: one line per test case, totals, links, and no colour unless asked', () => {
    const text = renderCli(passingRun(), { color: false });
    expect(text).to.not.match(ANSI);
    expect(text).to.include('PASSED');
    expect(text)
      .to.match(/✔ get user\s+41 ms/)
      .and.match(/✔ list users\s+13 ms/);
    expect(text).to.include('Test cases:  2 passed, 0 failed, 0 skipped (2)');
    expect(text).to.include('Assertions:  4 passed, 0 failed (4)');
    expect(text).to.include('Duration:    3.25 s');
    expect(text).to.include('Console:  http://127.0.0.1:3000/runs/run_01JTEST');
    expect(text).to.match(/Temporal: http:\/\/127\.0\.0\.1:8233\/.*run-run_01JTEST/);
    expect(text).to.not.include('Failures');
    expect(renderCli(passingRun(), { color: true })).to.match(ANSI);
  });

  it('a failing run: each failure with its node, assertion, expected and actual side by side, node errors, logs of the failed node', () => {
    const text = renderCli(failingRun(), { color: false });
    expect(text).to.include('FAILED');
    expect(text).to.match(/✘ user name <is> "Ada" & co/);
    expect(text).to.include('Failures (2 test cases)');
    expect(text).to.include('✘ get (GET http://127.0.0.1:4010/users/2 → 200)');
    expect(text).to.include('response.body.name equals');
    expect(text).to.match(/expected "Ada"\s+│\s+actual "Grace"/);
    expect(text).to.include('✘ ping (GET http://127.0.0.1:4010/ping): connect ECONNREFUSED 127.0.0.1:9');
    expect(text).to.include('[info] get: fetching user 2');
    // A script's escape sequence is shown, never sent to the terminal.
    expect(text).to.include('name was \\u001b[31mGrace');
    expect(text).to.not.match(ANSI);
    expect(text).to.include('Test cases:  1 passed, 2 failed, 0 skipped (3)');
    expect(text).to.include('Assertions:  3 passed, 1 failed (4)');
  });

  it('a node error with an errorCode: the code in front of its message (docs/flows.md "Error codes")', () => {
    const text = renderCli(errorCodeRun(), { color: false });
    expect(text).to.include('✘ ping (GET http://127.0.0.1:4010/ping): ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9');
    expect(text).to.include(
      '✘ old (GET http://127.0.0.1:4010/old/2): TOO_MANY_REDIRECTS: More than 2 redirects from http://127.0.0.1:4010/old/2 (maxRedirects 2)',
    );
  });

  it('a data-driven test case: the failures under the row that failed', () => {
    const text = renderCli(dataDrivenRun(), { color: false });
    expect(text).to.include('[row 2: {"id":2,"name":"Grace"}]');
    expect(text).to.not.include('[row 1');
    expect(text).to.match(/expected "Nobody"\s+│\s+actual "Grace"/);
  });

  it("a run that timed out: the interrupted and skipped test cases and the run's error", () => {
    const text = renderCli(timedOutRun(), { color: false });
    expect(text).to.include('RUN FAILED');
    expect(text).to.match(/- after the slow one\s+skipped/);
    expect(text).to.include('Interrupted: Run timed out after 600 s');
    expect(text).to.include('Test cases:  1 passed, 1 failed, 1 skipped (3)');
    expect(text).to.include('Run failed: Run timed out after 600 s');
  });

  it('a performance run: latency, throughput, error rate and thresholds', () => {
    const text = renderCli(performanceRun(), { color: false });
    expect(text).to.include('latency     avg 12 ms · p95 25 ms · p99 40 ms · max 88 ms');
    expect(text).to.include('45.2 req/s');
    expect(text).to.include('error rate 0.4% (5 failed)');
    expect(text).to.include('thresholds  1 passed, 1 failed');
    expect(text).to.match(/✘ http_req_failed rate<0.001 \(actual 0.4%\)/);
  });

  it('flaky and quarantined test cases say so after their time', () => {
    const lines = renderCli(flakyRun(), { color: false }).split('\n');
    const line = (name: string) => lines.find((l) => l.includes(` ${name} `))!;
    expect(line('get user')).to.not.match(/flaky|quarantined/);
    expect(line('wobbly search')).to.match(/ms {2}flaky$/);
    expect(line('checkout')).to.match(/ms {2}flaky {2}quarantined$/);
  });
});

describe('reports: json', () => {
  it('is the results document as it came, plus run and links', () => {
    const input = failingRun();
    const doc = JSON.parse(renderJson(input));
    const { run, links, ...results } = doc;
    expect(results).to.deep.equal(JSON.parse(JSON.stringify(input.results)));
    expect(run).to.deep.equal(JSON.parse(JSON.stringify(input.run)));
    expect(links).to.deep.equal(input.links);
  });
});

describe('reports: sub-flows', () => {
  it("a Ref node's nodes appear under it, and a failure inside is named by its chain, not by a caller's node of the same id", () => {
    const input = failingRun();
    const tc = input.results.details.testCases[1]!;
    const inner = tc.nodes[0]!;
    // The caller has a node "get" too: ids of a sub-flow are its own.
    tc.nodes = [
      { id: 'get', name: 'caller step', type: 'context', status: 'passed', duration: 0 },
      { id: 'login', name: 'login', type: 'ref', status: 'failed', duration: inner.duration, children: [inner] },
    ];
    const failure = tc.failures[0]!;
    tc.failures = [{ ...failure, path: ['login', 'get'], message: `${tc.name} › login › get: ${failure.message}` }];
    const text = renderCli(input, { color: false });
    expect(text).to.include('✘ login › get');
    expect(text).to.not.include('✘ caller step');
    expect(text).to.include(`${tc.name} › login › get: expected "Ada"`);
    const html = renderHtml(input);
    expect(html).to.include('/users/2');
    expect(html).to.include('login › get');
    expect(renderJunit(input)).to.include('login › get');
  });
});

describe('reports: html', () => {
  it('escapes what the results hold and loads nothing from elsewhere', () => {
    const input = failingRun();
    input.results.details.testCases[1]!.name = '<img src=x onerror=alert(1)> & "quoted"';
    const html = renderHtml(input);
    expect(html).to.include('&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt; &amp; &quot;quoted&quot;');
    expect(html).to.not.include('<img');
    expect(html).to.include(`default-src 'none'`);
    // No external resource: no src/href to another document but the run's own links.
    const refs = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    expect(refs.every((r) => r!.startsWith('http://127.0.0.1:'))).to.equal(true);
    expect(html).to.not.match(/<link|@import|url\(/);
    // Without a performance section no chart library is inlined.
    expect(html).to.not.include('uPlot');
  });

  it("shows a node error's errorCode above the error, in the failures and in the node; none without one", () => {
    const html = renderHtml(errorCodeRun());
    const codes = [
      ...html.matchAll(
        /<div class="error-code">errorCode <code data-error-code>([^<]*)<\/code><\/div>\s*<pre class="err">([^<]*)<\/pre>/g,
      ),
    ].map((m) => `${m[1]} ${m[2]}`);
    expect(codes).to.deep.equal([
      'ECONNREFUSED connect ECONNREFUSED 127.0.0.1:9',
      'ECONNREFUSED connect ECONNREFUSED 127.0.0.1:9',
      'TOO_MANY_REDIRECTS More than 2 redirects from http://127.0.0.1:4010/old/2 (maxRedirects 2)',
      'TOO_MANY_REDIRECTS More than 2 redirects from http://127.0.0.1:4010/old/2 (maxRedirects 2)',
    ]);
    expect(renderHtml(failingRun())).to.not.include('data-error-code');
  });

  it('a performance run embeds uPlot and the per-second series as JSON, an outage as a gap', () => {
    const html = renderHtml(performanceRun());
    expect(html).to.include('id="chart-throughput"').and.include('uPlot');
    const json = /<script type="application\/json" id="chart-data">([^<]*)<\/script>/.exec(html)![1]!;
    const data = JSON.parse(json);
    expect(data.t).to.have.length(28); // 27 points and one gap marker
    expect(data.rps[12]).to.equal(null);
    expect(data.vus[data.vus.length - 1]).to.equal(10);
  });

  it('embedded JSON cannot close its script element, and request names are escaped', () => {
    const evil = '</script><script>alert(1)</script>';
    expect(scriptJson({ name: evil })).to.not.match(/[<>]/);
    expect(JSON.parse(scriptJson({ name: evil })).name).to.equal(evil);
    const input = performanceRun();
    input.results.performance!.byName[0]!.name = evil;
    expect(renderHtml(input)).to.not.include('<script>alert(1)');
  });

  it('flaky and quarantined test cases carry a tag, a sentence and summary cards; a stable one none', () => {
    const html = renderHtml(flakyRun());
    const tc = (name: string) => {
      const start = html.indexOf(`<span class="tc-name">${name}</span>`);
      const open = html.lastIndexOf('<details class="tc', start);
      return html.slice(open, html.indexOf('</details>\n', start));
    };
    expect(tc('get user')).to.not.match(/data-flaky|data-quarantined|class="tag/);
    expect(tc('wobbly search')).to.include('data-flaky="true"').and.include('<span class="tag flaky"');
    expect(tc('wobbly search')).to.include('Flaky: its outcome flipped 4 times in its last 10 runs on runner smoke');
    expect(tc('wobbly search')).to.not.include('data-quarantined');
    expect(tc('checkout')).to.include('data-quarantined="true"').and.include('<span class="tag quarantined"');
    expect(tc('checkout')).to.include('it does not fail the run');
    expect(html).to.match(/data-card="flaky"><div class="v">2</);
    expect(html).to.match(/data-card="quarantined"><div class="v">1</);
    expect(renderHtml(passingRun())).to.not.match(/data-card="flaky"|class="tag/);
    // A flaky node carries its own tag, the other node none.
    expect(tc('checkout').match(/data-flaky-node/g)).to.have.length(1);
    expect(tc('checkout')).to.match(
      /<span class="title">pay<\/span>\s*<span class="tag flaky" data-flaky-node title="flaky: this node&#x27;s outcome flipped 3 times/,
    );
  });
});

describe('reports: writeReports', () => {
  it('writes the file reporters into the folder (created) under their fixed names and skips cli', async () => {
    const dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'assay-reports-')), 'nested', 'out');
    const files = await writeReports(dataDrivenRun(), ['cli', 'junit', 'json', 'html'], dir);
    expect(files).to.deep.equal([
      path.join(dir, REPORT_FILES.junit),
      path.join(dir, REPORT_FILES.json),
      path.join(dir, REPORT_FILES.html),
    ]);
    expect(REPORT_FILES).to.deep.equal({ json: 'results.json', junit: 'junit.xml', html: 'report.html' });
    expect(await fs.readFile(path.join(dir, 'junit.xml'), 'utf8')).to.match(
      /^<\?xml version="1.0" encoding="UTF-8"\?>/,
    );
    expect(JSON.parse(await fs.readFile(path.join(dir, 'results.json'), 'utf8')).runId).to.equal('run_01JROWS');
    expect(await fs.readFile(path.join(dir, 'report.html'), 'utf8')).to.match(/^<!doctype html>/);
    await fs.rm(path.dirname(path.dirname(dir)), { recursive: true });
  });
});
