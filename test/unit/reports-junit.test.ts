/**
 * The JUnit reporter against the published JUnit schema (test/fixtures/junit/junit-10.xsd,
 * validated with xmllint-wasm) and read back as a CI system reads it: counts, one testcase per
 * test case and per data row, failures with expected and actual, errors, skips, seconds, logs;
 * flaky and quarantined test cases as Maven Surefire writes flaky tests, against the Surefire
 * report schema (test/fixtures/junit/surefire-test-report.xsd).
 */
import { expect } from 'chai';
import { renderJunit } from '../../cli/reports/index';
import type { NodeResult } from '../../src/domain/types';
import {
  apiNode,
  asyncRun,
  dataDrivenRun,
  errorCodeRun,
  failingRun,
  flakyRun,
  passingRun,
  performanceRun,
  timedOutRun,
} from '../fixtures/junit/report-documents';
import {
  junitSchemaErrors,
  parseXml,
  surefireSchemaErrors,
  testcases,
  type XmlElement,
} from '../fixtures/junit/validate';

const attrs = (el: XmlElement, ...names: string[]) => Object.fromEntries(names.map((n) => [n, el.getAttribute(n)]));
const child = (el: XmlElement, tag: string) => Array.from(el.getElementsByTagName(tag));

describe('reports: junit', () => {
  it('every kind of run gives XML the published JUnit schema accepts', async () => {
    for (const make of [passingRun, failingRun, dataDrivenRun, timedOutRun, performanceRun, flakyRun, errorCodeRun]) {
      const xml = renderJunit(make());
      expect(await junitSchemaErrors(xml), `${make.name}\n${xml}`).to.deep.equal([]);
    }
  });

  it('a passing run: one suite named after the runner with its properties, one testcase per test case, times in seconds', () => {
    const doc = parseXml(renderJunit(passingRun()));
    const root = doc.documentElement;
    expect(root.tagName).to.equal('testsuites');
    expect(attrs(root, 'tests', 'failures', 'errors', 'time')).to.deep.equal({
      tests: '2',
      failures: '0',
      errors: '0',
      time: '3.250',
    });
    const [suite, ...more] = child(root, 'testsuite');
    expect(more).to.have.length(0);
    expect(attrs(suite!, 'name', 'tests', 'failures', 'errors', 'skipped', 'timestamp', 'hostname')).to.deep.equal({
      name: 'smoke',
      tests: '2',
      failures: '0',
      errors: '0',
      skipped: '0',
      timestamp: '2026-11-22T20:00:00',
      hostname: null,
    });
    const props = Object.fromEntries(
      child(suite!, 'property').map((p) => [p.getAttribute('name'), p.getAttribute('value')]),
    );
    expect(props).to.include({
      runId: 'run_01JTEST',
      environment: 'staging',
      runner: 'smoke',
      console: 'http://127.0.0.1:3000/runs/run_01JTEST',
    });
    expect(props.temporal).to.match(/workflows\/run-run_01JTEST$/);
    const cases = testcases(doc);
    expect(cases.map((c) => attrs(c, 'classname', 'name', 'time'))).to.deep.equal([
      { classname: 'smoke.smoke', name: 'get user', time: '0.041' },
      { classname: 'smoke.smoke', name: 'list users', time: '0.013' },
    ]);
    expect(cases.every((c) => c.childNodes.length === 0 || child(c, 'failure').length === 0)).to.equal(true);
  });

  it('two test cases of one name (in different folders) stay two testcases: the second is numbered', () => {
    const input = passingRun();
    input.results.details.testCases[1]!.name = 'get user';
    expect(testcases(parseXml(renderJunit(input))).map((c) => c.getAttribute('name'))).to.deep.equal([
      'get user',
      'get user (2)',
    ]);
  });

  it('a failing run: the assertion is a <failure> with expected and actual, no response is an <error>, logs go to system-out', () => {
    const doc = parseXml(renderJunit(failingRun()));
    expect(attrs(doc.documentElement, 'tests', 'failures', 'errors')).to.deep.equal({
      tests: '3',
      failures: '1',
      errors: '1',
    });
    const [, named, down] = testcases(doc);
    expect(named!.getAttribute('name')).to.equal('user name <is> "Ada" & co');
    const [failure] = child(named!, 'failure');
    expect(attrs(failure!, 'type', 'message')).to.deep.equal({
      type: 'equals',
      message: 'response.body.name equals: expected "Ada" (string), got "Grace" (string)',
    });
    expect(failure!.textContent)
      .to.include('expected:  "Ada"')
      .and.include('actual:    "Grace"')
      .and.include('GET http://127.0.0.1:4010/users/2 → 200');
    // The ESC of a coloured log line is not an XML character: it is written out, readable.
    expect(child(named!, 'system-out')[0]!.textContent).to.equal(
      '[info] get: fetching user 2\n[warn] get: name was \\u001b[31mGrace\\u001b[0m',
    );
    const [error] = child(down!, 'error');
    expect(attrs(error!, 'type', 'message')).to.deep.equal({
      type: 'request',
      message: 'connect ECONNREFUSED 127.0.0.1:9',
    });
    expect(child(down!, 'failure')).to.have.length(0);
    expect(child(down!, 'system-err')[0]!.textContent).to.include('ECONNREFUSED');
  });

  it('a data-driven test case with three rows, one failing: three testcases named after their rows, only row 2 failed', () => {
    const doc = parseXml(renderJunit(dataDrivenRun()));
    expect(attrs(doc.documentElement, 'tests', 'failures', 'errors')).to.deep.equal({
      tests: '3',
      failures: '1',
      errors: '0',
    });
    const cases = testcases(doc);
    expect(cases.map((c) => c.getAttribute('name'))).to.deep.equal([
      'get user [row 1: {"id":1,"name":"Ada"}]',
      'get user [row 2: {"id":2,"name":"Grace"}]',
      'get user [row 3: {"id":3,"name":"Edsger"}]',
    ]);
    expect(cases.map((c) => child(c, 'failure').length)).to.deep.equal([0, 1, 0]);
    expect(child(cases[1]!, 'failure')[0]!.textContent)
      .to.include('expected:  "Nobody"')
      .and.include('actual:    "Grace"');
    expect(cases.map((c) => c.getAttribute('time'))).to.deep.equal(['0.010', '0.011', '0.012']);
    expect(child(cases[1]!, 'system-out')[0]!.textContent).to.include('[info] get: row 2');
  });

  it('rows past those kept in the results are one more testcase that says so, with the failures that were theirs', () => {
    const input = dataDrivenRun();
    const tc = input.results.details.testCases[0]!;
    const iteration = tc.nodes[0]!;
    iteration.iterations = 120;
    iteration.omittedIterations = 117;
    const lateFailure = {
      node: 'get',
      assertion: 'response.status',
      operator: 'equals',
      expected: 200,
      actual: 404,
      message: 'expected 200 (integer), got 404 (integer)',
    };
    tc.failures.push(lateFailure);
    const doc = parseXml(renderJunit(input));
    const cases = testcases(doc);
    expect(cases).to.have.length(4);
    const omitted = cases[3]!;
    expect(omitted.getAttribute('name')).to.equal('get user [rows 4–120 not kept in the results]');
    expect(child(omitted, 'system-out')[0]!.textContent).to.include('117 more rows ran (rows 4 to 120)');
    expect(child(omitted, 'failure').map((f) => f.getAttribute('message'))).to.deep.equal([
      'response.status equals: expected 200 (integer), got 404 (integer)',
    ]);
    expect(doc.documentElement.getAttribute('failures')).to.equal('2');
  });

  it('steps outside the rows and a folder: a testcase for the test case itself, classname runner.folder', () => {
    const input = dataDrivenRun();
    const tc = input.results.details.testCases[0]! as (typeof input.results.details.testCases)[0] & { folder: string };
    tc.folder = 'users/admin';
    const login: NodeResult = apiNode('login', '/login', 200, 5, [], {
      logs: [{ level: 'info', message: 'logged in' }],
    });
    tc.nodes.unshift(login);
    const cases = testcases(parseXml(renderJunit(input)));
    expect(cases.map((c) => c.getAttribute('name'))).to.have.length(4);
    expect(attrs(cases[0]!, 'name', 'classname', 'time')).to.deep.equal({
      name: 'get user',
      classname: 'smoke.users.admin',
      time: '0.005',
    });
    expect(child(cases[0]!, 'failure')).to.have.length(0);
    expect(child(cases[0]!, 'system-out')[0]!.textContent).to.equal('[info] login: logged in');
  });

  it('a run that timed out: the interrupted test case is an <error>, the rest <skipped/>, and a testcase "run" says why', () => {
    const doc = parseXml(renderJunit(timedOutRun()));
    const root = doc.documentElement;
    expect(attrs(root, 'tests', 'failures', 'errors')).to.deep.equal({ tests: '4', failures: '0', errors: '2' });
    expect(root.getAttribute('skipped'), 'the schema allows no skipped attribute on testsuites').to.equal(null);
    expect(child(root, 'testsuite')[0]!.getAttribute('skipped')).to.equal('1');
    const [, interrupted, skipped, run] = testcases(doc);
    expect(attrs(child(interrupted!, 'error')[0]!, 'type', 'message')).to.deep.equal({
      type: 'interrupted',
      message: 'Interrupted: Run timed out after 600 s',
    });
    expect(attrs(child(skipped!, 'skipped')[0]!, 'message')).to.deep.equal({
      message: 'Not run: Run timed out after 600 s',
    });
    expect(attrs(run!, 'name', 'classname')).to.deep.equal({ name: 'run', classname: 'smoke.run' });
    expect(attrs(child(run!, 'error')[0]!, 'type', 'message')).to.deep.equal({
      type: 'run-failed',
      message: 'Run timed out after 600 s',
    });
    expect(root.getAttribute('time')).to.equal('600.000');
  });

  it('nodes that wait (poll, callback, websocket, sse, grpc): one line each in system-out, what they got in the failure and error texts', async () => {
    const xml = renderJunit(asyncRun());
    expect(await junitSchemaErrors(xml)).to.deep.equal([]);
    const [ok, bad] = testcases(parseXml(xml));
    expect(child(ok!, 'system-out')[0]!.textContent).to.equal(
      [
        'poll wait for the job: 3 attempts, condition met',
        'callback paid: callback cb_4f2a9c1e: 1 of 1 received (2 did not match)',
        'websocket ticks: 3 messages, stopped by until',
        'sse events: 2 messages, stopped by closed',
      ].join('\n'),
    );
    const [failure] = child(bad!, 'failure');
    expect(failure!.textContent).to.include('node:      greet (gRPC NOT_FOUND (5), 0 messages in 14 ms)');
    const [error] = child(bad!, 'error');
    expect(attrs(error!, 'type', 'message')).to.deep.equal({
      type: 'poll-node',
      message: "condition `response.body.status = 'done'` did not hold after 30 attempts (last status 202)",
    });
    expect(error!.textContent).to.include(
      'export (GET http://127.0.0.1:4010/exports/9 → 202; 30 attempts, condition not met): condition',
    );
  });

  it('each suite of a finished run is also valid against the Maven Surefire report schema', async () => {
    for (const make of [passingRun, failingRun, dataDrivenRun, performanceRun, flakyRun]) {
      const xml = renderJunit(make());
      expect(await surefireSchemaErrors(xml), `${make.name}\n${xml}`).to.deep.equal([]);
    }
  });

  it('the Surefire schema check can fail: a <flakyFailure> without its <stackTrace>, or placed after <error>, is refused', async () => {
    const xml = renderJunit(flakyRun());
    const noTrace = xml.replace(/<stackTrace>[^<]*<\/stackTrace>/, '');
    expect(await surefireSchemaErrors(noTrace)).to.have.length.greaterThan(0);
    const misplaced = xml.replace(
      '<testcase name="get user" classname="smoke.smoke" time="0.041"/>',
      '<testcase name="get user" classname="smoke.smoke" time="0.041"><error type="x"/><flakyFailure type="flaky"><stackTrace/></flakyFailure></testcase>',
    );
    expect(misplaced).to.not.equal(xml);
    expect((await surefireSchemaErrors(misplaced)).join('\n')).to.match(/flakyFailure/);
  });

  it('a flaky test case that passed: a <flakyFailure> saying how often it flipped, counted as passed', () => {
    const doc = parseXml(renderJunit(flakyRun()));
    const [stable, wobbly] = testcases(doc);
    expect(child(stable!, 'flakyFailure')).to.have.length(0);
    expect(child(wobbly!, 'failure')).to.have.length(0);
    const [mark, ...more] = child(wobbly!, 'flakyFailure');
    expect(more).to.have.length(0);
    expect(attrs(mark!, 'type', 'message')).to.deep.equal({
      type: 'flaky',
      message:
        'flaky: its outcome flipped 4 times in its last 10 runs on runner smoke, environment staging, with the test case unchanged (flip rate 44.4%)',
    });
    expect(child(mark!, 'stackTrace')[0]!.textContent).to.include('It passed in this run.');
    expect(child(wobbly!, 'system-out')[0]!.textContent).to.match(/^flaky: its outcome flipped 4 times/);
  });

  it('a quarantined test case that failed: its failures as <flakyFailure>/<flakyError>, no <failure>, not counted, and the run reads green', () => {
    const doc = parseXml(renderJunit(flakyRun()));
    expect(attrs(doc.documentElement, 'tests', 'failures', 'errors')).to.deep.equal({
      tests: '3',
      failures: '0',
      errors: '0',
    });
    const checkout = testcases(doc)[2]!;
    expect(checkout.getAttribute('name')).to.equal('checkout');
    expect(child(checkout, 'failure')).to.have.length(0);
    expect(child(checkout, 'error')).to.have.length(0);
    const [ff] = child(checkout, 'flakyFailure');
    expect(attrs(ff!, 'type', 'message')).to.deep.equal({
      type: 'equals',
      message: 'response.status equals: expected 200 (integer), got 503 (integer)',
    });
    expect(child(ff!, 'stackTrace')[0]!.textContent).to.include('expected:  200').and.include('actual:    503');
    const [fe] = child(checkout, 'flakyError');
    expect(attrs(fe!, 'type', 'message')).to.deep.equal({
      type: 'request',
      message: 'connect ECONNREFUSED 127.0.0.1:9',
    });
    expect(child(checkout, 'system-out')[0]!.textContent).to.include('quarantined: it failed');
    expect(child(checkout, 'system-out')[0]!.textContent).to.include(
      "flaky node: pay (its outcome flipped 3 times in the test case's last 10 runs, flip rate 33.3%)",
    );
  });

  it('a flaky test case that failed without quarantine: its <failure> stays and counts, system-out says it is flaky', () => {
    const input = flakyRun();
    const checkout = input.results.details.testCases[2]!;
    delete checkout.quarantined;
    const doc = parseXml(renderJunit(input));
    expect(attrs(doc.documentElement, 'failures', 'errors')).to.deep.equal({ failures: '0', errors: '1' });
    const tc = testcases(doc)[2]!;
    expect(child(tc, 'failure')).to.have.length(1);
    expect(child(tc, 'error')).to.have.length(1);
    expect(child(tc, 'flakyFailure')).to.have.length(0);
    expect(child(tc, 'system-out')[0]!.textContent).to.match(/^flaky: its outcome flipped 3 times/);
  });

  it('a node error with an errorCode has it in front, in the message, the text and system-err; its type stays (docs/flows.md "Error codes")', () => {
    const doc = parseXml(renderJunit(errorCodeRun()));
    const byName = new Map(testcases(doc).map((t) => [t.getAttribute('name'), t]));
    const down = byName.get('service down')!;
    const [error] = child(down, 'error');
    expect(attrs(error!, 'type', 'message')).to.deep.equal({
      type: 'request',
      message: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9',
    });
    expect(error!.textContent).to.equal(
      'ping (GET http://127.0.0.1:4010/ping): ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9',
    );
    expect(child(down, 'system-err')[0]!.textContent).to.equal(error!.textContent);
    // A data row's error is read from its node: the code comes with it.
    const row = byName.get('old addresses [row 2: {"id":2}]')!;
    expect(child(row, 'error')[0]!.getAttribute('message')).to.equal(
      'TOO_MANY_REDIRECTS: More than 2 redirects from http://127.0.0.1:4010/old/2 (maxRedirects 2)',
    );
    expect(child(byName.get('old addresses [row 1: {"id":1}]')!, 'error')).to.have.length(0);
    // Results without a code (stored before errorCode existed) read as they always did.
    const plain = testcases(parseXml(renderJunit(failingRun())))[2]!;
    expect(child(plain, 'error')[0]!.getAttribute('message')).to.equal('connect ECONNREFUSED 127.0.0.1:9');
  });

  it('a quarantined node error keeps its errorCode in the <flakyError>', () => {
    const input = errorCodeRun();
    input.results.details.testCases[2]!.quarantined = true;
    const down = testcases(parseXml(renderJunit(input)))[2]!;
    const [flaky] = child(down, 'flakyError');
    expect(flaky!.getAttribute('message')).to.equal('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9');
    expect(child(flaky!, 'stackTrace')[0]!.textContent).to.include('): ECONNREFUSED: connect');
  });

  it('several node errors in one test case share one <error> (the Surefire schema allows one)', () => {
    const input = failingRun();
    const down = input.results.details.testCases[2]!;
    down.failures.push({ node: 'ping', message: 'second error' });
    const tc = testcases(parseXml(renderJunit(input)))[2]!;
    const errors = child(tc, 'error');
    expect(errors).to.have.length(1);
    expect(errors[0]!.getAttribute('message')).to.equal('connect ECONNREFUSED 127.0.0.1:9 (and 1 more)');
    expect(errors[0]!.textContent).to.include('second error');
  });
});
