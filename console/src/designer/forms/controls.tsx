/**
 * The building blocks of the node forms: the form's environment ({@link Env}), a labelled field
 * that shows its errors ({@link FormField}), text kept in step with a value that undo may change
 * ({@link useSynced}), inputs for templates ({@link TemplateInput}: `{{variables}}` highlighted and
 * completed) and JSONata expressions ({@link ExpressionInput}: completed and checked as typed), any
 * JSON ({@link JsonField}), code ({@link CodeField}) and name/value tables ({@link KeyValueTable}).
 */
import type { ComponentChildren, VNode } from 'preact';
import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { FlowNode } from '../../../../src/domain/types';
import { Combobox, type Completion } from '../../ui/Combobox';
import { Editor, type EditorLanguage, type EditorMark } from '../../ui/editor';
import { SCRIPT_COMPLETIONS } from '../../ui/editor-types';
import { checkExpression, loadJsonata, loadedJsonata, type ExpressionProblem } from './check';
import type { Control, FieldProblem, Path } from './plan';
import {
  DYNAMIC_VARIABLES,
  expressionItems,
  expressionSpot,
  matchItems,
  templateSegments,
  templateSpot,
  sameJson,
  type KeyValue,
} from './values';

/** What the caller tells a form about the test case around the node (see NodeForm.tsx). */
export interface FormContext {
  /** Names `{{…}}` and expressions may use: environment variables, data set columns, earlier nodes' variables, `nodes.<id>.response.body`… */
  variables: { name: string; detail: string }[];
  /** Auth profiles of the workspace (the `authProfile` choices; `none` is always offered). */
  authProfiles: string[];
  /** Servers of the chosen environment (the `server` choices). */
  servers: string[];
  /** Test cases of the workspace (Ref `testCaseId`), reusable ones offered first. */
  testCases: { id: string; name: string; reusable: boolean }[];
  /** Data set names of the test case (Iteration `dataSet`). */
  dataSets: string[];
  /** Files of the workspace (`GET /v1/files`): the choices of multipart file parts and file bodies. */
  files: { name: string; contentType: string; size: number }[];
  /** Reads the workspace's files again (after the request builder uploaded one; absent: not offered). */
  reloadFiles?: () => void;
  /** Sends the node's request now (the request builder's Send button; absent: no button). */
  onSend?: () => void;
}

/** What every control of a form gets: the node, how to change it, its errors, the context. */
export interface Env {
  node: FlowNode;
  /** Sets the field at `path` (relative to the node); `undefined` deletes it. */
  set: (path: Path, value: unknown) => void;
  readOnly: boolean;
  context: FormContext;
  /** The errors shown by the control whose pointer is `pointer` (those below it too, for tables). */
  errors: (pointer: string) => FieldProblem[];
  /** Every error at `pointer` or below it, whoever shows it (tab badges count them). */
  errorsUnder: (pointer: string) => FieldProblem[];
  /** Renders a generic control (widgets use it for the fields they do not draw themselves). */
  render: (control: Control) => VNode;
}

/** The messages of `errors`, joined (what a field shows under itself). */
export function messages(errors: readonly FieldProblem[]): string | undefined {
  return errors.length ? errors.map((e) => e.message).join(' · ') : undefined;
}

/**
 * A labelled control: `label` (a `<label for>` naming the control `id`), the control, then the
 * error (`role="alert"`) or the hint, both referred to by the control's `aria-describedby`
 * (`${id}-hint`, `${id}-error`). A required field's `*` stays outside the `<label>` (hidden from the accessible name: tests find "URL").
 */
export function FormField({
  id,
  label,
  hint,
  error,
  required,
  children,
  class: cls,
}: {
  id: string;
  label: string;
  hint?: string;
  error?: string;
  required?: boolean;
  children: ComponentChildren;
  class?: string;
}) {
  return (
    <div class={`field dzf-field${error ? ' field-invalid' : ''}${cls ? ` ${cls}` : ''}`}>
      <span class="dzf-label-row">
        <label class="field-label" for={id}>
          {label}
        </label>
        {required && (
          <span class="dzf-required" aria-hidden="true" title="Required">
            *
          </span>
        )}
      </span>
      {children}
      {error ? (
        <span class="field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      ) : (
        hint && (
          <span class="field-hint dzf-hint" id={`${id}-hint`}>
            {hint}
          </span>
        )
      )}
    </div>
  );
}

