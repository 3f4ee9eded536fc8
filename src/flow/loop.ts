/**
 * Loop and Iteration nodes: iterations by `count`, `while` (checked before each iteration), the
 * items of a data set or an `items` expression; `breakCondition` checked after each iteration;
 * at most `maxIterations` and the worker's cap. The first {@link KEPT_ITERATIONS} iteration results
 * are kept, the rest counted. A loop whose workflow history has grown past
 * `settings.segmentHistoryEvents` continues in a child workflow ({@link compactState}).
 */
import { preview } from '../domain/assertions';
import { truthy, type ExpressionError } from '../domain/expressions';
import type { IterationNode, LoopNode, NodeResult } from '../domain/types';
import type { FlowBase } from './flow-base';
import type { FlowState, LoopFrame, LoopSegmentOutput, NodeContext } from './types';
import { iterationScope } from './execution-id';

/** Iteration results kept in the details of a loop; the rest are counted in `omittedIterations`. */
export const KEPT_ITERATIONS = 50;
/** Bytes of a response body kept in the state a child workflow receives. */
const SEGMENT_BODY_BYTES = 32 * 1024;

/**
 * Runs a Loop or Iteration node at `path` (execution-id.ts): failed when its items cannot be found,
 * it stopped on an error or its cap, or an iteration failed.
 */
export async function runLoopNode(flow: FlowBase, node: LoopNode | IterationNode, path: string): Promise<NodeResult> {
  const result = flow.base(node);
  let items: unknown[] | undefined;
  if (node.type === 'iteration') {
    if (node.dataSet !== undefined) {
      items = flow.testCase.dataSets[node.dataSet];
      if (!items) return flow.fail(result, `no data set named "${node.dataSet}"`);
    } else {
      try {
        const value = await flow.evaluate(node.items!);
        items = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
      } catch (err) {
        return flow.fail(result, `items: ${(err as ExpressionError).message}`);
      }
    }
  }
  const out = await runLoopIterations(flow, node, 0, items, 0, path);
  result.iterations = out.iterations;
  result.stoppedBy = out.stoppedBy;
  result.iterationResults = out.iterationResults;
  if (out.omittedIterations > 0) result.omittedIterations = out.omittedIterations;
  result.duration = out.iterationResults.reduce((ms, it) => ms + it.nodes.reduce((m, n) => m + n.duration, 0), 0);
  if (out.error) return flow.fail(result, out.error);
  if (out.failedIterations > 0) result.status = 'failed';
  return result;
}

/**
 * Runs iterations `start`… of a Loop or Iteration node at `path` (execution-id.ts: iteration `i`'s
 * nodes run inside `<path>[i]`). When this workflow's history has grown past the configured length,
 * the rest runs in a child workflow (which does the same in turn), so no history grows without
 * bound. `kept`: iteration results already kept before `start`.
 */
