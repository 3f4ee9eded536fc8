/**
 * The shapes of the console's code editor (editor.tsx), in a module of their own so that the
 * CodeMirror chunk (code-editor.tsx) and its loader share them without importing each other.
 */

/** Languages the editor highlights. */
export type EditorLanguage = 'json' | 'javascript' | 'text';

/** A mark the editor shows: a character range and a message. */
export interface EditorMark {
  from: number;
  to: number;
  message: string;
}

/** Properties of {@link Editor}. */
export interface EditorProps {
  value: string;
  onChange?: (value: string) => void;
  language?: EditorLanguage;
  /** Accessible name of the editor (it has no visible <label>). */
  label: string;
  readOnly?: boolean;
  marks?: EditorMark[];
  /** Called on Ctrl/Cmd+Enter. */
  onSubmit?: () => void;
  /**
   * Names the editor completes as you type (beside the language's own), e.g. a script's
   * `$context.set`, `$response.body` ({@link SCRIPT_COMPLETIONS}): offered when the word before the
   * cursor (letters, digits, `$`, `_`, `.`) starts one of them.
   */
  completions?: readonly EditorCompletion[];
  minHeight?: string;
}

/** One name an editor completes: what is inserted, and a word on what it is. */
export interface EditorCompletion {
  label: string;
  detail?: string;
}

/**
 * What script code sees (docs/flows.md "Scripts"): the objects, their members and the built-in
 * libraries, for the code editors of hooks and Script nodes.
 */
export const SCRIPT_COMPLETIONS: readonly EditorCompletion[] = [
  { label: 'async function beforeRequest() {}', detail: 'hook: before the request' },
  { label: 'async function afterResponse() {}', detail: 'hook: after the response' },
  { label: 'async function generateValue() {}', detail: "hook: a Script node's value" },
  { label: '$request', detail: 'method, url, headers, body (beforeRequest may change them)' },
  { label: '$request.method', detail: 'string' },
  { label: '$request.url', detail: 'string' },
  { label: '$request.headers', detail: 'object' },
  { label: '$request.body', detail: 'the body' },
  { label: '$response', detail: 'status, headers, body, time (afterResponse)' },
  { label: '$response.status', detail: 'number' },
  { label: '$response.headers', detail: 'object, lower-case names' },
  { label: '$response.body', detail: 'parsed when JSON' },
  { label: '$response.time', detail: 'ms' },
  { label: '$context', detail: 'the flow: variables, nodes, loop…' },
  { label: '$context.get', detail: '(name) → a variable' },
  { label: '$context.set', detail: '(name, value)' },
  { label: '$context.unset', detail: '(name)' },
  { label: '$context.has', detail: '(name) → boolean' },
  { label: '$context.variables', detail: 'all variables' },
  { label: '$context.nodes', detail: 'earlier nodes, read-only' },
  { label: '$context.loop', detail: 'the innermost loop' },
  { label: '$context.loops', detail: 'all loops, outermost first' },
  { label: '$context.testCase', detail: 'the test case' },
  { label: '$context.runId', detail: 'the run' },
  { label: '$test', detail: '(name, fn | boolean): a named check' },
  { label: '$log', detail: '(...values): kept with the result' },
  { label: '_', detail: 'lodash' },
  { label: 'faker', detail: '@faker-js/faker' },
  { label: 'z', detail: 'zod' },
  { label: 'ky', detail: 'HTTP client' },
  { label: 'luxon', detail: 'dates and times' },
];