/** The `aria-describedby` of a {@link FormField}'s control. */
export const describedBy = (id: string, error: string | undefined, hint: string | undefined) =>
  error ? `${id}-error` : hint ? `${id}-hint` : undefined;

/**
 * Text shown for a value that can also change from outside (undo, a paste, the JSON view): the
 * typed text is kept while it still means the value (`same(text, value)`: `1.0` for 1, a JSON
 * text with other spacing); otherwise the value is written anew (`format`) and `gen` grows (the
 * key code editors are remounted with).
 */
export function useSynced<T>(value: T, format: (v: T) => string, same: (text: string, v: T) => boolean) {
  const state = useRef<{ text: string; gen: number; seen: T } | null>(null);
  if (!state.current) state.current = { text: format(value), gen: 0, seen: value };
  else if (!Object.is(state.current.seen, value)) {
    // The value changed: our own edit coming back (the text still means it) or a change from outside.
    if (!same(state.current.text, value))
      state.current = { text: format(value), gen: state.current.gen + 1, seen: value };
    else state.current.seen = value;
  }
  const [, force] = useState(0);
  return {
    text: state.current.text,
    gen: state.current.gen,
    setText: (text: string) => {
      state.current!.text = text;
      force((n) => n + 1);
    },
  };
}

/** Rows kept in step with a value (a map, a URL's query): see {@link useSynced}. */
export function useSyncedRows<T>(value: T, toRows: (v: T) => KeyValue[], same: (rows: KeyValue[], v: T) => boolean) {
  const state = useRef<KeyValue[] | null>(null);
  if (!state.current || !same(state.current, value)) state.current = toRows(value);
  const [, force] = useState(0);
  return {
    rows: state.current,
    setRows: (rows: KeyValue[]) => {
      state.current = rows;
      force((n) => n + 1);
    },
  };
}

/** Is `name` a variable the context knows (itself, or a field of one: `user.id` of `user`)? */
function known(name: string, variables: readonly { name: string }[]): boolean {
  if (name.startsWith('$')) return true;
  return variables.some((v) => v.name === name || name.startsWith(`${v.name}.`) || v.name.startsWith(`${name}.`));
}

/** Properties shared by the text inputs of the forms. */
interface InputProps {
  id: string;
  label?: string;
  value: string;
  onValue: (value: string) => void;
  readOnly?: boolean;
  invalid?: boolean;
  describedBy?: string;
  placeholder?: string;
  class?: string;
  required?: boolean;
  maxLength?: number;
}

/**
 * A one-line text input taking `{{variable}}` placeholders: they are painted (known ones and
 * unknown ones differently) and `{{` opens a list of the context's variables and dynamic values.
 */
export function TemplateInput(props: InputProps & { variables: readonly { name: string; detail: string }[] }) {
  const { variables, onValue, value, label, invalid, describedBy: desc, ...rest } = props;
  const items = useMemo(
    () => [...variables, ...DYNAMIC_VARIABLES].map((v) => ({ name: v.name, detail: v.detail, insert: `${v.name}}}` })),
    [variables],
  );
  const complete = (text: string, caret: number): Completion | null => {
    const spot = templateSpot(text, caret);
    return spot ? { from: spot.from, to: spot.to, items: matchItems(items, spot.query) } : null;
  };
  return (
    <Combobox
      {...rest}
      class={`mono dzf-input${rest.class ? ` ${rest.class}` : ''}`}
      value={value}
      onValue={onValue}
      complete={complete}
      listLabel="Variables"
      aria-label={label}
      aria-invalid={invalid || undefined}
      aria-describedby={desc}
      highlight={(text) =>
        templateSegments(text).map((s, i) =>
          s.name === undefined ? (
            <span key={i}>{s.text}</span>
          ) : (
            <mark key={i} class={known(s.name, variables) ? 'dzf-ph' : 'dzf-ph dzf-ph-unknown'}>
              {s.text}
            </mark>
          ),
        )
      }
    />
  );
}

