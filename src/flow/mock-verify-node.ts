/**
 * mockVerify nodes (docs/flows.md "mockVerify node"; docs/mocks.md "Journal and verification"):
 * "the service under test called POST /payments exactly once with body.amount = 42", within the
 * run's own scope. WireMock's `verify`, over Assay's mock journal (src/mock/journal.ts).
 *
 * One `verifyMocks` of the port (an activity in a run: the journal is in the store; a plain call in
 * the direct port), then the count condition and the assertions evaluated through the port's
 * `evaluate`. The awaits below are, in this order, the workflow's commands: the activity, then
 * each assertion (an expression that may need the heavy-expression activity). Only this node's
 * path has them: no other node changes its commands.
 */
import { fillTemplate } from '../domain/templating';
import { evaluateAssertion } from '../domain/assertions';
import type { MockVerifyNode, MockVerifyOutcome, NodeResult } from '../domain/types';
import type { MockVerifyEntry, MockVerifyInput, MockVerifyOutput } from '../domain/mock-verify-io';
import type { FlowBase } from './flow-base';

/** The count condition of `node` as bounds: an integer is exactly it; `{min, max}`; none: at least 1. */
export function countBounds(count: MockVerifyNode['count']): { min: number; max: number } {
  if (typeof count === 'number') return { min: count, max: count };
  if (count && (count.min !== undefined || count.max !== undefined))
    return { min: count.min ?? 0, max: count.max ?? Infinity };
  return { min: 1, max: Infinity };
}

/** `exactly 1`, `at least 1`, `at most 2`, `2 to 5`, `none` (WireMock's words). */
export function expectedText(bounds: { min: number; max: number }): string {
  const { min, max } = bounds;
  if (min === max) return min === 0 ? 'no requests' : `exactly ${min}`;
  if (max === Infinity) return `at least ${min}`;
  if (min === 0) return `at most ${max}`;
  return `${min} to ${max}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A request on one line for messages: `POST /payments?x=1 {"amount":41} → 201`. */
function requestLine(e: MockVerifyEntry): string {
  const query = Object.keys(e.query).length ? `?${new URLSearchParams(e.query).toString()}` : '';
  let body = '';
  if (e.body !== undefined) {
    const text = typeof e.body === 'string' ? e.body : JSON.stringify(e.body);
    body = ` ${text.length > 120 ? `${text.slice(0, 119)}…` : text}`;
  }
  return `${e.method} ${e.path}${query}${body} → ${e.status === 0 ? (e.fault ?? 'fault') : e.status}`;
}

/** Which scope, in words. */
function scopeText(scope: MockVerifyInput['scope'], runId: string): string {
  if (scope === 'shared') return 'without a scope';
  if (scope === 'any') return 'in any scope';
  return `in this run's scope (${runId})`;
}

/**
 * The failure message when the count is not as expected: what was looked for, expected and found,
 * and what was received instead (the requests that matched all but `where`, or the matching ones).
 */
export function verifyFailure(
  matching: string,
  expected: string,
  out: Pick<MockVerifyOutput, 'count' | 'candidates' | 'requests' | 'nearest'>,
  where: string,
): string {
  const found = `found ${out.count}`;
  let also = '';
  if (out.candidates > out.count)
    also = `; ${plural(out.candidates - out.count, 'other request')} matched all but \`where\`${
      out.nearest.length ? `, e.g. ${out.nearest.map(requestLine).join('; ')}` : ''
    }`;
  else if (out.count > 0 && out.requests.length) also = `: ${out.requests.slice(0, 3).map(requestLine).join('; ')}`;
  return `Expected ${expected} request${expected === 'exactly 1' ? '' : 's'} matching ${matching} ${where}, ${found}${also}`;
}

/** `POST /payments where body.amount = 42` (`any request` when nothing narrows it). */
function matchingText(input: MockVerifyInput): string {
  const parts = [
    input.method ?? (input.path ? 'any method' : 'any request'),
    input.path ?? (input.method ? 'to any path' : ''),
    input.designId ? `(design ${input.designId})` : '',
    input.where !== undefined ? `where \`${input.where.replace(/\s+/g, ' ').trim().slice(0, 200)}\`` : '',
  ];
  return parts.filter(Boolean).join(' ');
}

/**
 * Runs a mockVerify node (see the module comment). Fails, as data, when the port cannot reach the
 * journal, the run is unknown, `where` fails on an entry, the count is not as expected (the
 * message says what was expected and found), or an assertion fails.
 */
export async function runMockVerifyNode(flow: FlowBase, node: MockVerifyNode): Promise<NodeResult> {
  const { port } = flow;
  const result = flow.base(node);
  const label = node.name ? `${node.name} (${node.id})` : node.id;
  if (!port.verifyMocks)
    return flow.fail(result, 'mockVerify nodes read the mock journal, which this worker cannot reach (load tests)');
  const vars = flow.templateVariables();
  const fill = (text: string | undefined) => (text === undefined ? undefined : fillTemplate(text, vars, port.dynamic));
  const method = fill(node.method)?.toUpperCase();
  const path = fill(node.path);
  const designId = fill(node.designId);
  const input: MockVerifyInput = {
    runId: port.runId,
    nodeId: node.id,
    scope: node.scope ?? 'run',
    ...(method ? { method } : {}),
    ...(path ? { path } : {}),
    ...(designId ? { designId } : {}),
    ...(node.where !== undefined ? { where: node.where } : {}),
  };
  const bounds = countBounds(node.count);
  const expected = expectedText(bounds);
  const matching = matchingText(input);
  const startedAt = port.now();
  const out = await port.verifyMocks(input, flow.summary(`mockVerify ${label}: ${expected} ${matching}`));
  result.duration = Math.max(0, port.now() - startedAt);
  const outcome: MockVerifyOutcome = {
    expected,
    count: out.count,
    candidates: out.candidates,
    scope: input.scope,
    matching,
    requests: out.requests,
    violations: out.violations,
    ...(out.truncated ? { truncated: true } : {}),
  };
  result.mockVerify = outcome;
  const where = scopeText(input.scope, port.runId);
  if (out.error) {
    flow.step(`${label}: mockVerify ✗ (${out.error})`);
    return flow.fail(result, out.error);
  }
  if (out.count < bounds.min || out.count > bounds.max) {
    flow.step(`${label}: mockVerify ${matching} → ${out.count}, expected ${expected} ✗`);
    return flow.fail(result, verifyFailure(matching, expected, out, where));
  }
  const input2 = flow.expressionInput({ count: out.count, requests: out.requests, violations: out.violations });
  result.assertions = [];
  for (const assertion of node.assertions ?? [])
    flow.recordAssertion(result, assertion, await evaluateAssertion(assertion, input2 as never, port.evaluate));
  flow.step(`${label}: mockVerify ${matching} → ${out.count} (${expected})${result.status === 'failed' ? ' ✗' : ''}`);
  return result;
}
