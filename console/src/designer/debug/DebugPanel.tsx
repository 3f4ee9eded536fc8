/**
 * One node's result in a debug run, beside its form in the designer (docs/console.md "The designer"):
 * status, duration and, for a failed node, its error first; the request as sent
 * (method, URL, headers, body); the response (status, time, size, headers, the body as a
 * collapsible {@link JsonTree}); the assertion results with expected and actual; the variables
 * after the node; a link to the whole run's page. Each field of the response (body and headers)
 * has a menu that adds an assertion or an extraction ("From a response to a test"): the panel
 * calls `onAssert`/`onExtract`, the designer writes them into the node. Nodes without a captured
 * exchange (IF, Loop, Script…) show the run page's view of their result (results/node-result.tsx).
 */
import { useEffect, useState } from 'preact/hooks';
import type { NodeResult } from '../../types';
import type { Assertion } from '../../../../src/domain/types';
import { bytes, duration } from '../../format';
import { Badge } from '../../ui/kit';
import { AssertionResults, NodeResultView } from '../../results/node-result';
import { JsonTree, pathLabel, type JsonTreeAction } from './JsonTree';
import {
  assertionFor,
  extractionFor,
  jsonType,
  subschemaAt,
  type Extraction,
  type FieldSource,
  type PathSegment,
} from './paths';
import type { DebugState } from './use-debug-run';
import './debug.css';

/** Props of {@link DebugPanel}. */
export interface DebugPanelProps {
  /** The selected node's result in the last debug run (`useDebugRun().results.get(id)`); undefined: not run. */
  result: NodeResult | undefined;
  /** The debug run's id, for the link to its page (`/runs/{runId}`). */
  runId?: string;
  /** How many results the node had (`useDebugRun().counts.get(id)`): more than 1 says the last is shown. */
  count?: number;
  /** Where the debug run is (words for a node without a result). */
  state?: DebugState;
  /**
   * The JSON Schema of the response body, when known (the API design's). Default: the `expected` of
   * the node's own `response.body` `matchesSchema` assertion, when it has one. Without a schema the
   * menu has no "matches the design's schema".
   */
  responseSchema?: unknown;
  /** Adds `assertion` to node `nodeId`'s assertions. Without it the response has no menus. */
  onAssert?: (nodeId: string, assertion: Assertion) => void;
  /** Adds `extraction` to node `nodeId`'s `extract` (`extract[variable] = expression`). */
  onExtract?: (nodeId: string, extraction: Extraction) => void;
}

/** A value in a menu label: short JSON, cut at 40 characters. */
function brief(v: unknown): string {
  const t = JSON.stringify(v) ?? 'undefined';
  return t.length > 40 ? `${t.slice(0, 39)}…` : t;
}

/** The schema of the node's `response.body` `matchesSchema` assertion, if any. */
function ownSchema(result: NodeResult): unknown {
  return result.assertions?.find(
    (a) =>
      a.target === 'response.body' && a.operator === 'matchesSchema' && a.expected && typeof a.expected === 'object',
  )?.expected;
}

/** JSON text size of a captured body, in bytes of UTF-8 (what the panel shows when the result has no size). */
function sizeOf(body: unknown): number | undefined {
  if (body === undefined) return undefined;
  return new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body)).length;
}