/** The syntax problem of `text` by jsonata, updated as it is typed (jsonata loaded on first use). */
export function useExpressionCheck(text: string): ExpressionProblem | null {
  const [parser, setParser] = useState(() => loadedJsonata());
  useEffect(() => {
    if (parser) return;
    let live = true;
    loadJsonata().then(
      (p) => live && setParser(() => p),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);
  return useMemo(() => (parser ? checkExpression(parser, text) : null), [parser, text]);
}

/** The text of an expression problem: the parser's message and where it stopped. */
export function problemText(p: ExpressionProblem, text: string): string {
  const at = p.offset !== undefined ? ` (at character ${p.offset + 1}${near(text, p.offset)})` : '';
  return `JSONata syntax error${at}: ${p.message}`;
}

function near(text: string, offset: number): string {
  const bit = text.slice(Math.max(0, offset - 8), offset + 8).trim();
  return bit ? `, near "${bit}"` : '';
}

/**
 * A JSONata expression input: names completed from the context (`variables.token`,
 * `nodes.login.response.body`, `response.status` where `response` is seen) and the syntax checked
 * as typed; the check's message (with its position) is announced politely and marks the input
 * invalid. `serverError` (from the API) wins over the check.
 */
export function ExpressionInput(
  props: InputProps & {
    variables: readonly { name: string; detail: string }[];
    response?: boolean;
    serverError?: string;
    hint?: string;
  },
) {
  const { variables, response = false, serverError, hint, onValue, value, label, describedBy: _d, ...rest } = props;
  const items = useMemo(() => expressionItems(variables, response), [variables, response]);
  const problem = useExpressionCheck(value);
  const complete = (text: string, caret: number): Completion | null => {
    const spot = expressionSpot(text, caret);
    if (!spot) return null;
    const found = matchItems(items, spot.query).filter((i) => i.name !== spot.query);
    return { from: spot.from, to: spot.to, items: found };
  };
  const checkId = `${props.id}-check`;
  const error = serverError ?? (problem ? problemText(problem, value) : undefined);
  return (
    <div class="dzf-expression">
      <Combobox
        {...rest}
        class={`mono dzf-input${rest.class ? ` ${rest.class}` : ''}`}
        value={value}
        onValue={onValue}
        complete={complete}
        listLabel="Names"
        aria-label={label}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? checkId : hint ? `${props.id}-hint` : undefined}
      />
      <span id={checkId} class={error ? 'field-error dzf-xcheck' : 'dzf-xcheck'} aria-live="polite">
        {error ?? ''}
      </span>
    </div>
  );
}

/** Where a JSON text fails to parse (strict: no comments, no trailing commas): the message and its range. */
export function jsonProblem(text: string): { message: string; mark: EditorMark } | null {
  if (text.trim() === '') return null;
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const e = errors[0];
  if (!e) return null;
  const line = text.slice(0, e.offset).split('\n').length;
  const message = `Not valid JSON: ${printParseErrorCode(e.error)} at line ${line}`;
  return { message, mark: { from: e.offset, to: e.offset + Math.max(e.length, 1), message } };
}

/**
 * The code editor (CodeMirror, lazy) for a text that can also change from outside: remounted with
 * the new text when `gen` changes (see {@link useSynced}), otherwise left to its own edits.
 * JavaScript (scripts and hooks) completes what scripts see: `$context`, `$request`, `$response`…
 * (ui/editor-types.ts `SCRIPT_COMPLETIONS`).
 */
export function CodeField({
  gen,
  text,
  onText,
  language,
  label,
  readOnly,
  marks,
  minHeight = '6rem',
}: {
  gen: number;
  text: string;
  onText: (text: string) => void;
  language: EditorLanguage;
  label: string;
  readOnly: boolean;
  marks?: EditorMark[];
  minHeight?: string;
}) {
  return (
    <Editor
      key={gen}
      value={text}
      onChange={onText}
      language={language}
      label={label}
      readOnly={readOnly}
      marks={marks}
      minHeight={minHeight}
      completions={language === 'javascript' ? SCRIPT_COMPLETIONS : undefined}
    />
  );
}

/**
 * Any JSON value (a body, a message, a response): "JSON" (a JSON editor; a text that does not
 * parse is shown as an error and not stored) or "Text" (stored as a string, sent as it is). An
 * empty editor removes the field.
 */
export function JsonField({
  id,
  label,
  value,
  onValue,
  readOnly,
  hint,
  error,
  required,
}: {
  id: string;
  label: string;
  value: unknown;
  onValue: (value: unknown) => void;
  readOnly: boolean;
  hint?: string;
  error?: string;
  required?: boolean;
}) {
  const [chosen, setChosen] = useState<'json' | 'text' | undefined>(undefined);
  const mode = value === undefined ? (chosen ?? 'json') : typeof value === 'string' ? 'text' : 'json';
  const format = (v: unknown) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  const same = (t: string, v: unknown) => {
    if (v === undefined) return t.trim() === '';
    if (typeof v === 'string') return t === v;
    return !jsonProblem(t) && sameJson(JSON.parse(t) as unknown, v);
  };
  const s = useSynced(value, format, same);
  const problem = mode === 'json' ? jsonProblem(s.text) : null;
  const setText = (t: string) => {
    s.setText(t);
    if (t.trim() === '') return onValue(undefined);
    if (mode === 'text') return onValue(t);
    if (!jsonProblem(t)) onValue(JSON.parse(t) as unknown);
  };
  const setMode = (m: 'json' | 'text') => {
    setChosen(m);
    if (s.text.trim() === '') return;
    if (m === 'text') onValue(s.text);
    else if (!jsonProblem(s.text)) onValue(JSON.parse(s.text) as unknown);
  };
  const shown = error ?? problem?.message;
  return (
    <fieldset class={`dzf-json${shown ? ' field-invalid' : ''}`} aria-describedby={shown ? `${id}-error` : undefined}>
      <legend class="field-label">
        {label}
        {required && <span aria-hidden="true"> *</span>}
      </legend>
      <div class="dzf-radios" role="radiogroup" aria-label={`${label} format`}>
        {(['json', 'text'] as const).map((m) => (
          <label key={m} class="check">
            <input
              type="radio"
              name={`${id}-mode`}
              checked={mode === m}
              disabled={readOnly}
              onChange={() => setMode(m)}
            />
            {m === 'json' ? 'JSON' : 'Text'}
          </label>
        ))}
      </div>
      <CodeField
        gen={s.gen}
        text={s.text}
        onText={setText}
        language={mode === 'json' ? 'json' : 'text'}
        label={label}
        readOnly={readOnly}
        marks={problem ? [problem.mark] : undefined}
      />
      {shown ? (
        <span class="field-error" id={`${id}-error`} role="alert">
          {shown}
          {problem && !error && ' — not stored until it parses.'}
        </span>
      ) : (
        hint && <span class="field-hint dzf-hint">{hint}</span>
      )}
    </fieldset>
  );
}

/** How a {@link KeyValueTable} draws one row's value input. */
export type ValueInput = (row: KeyValue, index: number, onValue: (value: string) => void, label: string) => VNode;

/**
 * The {@link ValueInput} of a table whose values are templates (headers, query parameters, form
 * fields): a {@link TemplateInput} per row (placeholder "Value"), labelled as the table labels it,
 * its id `<uid>-<row index>` (`uid` from the caller's `useId`), completed from `env`'s variables.
 */
export function templateValues(uid: string, env: Env): ValueInput {
  return (row, i, onValue, label) => (
    <TemplateInput
      id={`${uid}-${i}`}
      label={label}
      value={row.value}
      onValue={onValue}
      variables={env.context.variables}
      readOnly={env.readOnly}
      placeholder="Value"
    />
  );
}

/**
 * The {@link ValueInput} of a table whose values are JSONata expressions (Context `set`,
 * extractions): an {@link ExpressionInput} per row with `placeholder`, labelled as the table labels
 * it, its id `<uid>-<row index>`; `response`: the response's names are completed too.
 */
export function expressionValues(uid: string, env: Env, placeholder: string, response = false): ValueInput {
  return (row, i, onValue, label) => (
    <ExpressionInput
      id={`${uid}-${i}`}
      label={label}
      value={row.value}
      onValue={onValue}
      variables={env.context.variables}
      response={response}
      readOnly={env.readOnly}
      placeholder={placeholder}
    />
  );
}

/**
 * A table of name/value rows: "`noun` N name" and "`noun` N value" inputs (the labels), a remove
 * button per row ("Remove `noun` N"), "Add `noun`". `valueInput` draws the value (a template or an
 * expression input); `errors` are shown under the table.
 */
export function KeyValueTable({
  noun,
  rows,
  onRows,
  readOnly,
  nameLabel = 'name',
  valueLabel = 'value',
  valueInput,
  namePlaceholder = 'Name',
  valuePlaceholder = 'Value',
  errors,
  caption,
}: {
  noun: string;
  rows: KeyValue[];
  onRows: (rows: KeyValue[]) => void;
  readOnly: boolean;
  nameLabel?: string;
  valueLabel?: string;
  valueInput?: ValueInput;
  namePlaceholder?: string;
  valuePlaceholder?: string;
  errors?: readonly FieldProblem[];
  caption?: string;
}) {
  const uid = useId();
  const set = (i: number, patch: Partial<KeyValue>) => onRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div class="dzf-kv">
      {caption && <p class="field-hint dzf-hint">{caption}</p>}
      {rows.length > 0 && (
        <div class="dzf-kv-rows" role="list" aria-label={`${noun}s`}>
          {rows.map((r, i) => {
            const vLabel = `${noun} ${i + 1} ${valueLabel}`;
            return (
              <div class="dzf-kv-row" role="listitem" key={i}>
                <input
                  class="mono dzf-kv-name"
                  id={`${uid}-n${i}`}
                  aria-label={`${noun} ${i + 1} ${nameLabel}`}
                  value={r.name}
                  placeholder={namePlaceholder}
                  readOnly={readOnly}
                  spellcheck={false}
                  onInput={(e) => set(i, { name: e.currentTarget.value })}
                />
                <div class="dzf-kv-value">
                  {valueInput ? (
                    valueInput(r, i, (value) => set(i, { value }), vLabel)
                  ) : (
                    <input
                      class="mono"
                      aria-label={vLabel}
                      value={r.value}
                      placeholder={valuePlaceholder}
                      readOnly={readOnly}
                      spellcheck={false}
                      onInput={(e) => set(i, { value: e.currentTarget.value })}
                    />
                  )}
                </div>
                {!readOnly && (
                  <button
                    type="button"
                    class="secondary small"
                    aria-label={`Remove ${noun.toLowerCase()} ${i + 1}`}
                    title="Remove"
                    onClick={() => onRows(rows.filter((_, j) => j !== i))}
                  >
                    ✕
                  </button>
                )}
              </div>
            );
          })}
        </div>
      )}
      {!readOnly && (
        <button type="button" class="secondary small" onClick={() => onRows([...rows, { name: '', value: '' }])}>
          Add {noun.toLowerCase()}
        </button>
      )}
      <ErrorList errors={errors} />
    </div>
  );
}

/** Errors of the fields inside a table, each with the pointer that names it. */
export function ErrorList({ errors, base = '' }: { errors?: readonly FieldProblem[]; base?: string }) {
  if (!errors || errors.length === 0) return null;
  return (
    <ul class="dzf-errors" role="alert">
      {errors.map((e, i) => {
        const rest = e.pointer.startsWith(base) ? e.pointer.slice(base.length) : e.pointer;
        return (
          <li key={i}>
            {rest && <code>{rest}</code>} {e.message}
          </li>
        );
      })}
    </ul>
  );
}
