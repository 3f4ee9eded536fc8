/**
 * Poll nodes (src/flow/poll-node.ts): the delay function (fixed, exponential, capped, jitter) and
 * the node run in-process through the direct port (activities/direct-port.ts), as performance
 * runs run it, against a loopback job service.
 */
import { expect } from 'chai';
import { FlowInterpreter } from '../../src/flow';
import { pollDelayMs, pollSettings, type PollDelays } from '../../src/flow/poll-node';
import { useInterpreter } from '../helpers/interpreter';
import { startJobServer, type JobServer } from '../helpers/job-server';

describe('Poll nodes', () => {
  describe('pollDelayMs', () => {
    const fixed: PollDelays = { intervalMs: 1000, backoff: 'fixed', factor: 2, maxIntervalMs: 60_000, jitter: 0 };
    const sequence = (delays: PollDelays, n: number, random?: () => number) =>
      Array.from({ length: n }, (_, i) => pollDelayMs(i + 1, delays, random));

    it('fixed: the interval every time', () => {
      expect(sequence(fixed, 4)).to.deep.equal([1000, 1000, 1000, 1000]);
    });

    it('exponential: times the factor each attempt, up to maxInterval', () => {
      const exp: PollDelays = { ...fixed, backoff: 'exponential', intervalMs: 500, maxIntervalMs: 5000 };
      expect(sequence(exp, 6)).to.deep.equal([500, 1000, 2000, 4000, 5000, 5000]);
      expect(sequence({ ...exp, factor: 1.5 }, 4)).to.deep.equal([500, 750, 1125, 1688]);
    });

    it('jitter spreads each delay by ±jitter with the given random source, never above maxInterval', () => {
      const jittered = { ...fixed, jitter: 0.5 };
      expect(pollDelayMs(1, jittered, () => 0)).to.equal(500);
      expect(pollDelayMs(1, jittered, () => 0.5)).to.equal(1000);
      expect(pollDelayMs(1, jittered, () => 0.999)).to.equal(1499);
      expect(pollDelayMs(1, { ...jittered, maxIntervalMs: 1000 }, () => 0.999)).to.equal(1000);
      let calls = 0;
      pollDelayMs(1, fixed, () => (calls++, 0));
      expect(calls, 'no random number without jitter').to.equal(0);
    });

    it('reads the fields with their defaults and units (interval ms, timeout seconds)', () => {
      const base = { type: 'poll', id: 'p', request: { method: 'GET', url: 'x' }, until: 'true' } as const;
      expect(pollSettings(base)).to.deep.equal({
        intervalMs: 1000,
        backoff: 'fixed',
        factor: 2,
        maxIntervalMs: 60_000,
        jitter: 0,
        maxAttempts: 30,
      });
      expect(pollSettings({ ...base, interval: 250, timeout: 90, maxInterval: '2s' })).to.include({
        intervalMs: 250,
        timeoutMs: 90_000,
        maxIntervalMs: 2000,
      });
      expect(pollSettings({ ...base, interval: '1m30s' }).intervalMs).to.equal(90_000);
      expect(() => pollSettings({ ...base, interval: 'soon' })).to.throw(/^interval: /);
    });
  });

  describe('through the direct port', () => {
    let jobs: JobServer;
    const interpreter = useInterpreter();

    before(async () => {
      jobs = await startJobServer();
    });
    after(async () => {
      await jobs?.close();
    });

    const run = (flow: unknown[], deadlineMs?: number) =>
      interpreter.run(flow, { name: 'poll', variables: { base: jobs.url }, port: { deadlineMs } });
    const poll = (key: string, ready: number, extra: Record<string, unknown> = {}) => ({
      type: 'poll',
      id: 'wait',
      request: { method: 'GET', url: `{{base}}/jobs/${key}?ready=${ready}` },
      until: "response.body.status = 'done'",
      interval: 20,
      ...extra,
    });

    it('fails a Callback node at once, saying why (nothing can call back a virtual user), and goes on', async () => {
      const started = Date.now();
      const result = await run([{ type: 'callback', id: 'paid', timeout: '10m' }, poll('cb1', 1)]);
      expect(result.nodes[0]).to.include({
        status: 'failed',
        error: 'Callback nodes cannot run in performance runs (nothing can call back a virtual user)',
      });
      expect(result.nodes[1]).to.include({ status: 'passed' });
      expect(Date.now() - started, 'no wait').to.be.lessThan(5000);
    });

    it('repeats the request until the condition holds, lists every attempt, then asserts on the last response', async () => {
      const result = await run([
        poll('d1', 3, { assertions: [{ target: 'response.body.n', operator: 'equals', expected: 3 }] }),
        {
          type: 'assert',
          id: 'after',
          assertions: [{ target: 'nodes.wait.attempts', operator: 'equals', expected: 3 }],
        },
      ]);
      expect(result.status, JSON.stringify(result.failures)).to.equal('passed');
      const node = result.nodes[0]!;
      expect(node.attempts!.map((a) => [a.attempt, a.status, a.conditionMet, a.plannedDelayMs])).to.deep.equal([
        [1, 202, false, 20],
        [2, 202, false, 20],
        [3, 200, true, undefined],
      ]);
      for (const a of node.attempts!.slice(0, 2)) expect(a.delayMs).to.be.at.least(20);
      expect(node.attempts![2]).not.to.have.property('delayMs');
      expect(node.response).to.include({ status: 200 });
      expect(node.assertions).to.have.length(1);
      expect(jobs.hits('d1')).to.equal(3);
    });

    it('reports the delay that really passed when the timer fires late, and the one asked', async () => {
      // A timer that fires 400 ms late, as a durable timer can (docs/async.md "Timer resolution").
      const LATE = 400;
      const base = interpreter.port();
      const port = { ...base, sleep: (ms: number, summary: string) => base.sleep(ms + LATE, summary) };
      const result = await FlowInterpreter.runTestCase(
        port,
        interpreter.testCase([poll('late', 3)], { name: 'poll' }),
        {
          base: jobs.url,
        },
      );
      expect(result.status, JSON.stringify(result.failures)).to.equal('passed');
      const attempts = result.nodes[0]!.attempts!;
      const arrived = jobs.times('late');
      expect(arrived).to.have.length(3);
      for (const [i, a] of attempts.slice(0, 2).entries()) {
        const gap = arrived[i + 1]! - arrived[i]!;
        expect(a.plannedDelayMs).to.equal(20);
        expect(a.delayMs, `attempt ${a.attempt}`).to.be.at.least(20 + LATE);
        // Measured between the end of one attempt and the start of the next: within the gap the
        // service saw, short of it by the two requests' own time at most (generous for a busy machine).
        expect(a.delayMs, `attempt ${a.attempt}: gap ${gap}`).to.be.at.most(gap);
        expect(gap - a.delayMs!, `attempt ${a.attempt}: gap ${gap}`).to.be.below(300);
      }
    });

    it('fails naming the condition when it never held within maxAttempts', async () => {
      const result = await run([poll('d2', 100, { maxAttempts: 2 })]);
      expect(result.status).to.equal('failed');
      expect(result.nodes[0]!.error).to.equal(
        "condition `response.body.status = 'done'` did not hold after 2 attempts (last status 202)",
      );
      expect(jobs.hits('d2')).to.equal(2);
    });
  });
});