/** See the module's notes. */
export function DebugPanel({ result, runId, count, state, responseSchema, onAssert, onExtract }: DebugPanelProps) {
  const [said, setSaid] = useState('');
  useEffect(() => setSaid(''), [result?.id]);
  if (!result)
    return (
      <section class="dzd-panel" aria-label="Debug result">
        <p class="muted">
          {state === 'running' || state === 'starting'
            ? 'Running…'
            : state === 'done' || state === 'failed'
              ? 'This node did not run in the last debug run.'
              : 'Not run yet: run the test case to see what this node sent and received.'}
        </p>
      </section>
    );
  const name = result.name ?? result.id;
  const cap = result.debug;
  const schema = responseSchema ?? ownSchema(result);

  const actionsFor =
    (source: FieldSource) =>
    (segments: PathSegment[], value: unknown): JsonTreeAction[] => {
      const field = { source, segments, value };
      const out: JsonTreeAction[] = [];
      const where = pathLabel(segments);
      if (onAssert) {
        const add = (a: Assertion | undefined, words: string) => {
          if (!a) return;
          onAssert(result.id, a);
          setSaid(`Assertion added to ${name}: ${a.target} ${words}.`);
        };
        out.push(
          {
            label: `Assert equals ${brief(value)}`,
            run: () => add(assertionFor(field, 'equals'), `equals ${brief(value)}`),
          },
          {
            label: `Assert is of type ${jsonType(value)}`,
            run: () => add(assertionFor(field, 'isType'), `is of type ${jsonType(value)}`),
          },
          { label: 'Assert exists', run: () => add(assertionFor(field, 'exists'), 'exists') },
        );
        const part = source === 'body' ? subschemaAt(schema, segments) : undefined;
        if (part)
          out.push({
            label: "Assert matches the design's schema",
            run: () => add(assertionFor(field, 'matchesSchema', part), "matches the design's schema"),
          });
      }
      if (onExtract) {
        const x = extractionFor(result.id, field);
        out.push({
          label: 'Extract into a variable…',
          ask: { label: `Variable for ${where}`, initial: x.variable },
          run: (text) => {
            const variable = text ?? x.variable;
            onExtract(result.id, { ...x, variable });
            setSaid(`${name} extracts ${x.expression} into variable ${variable}.`);
          },
        });
      }
      return out;
    };
  const menus = onAssert || onExtract;

  return (
    <section class={`dzd-panel dzd-${result.status}`} aria-label={`Debug result of ${name}`}>
      <header class="dzd-head">
        <Badge value={result.status} /> <strong>{name}</strong> <span class="muted">{result.type}</span>
        <span class="muted"> · {duration(result.duration)}</span>
        {count !== undefined && count > 1 && <span class="muted"> · ran {count} times, the last shown</span>}
        {runId && (
          <a class="dzd-run-link" href={`/runs/${encodeURIComponent(runId)}`}>
            Open the run
          </a>
        )}
      </header>
      {result.status === 'failed' && result.error && (
        <div class="problem dzd-error" role="alert">
          <strong class="problem-title">{result.errorCode ?? 'Failed'}</strong>
          <p class="problem-detail">
            {result.error}
            {result.line !== undefined && <span class="muted"> (line {result.line})</span>}
          </p>
        </div>
      )}
      {result.reason && <p class="muted">{result.reason}</p>}

      {cap?.request || cap?.response ? (
        <>
          {cap.request && (
            <details class="dzd-section" open={result.status === 'failed'}>
              <summary>
                Request{' '}
                <span class="mono">
                  {cap.request.method} {cap.request.url}
                </span>
              </summary>
              <Headers headers={cap.request.headers} label="Request headers" />
              <Body body={cap.request.body} cut={cap.request.bodyTruncated} label="Request body" />
            </details>
          )}
          {cap.response && (
            <details class="dzd-section" open>
              <summary>
                Response <span class="mono">{cap.response.status}</span> · {duration(cap.response.timeMs)} ·{' '}
                {bytes(result.response?.size ?? sizeOf(cap.response.body))}
              </summary>
              <h4 class="dzd-sub">Headers</h4>
              <JsonTree
                value={cap.response.headers}
                label="Response headers"
                rootMenu={false}
                actions={menus ? actionsFor('headers') : undefined}
              />
              <Body
                body={cap.response.body}
                cut={cap.response.bodyTruncated}
                label="Response body"
                actions={menus ? actionsFor('body') : undefined}
              />
            </details>
          )}
          <AssertionResults name={name} assertions={result.assertions} />
          {result.logs && result.logs.length > 0 && (
            <details class="dzd-section">
              <summary>Script logs ({result.logs.length})</summary>
              <pre class="logs">{result.logs.map((l) => `[${l.level}] ${l.message}`).join('\n')}</pre>
            </details>
          )}
        </>
      ) : (
        <NodeResultView node={result} nested={false} />
      )}

      {cap?.variables && (
        <details class="dzd-section">
          <summary>Variables after the node</summary>
          {cap.variablesTruncated && <p class="muted">Cut: the largest values are left out.</p>}
          <JsonTree value={cap.variables} label="Variables after the node" />
        </details>
      )}
      <p class="dzd-said" role="status" aria-live="polite">
        {said}
      </p>
    </section>
  );
}

function Headers({ headers, label }: { headers: Record<string, string>; label: string }) {
  const rows = Object.entries(headers);
  if (rows.length === 0) return <p class="muted">No headers.</p>;
  return (
    <table class="dzd-headers" aria-label={label}>
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <th scope="row" class="mono">
              {k}
            </th>
            <td class="mono">{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A captured body: a JSON tree, or the text (a body that is not JSON, or one cut short). */
function Body({
  body,
  cut,
  label,
  actions,
}: {
  body: unknown;
  cut?: boolean;
  label: string;
  actions?: (segments: PathSegment[], value: unknown) => JsonTreeAction[];
}) {
  if (body === undefined) return <p class="muted">No body.</p>;
  return (
    <>
      <h4 class="dzd-sub">Body</h4>
      {cut && (
        <p class="muted">
          Cut: only the start of the body was kept{typeof body === 'string' ? ', as text' : ''}. Open the run for its
          size.
        </p>
      )}
      {typeof body === 'string' ? (
        <pre class="dzd-text" aria-label={label}>
          {body}
        </pre>
      ) : (
        <JsonTree value={body} label={label} actions={actions} />
      )}
    </>
  );
}
