/**
 * The payload caps' pure helpers (src/domain/limits.ts): sizes, log cutting and the test case
 * result cap the run workflow applies before recording a result.
 */
import { expect } from 'chai';
import { capLogs, capTestCaseResult, formatBytes, jsonBytes, PAYLOAD_LIMITS, utf8Bytes } from '../../src/domain/limits';
import type { TestCaseResult } from '../../src/domain/types';

describe('payload limits', () => {
  it('measures JSON in UTF-8 bytes, and an unwritable value as infinite', () => {
    expect(utf8Bytes('aé€😀')).to.equal(1 + 2 + 3 + 4);
    expect(jsonBytes({ a: 'é' })).to.equal(Buffer.byteLength(JSON.stringify({ a: 'é' })));
    expect(jsonBytes(undefined)).to.equal(0);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(jsonBytes(cycle)).to.equal(Number.POSITIVE_INFINITY);
    expect(formatBytes(512 * 1024)).to.equal('512 KiB');
    expect(formatBytes(4 * 1024 * 1024)).to.equal('4.0 MiB');
  });

  it('keeps logs under the cap with their first lines and a line saying what was cut', () => {
    const small = [{ level: 'info' as const, message: 'hi' }];
    expect(capLogs(small)).to.deep.equal({ logs: small });
    const big = Array.from({ length: 200 }, (_, i) => ({
      level: 'info' as const,
      message: `${i}:${'é'.repeat(10_000)}`,
    }));
    const { logs, cutFrom } = capLogs(big);
    expect(cutFrom).to.equal(jsonBytes(big));
    expect(jsonBytes(logs)).to.be.at.most(PAYLOAD_LIMITS.logBytes);
    expect(logs[0]).to.deep.equal(big[0]);
    expect(logs.at(-1)!.message).to.match(/^\[logs cut: 3\.8 MiB logged, at most 128 KiB are kept\]$/);
  });

  it('cuts a test case result over its cap: logs first, then large values, then node details', () => {
    const base: TestCaseResult = {
      testCaseId: 'tc',
      name: 'n',
      status: 'failed',
      duration: 1,
      assertions: 0,
      passedAssertions: 0,
      failures: [],
      nodes: [],
    };
    expect(capTestCaseResult(base)).to.equal(base);

    const line = { level: 'info' as const, message: 'x'.repeat(10_000) };
    const withLogs: TestCaseResult = {
      ...base,
      nodes: Array.from({ length: 100 }, (_, i) => ({
        id: `n${i}`,
        type: 'script' as const,
        status: 'passed' as const,
        duration: 1,
        logs: [line],
      })),
    };
    const cut = capTestCaseResult(withLogs);
    expect(jsonBytes(cut)).to.be.at.most(PAYLOAD_LIMITS.testCaseResultBytes);
    expect(cut.nodes).to.have.length(100);
    expect(cut.nodes[0]!.logs![0]!.message).to.match(/logs left out/);
    expect(cut.error).to.match(/^Result cut to fit 512 KiB \(it had \d+(\.\d)? KiB\): script logs left out\.$/);

    const values: TestCaseResult = {
      ...base,
      nodes: Array.from({ length: 100 }, (_, i) => ({
        id: `c${i}`,
        type: 'context' as const,
        status: 'passed' as const,
        duration: 1,
        variablesSet: { v: 'y'.repeat(10_000) },
      })),
    };
    const previewed = capTestCaseResult(values);
    expect(jsonBytes(previewed)).to.be.at.most(PAYLOAD_LIMITS.testCaseResultBytes);
    expect(previewed.nodes[0]!.variablesSet!.v).to.match(/^y{200}… \[cut: /);

    const deep: TestCaseResult = {
      ...base,
      failures: [{ node: 'a', message: 'm', actual: 'z'.repeat(1_000_000) }],
      nodes: Array.from({ length: 5000 }, (_, i) => ({
        id: `node-with-a-long-id-${i}`.repeat(10),
        type: 'wait' as const,
        status: 'passed' as const,
        duration: 1,
      })),
    };
    const dropped = capTestCaseResult(deep);
    expect(jsonBytes(dropped)).to.be.at.most(PAYLOAD_LIMITS.testCaseResultBytes);
    expect(dropped.nodes).to.deep.equal([]);
    expect(dropped.failures[0]!.actual).to.match(/^z{200}… \[cut: /);
    expect(dropped.error).to.match(/node details left out/);
  });
});