export async function runLoopIterations(
  flow: FlowBase,
  node: LoopNode | IterationNode,
  start: number,
  items: unknown[] | undefined,
  kept: number,
  path: string,
): Promise<LoopSegmentOutput> {
  const { port } = flow;
  const cap = Math.min(node.maxIterations ?? Number.MAX_SAFE_INTEGER, port.settings.maxLoopIterations);
  const out: LoopSegmentOutput = {
    state: flow.state,
    iterations: 0,
    failedIterations: 0,
    stoppedBy: 'count',
    iterationResults: [],
    omittedIterations: 0,
  };
  for (let index = start; ; index++) {
    if (node.type === 'loop' && node.count !== undefined && index >= node.count) {
      out.stoppedBy = 'count';
      break;
    }
    if (node.type === 'iteration' && index >= items!.length) {
      out.stoppedBy = 'items';
      break;
    }
    if (node.type === 'loop' && node.while !== undefined) {
      try {
        if (!truthy(await flow.evaluate(node.while))) {
          out.stoppedBy = 'condition';
          break;
        }
      } catch (err) {
        out.stoppedBy = 'error';
        out.error = `while: ${(err as ExpressionError).message}`;
        break;
      }
    }
    if (index >= cap) {
      out.stoppedBy = 'cap';
      out.error = `stopped at its cap of ${cap} iterations${cap === port.settings.maxLoopIterations ? ' (ASSAY_MAX_LOOP_ITERATIONS)' : ' (maxIterations)'}`;
      break;
    }
    if (index > start && port.historyLength() > port.settings.segmentHistoryEvents) {
      const rest = await port.runLoopSegment({
        runId: port.runId,
        settings: port.settings,
        deadlineMs: port.deadlineMs,
        ...(port.servers ? { servers: { ...port.servers } } : {}),
        ...(port.mockScope ? { mockScope: { ...port.mockScope } } : {}),
        testCase: flow.testCase,
        node,
        start: index,
        items,
        kept: kept + out.iterationResults.length,
        state: compactState(flow.state),
        ...(flow.chain.length ? { chain: [...flow.chain] } : {}),
        path,
        ...(port.debug ? { debug: true as const } : {}),
      });
      flow.state = rest.state;
      out.state = rest.state;
      out.iterations += rest.iterations;
      out.failedIterations += rest.failedIterations;
      out.stoppedBy = rest.stoppedBy;
      out.error = rest.error;
      out.iterationResults.push(...rest.iterationResults);
      out.omittedIterations += rest.omittedIterations;
      break;
    }
    const frame: LoopFrame = { nodeId: node.id, index, iteration: index + 1 };
    if (node.type === 'iteration') {
      frame.item = items![index];
      frame.as = node.as ?? 'item';
    }
    flow.state.loops.push(frame);
    // A debug run captures nothing for an iteration whose results are not kept (debug.ts).
    const unkept = port.debug === true && kept + out.iterationResults.length >= KEPT_ITERATIONS;
    if (unkept) flow.debugPaused += 1;
    let nodes: NodeResult[];
    try {
      nodes = await flow.runNodes(node.body, iterationScope(path, index));
    } finally {
      flow.state.loops.pop();
      if (unkept) flow.debugPaused -= 1;
    }
    out.iterations += 1;
    const failed = nodes.some((n) => n.status === 'failed');
    if (failed) out.failedIterations += 1;
    if (kept + out.iterationResults.length < KEPT_ITERATIONS) {
      out.iterationResults.push({
        index,
        ...(node.type === 'iteration' ? { item: preview(frame.item, 500) } : {}),
        status: failed ? 'failed' : 'passed',
        nodes,
      });
    } else out.omittedIterations += 1;
    const pause = port.afterIteration?.();
    if (pause) await pause;
    if (flow.state.stopped) {
      out.stoppedBy = 'assert';
      break;
    }
    if (node.breakCondition !== undefined) {
      flow.state.loops.push(frame);
      try {
        if (truthy(await flow.evaluate(node.breakCondition))) {
          out.stoppedBy = 'break';
          break;
        }
      } catch (err) {
        out.stoppedBy = 'error';
        out.error = `breakCondition: ${(err as ExpressionError).message}`;
        break;
      } finally {
        flow.state.loops.pop();
      }
    }
  }
  out.state = flow.state;
  return out;
}

/** The state for a child workflow, with large response bodies cut so the input stays small. */
export function compactState(state: FlowState): FlowState {
  const nodes: Record<string, NodeContext> = {};
  for (const [id, ctx] of Object.entries(state.nodes)) {
    const text = JSON.stringify(ctx.response.body ?? null);
    nodes[id] =
      text.length > SEGMENT_BODY_BYTES
        ? { ...ctx, response: { ...ctx.response, body: `${text.slice(0, SEGMENT_BODY_BYTES)}… (cut)` } }
        : ctx;
  }
  return { ...state, nodes };
}
