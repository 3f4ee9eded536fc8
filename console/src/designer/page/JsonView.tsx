/**
 * The flow as JSON, one click from the tree (docs/console.md "The designer"): the same document in
 * both views. A change in the tree or a form replaces the text; typing in the text replaces the
 * flow 300 ms after the last key (or at once when the editor loses focus, e.g. to the Save button)
 * when it parses to a list (one undoable "Edit JSON" step). While
 * the text does not parse, it is kept as typed, the error is marked at its place and reported
 * through `onError`, and the page makes the tree read-only until it parses again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Problem } from '../../api';
import { Editor } from '../../ui/editor';
import { FieldErrors, marksUnder, pretty, readJson } from '../../resources/common';
import type { FlowNode } from '../model/doc';

/** How long after the last key the text is read (ms). */
export const JSON_DEBOUNCE_MS = 300;

export function JsonView({
  flow,
  onFlow,
  onError,
  problem,
  readOnly,
  onSubmit,
}: {
  flow: FlowNode[];
  onFlow: (flow: FlowNode[]) => void;
  onError: (message: string | undefined) => void;
  problem: Problem | undefined;
  readOnly: boolean;
  onSubmit?: () => void;
}) {
  const [text, setText] = useState(() => pretty(flow));
  const [error, setError] = useState<ReturnType<typeof readJson> | undefined>();
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const lastSent = useRef<FlowNode[]>(flow);
  const latest = useRef(text);
  latest.current = text;
  useEffect(() => {
    // A change that did not come from this view (the tree, a form, undo): show it.
    if (flow !== lastSent.current) {
      lastSent.current = flow;
      setText(pretty(flow));
      setError(undefined);
      onError(undefined);
    }
  }, [flow]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const read = (t: string) => {
    const parsed = readJson(t, 'The flow');
    if (parsed.ok && !Array.isArray(parsed.value)) {
      const bad = {
        ok: false as const,
        message: 'The flow must be a JSON list of nodes',
        mark: { from: 0, to: 1, message: 'not a list' },
      };
      setError(bad);
      onError(bad.message);
      return;
    }
    if (!parsed.ok) {
      setError(parsed);
      onError(parsed.message);
      return;
    }
    setError(undefined);
    onError(undefined);
    if (JSON.stringify(parsed.value) === JSON.stringify(lastSent.current)) return;
    lastSent.current = parsed.value as FlowNode[];
    onFlow(parsed.value as FlowNode[]);
  };
  const server = marksUnder(problem, '/flow', text);
  const marks = error && !error.ok ? [error.mark] : server.marks;
  return (
    <div
      class={`field${marks.length ? ' field-invalid' : ''}`}
      onFocusOut={() => {
        // Leaving the editor (for Save, the tree tab…) reads what was typed without waiting.
        if (timer.current === undefined) return;
        clearTimeout(timer.current);
        timer.current = undefined;
        read(latest.current);
      }}
    >
      <span class="field-label" id="flow-label">
        Flow (JSON: a list of nodes, docs/flows.md)
      </span>
      <Editor
        value={text}
        language="json"
        label="Flow"
        readOnly={readOnly}
        marks={marks}
        minHeight="20rem"
        onSubmit={onSubmit}
        onChange={(t) => {
          setText(t);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => {
            timer.current = undefined;
            read(t);
          }, JSON_DEBOUNCE_MS);
        }}
      />
      {error && !error.ok && (
        <p class="field-error" role="alert">
          {error.message}. The tree is read-only until the JSON is valid again.
        </p>
      )}
      <FieldErrors errors={server.errors} label="Flow errors" />
    </div>
  );
}
