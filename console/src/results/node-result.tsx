/**
 * One node's result as the run page shows it (moved out of pages/run.tsx, shared with the
 * designer's debug panel, console/src/designer/debug): status, name, type, duration, the flaky
 * mark, the skip reason, the error, the request line and response figures, what waiting nodes add
 * (pages/async-nodes.tsx), the IF condition, the assertion results with expected and actual,
 * script logs, the variables a Context or Script node set, then its children and iterations,
 * recursively. Reads `NodeResult` (src/domain/types.ts) only.
 */
import type { ComponentChildren } from 'preact';
import type { AssertionResult, NodeResult } from '../types';
import { AsyncNodeDetails } from '../pages/async-nodes';
import { bytes, duration, show } from '../format';
import { Badge } from '../ui/kit';

/** A test case's nodes the flakiness rule flags (`TestCaseResult.flakyNodes`), by node id. */
export type FlakyNodes = Map<string, { flips: number; window: number; flipRate: number }>;

/** Expected beside actual (a failure of a test case, an assertion), each as {@link show} writes it. */
export function Compare({ expected, actual }: { expected: unknown; actual: unknown }) {
  return (
    <div class="compare">
      <div>
        <span class="muted">Expected</span>
        <pre data-testid="expected">{show(expected)}</pre>
      </div>
      <div>
        <span class="muted">Actual</span>
        <pre data-testid="actual">{show(actual)}</pre>
      </div>
    </div>
  );
}

/**
 * A node's assertion results as a table named `Assertions of <node name or id>`: the target and
 * operator (with the failure message), expected, actual, passed or failed. Nothing when there are none.
 */
export function AssertionResults({
  name,
  assertions,
  actions,
}: {
  /** The node's name, else its id (the table's accessible name). */
  name: string;
  assertions: AssertionResult[] | undefined;
  /** An extra cell per row (the designer's buttons); absent on the run page. */
  actions?: (a: AssertionResult, index: number) => ComponentChildren;
}) {
  if (!assertions || assertions.length === 0) return null;
  return (
    <table class="assertions" aria-label={`Assertions of ${name}`}>
      <thead>
        <tr>
          <th>Assertion</th>
          <th>Expected</th>
          <th>Actual</th>
          <th></th>
          {actions && <th></th>}
        </tr>
      </thead>
      <tbody>
        {assertions.map((a, i) => (
          <tr key={i}>
            <td>
              {a.name && <div>{a.name}</div>}
              <code>{a.target}</code> <span class="muted">{a.operator}</span>
              {a.message && !a.passed && <div class="field-error">{a.message}</div>}
            </td>
            <td>
              <pre>{a.expected === undefined ? '' : show(a.expected)}</pre>
            </td>
            <td>
              <pre>{show(a.actual)}</pre>
            </td>
            <td>
              <Badge value={a.passed ? 'passed' : 'failed'} />
            </td>
            {actions && <td>{actions(a, i)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * One node's result and, nested, its children's and iterations' (the run page's "Nodes" list).
 * `flaky` marks the nodes the flakiness rule flags; `nested: false` shows the node alone (the
 * designer paints each node of its tree on its own).
 */
export function NodeResultView({
  node,
  flaky = new Map(),
  nested = true,
}: {
  node: NodeResult;
  flaky?: FlakyNodes;
  nested?: boolean;
}) {
  const f = flaky.get(node.id);
  return (
    <div class={`node node-${node.status}`}>
      <div>
        <Badge value={node.status} /> <strong>{node.name ?? node.id}</strong> <span class="muted">{node.type}</span>{' '}
        {f && (
          <span
            class="badge badge-flaky"
            data-flaky-node={node.id}
            title={`Flaky node: its outcome flipped ${f.flips} times in the test case's last ${f.window} runs`}
          >
            flaky
          </span>
        )}{' '}
        <span class="muted">· {duration(node.duration)}</span>
      </div>
      {node.reason && <div class="muted">{node.reason}</div>}
      {node.error && (
        <div class="failure">
          {node.error}
          {node.line !== undefined && <span class="muted"> (line {node.line})</span>}
        </div>
      )}
      {node.request && (
        <dl class="kv">
          <dt>Request</dt>
          <dd class="mono">
            {node.request.method} {node.request.url}
          </dd>
          {node.response && (
            <>
              <dt>Response</dt>
              <dd>
                {node.response.status ?? '—'} · {duration(node.response.timeMs)} · {bytes(node.response.size)}
                {node.response.truncated && ' · body cut'}
              </dd>
            </>
          )}
          {node.type !== 'poll' && node.attempts && node.attempts.length > 1 && (
            <>
              <dt>Attempts</dt>
              <dd>{node.attempts.length}</dd>
            </>
          )}
        </dl>
      )}
      <AsyncNodeDetails node={node} />
      {node.condition !== undefined && (
        <div class="muted">
          condition <code>{String(node.condition)}</code> → {node.branch}
        </div>
      )}
      <AssertionResults name={node.name ?? node.id} assertions={node.assertions} />
      {node.logs && node.logs.length > 0 && (
        <details>
          <summary>Script logs ({node.logs.length})</summary>
          <pre class="logs">{node.logs.map((l) => `[${l.level}] ${l.message}`).join('\n')}</pre>
        </details>
      )}
      {node.variablesSet && Object.keys(node.variablesSet).length > 0 && (
        <details>
          <summary>Variables set</summary>
          <pre>{JSON.stringify(node.variablesSet, null, 2)}</pre>
        </details>
      )}
      {nested && node.children?.map((c) => <NodeResultView key={c.id} node={c} flaky={flaky} />)}
      {nested &&
        node.iterationResults?.map((it) => (
          <details key={it.index} class="iteration">
            <summary>
              Iteration {it.index + 1} <Badge value={it.status} />
            </summary>
            {it.nodes.map((c) => (
              <NodeResultView key={c.id} node={c} flaky={flaky} />
            ))}
          </details>
        ))}
      {nested && node.omittedIterations ? (
        <div class="muted">{node.omittedIterations} more iterations not listed</div>
      ) : null}
    </div>
  );
}
