/**
 * The interpreter's direct port: runs flows in-process with plain async calls, no workflow. The
 * same interpreter (workflows/interpreter/) and the same node implementation as the activities
 * (activities/nodes.ts `createNodeExecutor`: hooks, request with retries through the address
 * policy's agent, payload caps; the sandbox for scripts), so a flow behaves as it does in a run.
 *
 * Differences from the workflow port (workflows/workflow-port.ts), by design:
 * - time is the real clock (`Date.now()`), a Wait node a real timer;
 * - the deadline is checked before each node (and a wait or request cut by it throws
 *   DeadlineReached), not enforced by a cancellation scope;
 * - expressions are evaluated here with the workflow's step budget (WORKFLOW_LIMITS), and one that
 *   needs more goes to the heavy-expression pool, as the `evaluateExpression` activity does;
 * - `historyLength` is 0: a loop always runs inline, never in a child workflow;
 * - `$uuid` and `$random…` come from node:crypto;
 * - no X-Assay-Execution header unless the caller gives one per API node (`executionId`).
 *
 * Made for the load generator (many virtual users running flows inside one activity): the shared
 * resources (sandbox, agent, expression pool) are given once to {@link directPorts}, and each
 * port it makes is a few closures, with no timer left behind.
 */
import { randomUUID, webcrypto } from 'node:crypto';
import type { Agent } from 'undici';
import { BUDGET_CODE, evaluateExpression, ExpressionError, WORKFLOW_LIMITS } from '../src/domain/expressions';
import type { RunSettings } from '../src/domain/types';
import type { Sandbox } from '../src/sandbox/sandbox';
import { DeadlineReached, type InterpreterPort } from '../workflows/interpreter';
import { sharedExpressionPool, type ExpressionPool } from '../src/expressions/pool';
import { createNodeExecutor, evaluateHeavyExpression } from './nodes';

/** What every port of one {@link directPorts} factory shares. */
export interface DirectPortResources {
  /** Runs Script nodes and API node hooks; contexts are per run id and test case (release them with `sandbox.releaseRun`). */
  sandbox: Sandbox;
  /** The agent API nodes send through: the address policy's `agent('node')` (src/net/address-policy.ts). */
  agent: Agent;
  /** Evaluates expressions over the step budget (default: the process's shared pool). */
  expressionPool?: ExpressionPool;
}

/** What one port is made for. */
export interface DirectPortOptions {
  /** Scripts' contexts are kept per run id and test case. */
  runId: string;
  settings: RunSettings;
  /** Epoch ms by which the flow must end. */
  deadlineMs: number;
  /** The X-Assay-Execution header's value for an API node (by its ApiNodeInput label, the node id); none: no header. */
  executionId?: (nodeId: string) => string | undefined;
  /** Called after each node. */
  onNodeDone?: () => void;
}

/** A number in [0, 1) from 53 random bits of node:crypto. */
function cryptoRandom(): number {
  const [high, low] = webcrypto.getRandomValues(new Uint32Array(2));
  return (high! * 2 ** 21 + (low! >>> 11)) / 2 ** 53;
}

/** Waits `ms` on a real timer. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A factory of direct ports over shared resources: call it once (per activity, per worker), then
 * once per flow run or virtual user with its {@link DirectPortOptions}.
 */
export function directPorts(resources: DirectPortResources): (options: DirectPortOptions) => InterpreterPort {
  const nodes = createNodeExecutor(resources.sandbox, resources.agent);
  const pool = () => resources.expressionPool ?? sharedExpressionPool();
  const dynamic = { uuid: randomUUID, now: Date.now, random: cryptoRandom };

  /** The guarded evaluator: the small step budget here, the pool past it. Throws ExpressionError. */
  const evaluate = async (expression: string, input: unknown): Promise<unknown> => {
    try {
      return await evaluateExpression(expression, input, {}, WORKFLOW_LIMITS);
    } catch (err) {
      if (!(err instanceof ExpressionError) || err.code !== BUDGET_CODE) throw err;
    }
    const out = await evaluateHeavyExpression(pool(), expression, input);
    if (out.error) throw new ExpressionError(out.error.message, expression, out.error.code);
    return out.value;
  };

  return (options) => {
    const { runId, settings, deadlineMs } = options;
    return {
      runId,
      settings,
      deadlineMs,
      dynamic,
      now: Date.now,
      async executeApiNode(input) {
        const out = await nodes.executeApiNode(input, { executionId: options.executionId?.(input.label) });
        // Each attempt's timeout is cut to the time left (activities/nodes.ts): a timeout at the deadline interrupts the test case.
        if (out.exchange?.errorCode === 'TIMEOUT' && Date.now() >= deadlineMs) throw new DeadlineReached();
        return out;
      },
      runScript: (input) => nodes.runScript(input),
      evaluate,
      sleep: (ms) => delay(ms),
      historyLength: () => 0,
      runLoopSegment() {
        return Promise.reject(new Error('the direct port runs every loop inline (historyLength is 0)'));
      },
      beforeNode() {
        if (Date.now() >= deadlineMs) throw new DeadlineReached();
      },
      async afterNode() {
        options.onNodeDone?.();
      },
    };
  };
}
