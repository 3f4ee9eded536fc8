/**
 * The generic form: one control per planned field (./plan.ts), reading and writing the node at the
 * control's path through the form's {@link Env}. Widgets (./widgets/) draw the kinds `request`,
 * `assertions`, `extractions` and `testCase`.
 */
import type { VNode } from 'preact';
import { useId } from 'preact/hooks';
import type { Control, ListControl, MapControl, Path, RowsControl, TextControl } from './plan';
import {
  CodeField,
  ExpressionInput,
  FormField,
  JsonField,
  KeyValueTable,
  TemplateInput,
  describedBy,
  expressionValues,
  messages,
  templateValues,
  useSynced,
  useSyncedRows,
  type Env,
} from './controls';
import {
  formatList,
  formatLoose,
  getAt,
  mapToRows,
  parseList,
  parseLoose,
  parseScalar,
  rowsToMap,
  sameJson,
} from './values';
import { RequestWidget } from './widgets/Request';
import { AssertionsTable } from './widgets/Assertions';
import { ExtractionsTable } from './widgets/Extractions';
import { TestCasePicker } from './widgets/TestCase';

/** The control `c` for the node in `env` (see the module's notes). */
export function ControlView({ c, env }: { c: Control; env: Env }): VNode {
  switch (c.kind) {
    case 'text':
      return <TextField c={c} env={env} />;
    case 'expression':
      return <ExpressionField c={c} env={env} />;
    case 'number':
      return <NumberField c={c} env={env} />;
    case 'boolean':
      return <BooleanField c={c} env={env} />;
    case 'select':
      return <SelectField c={c} env={env} />;
    case 'scalar':
      return <ScalarField c={c} env={env} />;
    case 'json':
      return c.inline ? <InlineJsonField c={c} env={env} /> : <AnyJsonField c={c} env={env} />;
    case 'list':
      return <ListField c={c} env={env} />;
    case 'map':
      return <MapField c={c} env={env} />;
    case 'rows':
      return <RowsField c={c} env={env} />;
    case 'fieldset':
      return (
        <fieldset class="dzf-fieldset">
          <legend>{c.label}</legend>
          {c.hint && <p class="field-hint dzf-hint">{c.hint}</p>}
          <Own env={env} pointer={c.pointer} />
          {c.children.map((child) => (
            <ControlView key={child.pointer} c={child} env={env} />
          ))}
        </fieldset>
      );
    case 'variant':
      return <VariantField c={c} env={env} />;
    case 'script':
      return <ScriptField c={c} env={env} />;
    case 'assertions':
      return <AssertionsTable c={c} env={env} />;
    case 'extractions':
      return <ExtractionsTable c={c} env={env} />;
    case 'testCase':
      return <TestCasePicker c={c} env={env} />;
    case 'request':
      return <RequestWidget c={c} env={env} />;
  }
}

/** The errors of a composite control's own pointer (a missing required field, say). */
function Own({ env, pointer }: { env: Env; pointer: string }) {
  const e = messages(env.errors(pointer));
  return e ? (
    <p class="field-error" role="alert">
      {e}
    </p>
  ) : null;
}

type Props<C> = { c: C; env: Env };

const valueAt = (env: Env, path: Path) => getAt(env.node, path);

/** A text field: a select of the context's choices, a multi-line editor, a template input or a plain input. */
export function TextField({ c, env }: Props<TextControl>) {
  const id = useId();
  const value = valueAt(env, c.path);
  const text = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  const error = messages(env.errors(c.pointer));
  const set = (t: string) => env.set(c.path, t === '' && !c.required ? undefined : t);
  const desc = describedBy(id, error, c.hint);
  if (c.options) {
    const choices =
      c.options === 'servers'
        ? env.context.servers
        : c.options === 'dataSets'
          ? env.context.dataSets
          : env.context.authProfiles;
    const all = c.options === 'authProfiles' ? ['none', ...choices.filter((x) => x !== 'none')] : choices;
    const none =
      c.options === 'authProfiles' ? '(inherited)' : c.options === 'servers' ? '(none: a full URL)' : '(none)';
    return (
      <FormField id={id} label={c.label} hint={c.hint} error={error} required={c.required}>
        <select
          id={id}
          value={text}
          disabled={env.readOnly}
          aria-describedby={desc}
          onChange={(e) => set(e.currentTarget.value)}
        >
          <option value="">{none}</option>
          {all.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
          {text !== '' && !all.includes(text) && <option value={text}>{text} (not found)</option>}
        </select>
      </FormField>
    );
  }
  if (c.multiline) return <LongText c={c} env={env} id={id} text={text} error={error} />;
  return (
    <FormField id={id} label={c.label} hint={c.hint} error={error} required={c.required}>
      {c.template ? (
        <TemplateInput
          id={id}
          value={text}
          onValue={set}
          variables={env.context.variables}
          readOnly={env.readOnly}
          invalid={!!error}
          describedBy={desc}
          maxLength={c.maxLength}
        />
      ) : (
        <input
          id={id}
          class={c.pattern ? 'mono' : undefined}
          value={text}
          readOnly={env.readOnly}
          pattern={c.pattern}
          maxLength={c.maxLength}
          aria-invalid={error ? true : undefined}
          aria-describedby={desc}
          list={c.examples ? `${id}-examples` : undefined}
          spellcheck={false}
          onInput={(e) => set(e.currentTarget.value)}
        />
      )}
      {c.examples && (
        <datalist id={`${id}-examples`}>
          {c.examples.map((x) => (
            <option key={x} value={x} />
          ))}
        </datalist>
      )}
    </FormField>
  );
}

function LongText({ c, env, id, text, error }: Props<TextControl> & { id: string; text: string; error?: string }) {
  const s = useSynced(
    text,
    (t) => t,
    (t, v) => t === v,
  );
  return (
    <div class={`field dzf-field${error ? ' field-invalid' : ''}`} id={id}>
      <span class="field-label">{c.label}</span>
      <CodeField
        gen={s.gen}
        text={s.text}
        onText={(t) => {
          s.setText(t);
          env.set(c.path, t === '' && !c.required ? undefined : t);
        }}
        language="text"
        label={c.label}
        readOnly={env.readOnly}
      />
      {error ? (
        <span class="field-error" role="alert">
          {error}
        </span>
      ) : (
        c.hint && <span class="field-hint dzf-hint">{c.hint}</span>
      )}
    </div>
  );
}

function ExpressionField({ c, env }: Props<Control & { kind: 'expression' }>) {
  const id = useId();
  const value = valueAt(env, c.path);
  const text = typeof value === 'string' ? value : '';
  const error = messages(env.errors(c.pointer));
  return (
    <FormField id={id} label={c.label} hint={c.hint} required={c.required}>
      <ExpressionInput
        id={id}
        value={text}
        onValue={(t) => env.set(c.path, t === '' && !c.required ? undefined : t)}
        variables={env.context.variables}
        readOnly={env.readOnly}
        serverError={error}
        hint={c.hint}
        placeholder="JSONata expression"
      />
    </FormField>
  );
}

function NumberField({ c, env }: Props<Control & { kind: 'number' }>) {
  const id = useId();
  const value = valueAt(env, c.path);
  const error = messages(env.errors(c.pointer));
  const parse = (t: string) => (t.trim() === '' || !Number.isFinite(Number(t)) ? undefined : Number(t));
  const s = useSynced(
    value,
    (v) => (typeof v === 'number' ? String(v) : ''),
    (t, v) => parse(t) === v,
  );
  const range =
    c.minimum !== undefined && c.maximum !== undefined
      ? `${c.minimum}–${c.maximum}`
      : c.minimum !== undefined
        ? `at least ${c.minimum}`
        : c.maximum !== undefined
          ? `at most ${c.maximum}`
          : '';
  const hint = [c.hint, range && `(${range})`].filter(Boolean).join(' ');
  return (
    <FormField id={id} label={c.label} hint={hint || undefined} error={error} required={c.required}>
      <input
        id={id}
        type="number"
        inputMode={c.integer ? 'numeric' : 'decimal'}
        step={c.integer ? 1 : 'any'}
        min={c.minimum}
        max={c.maximum}
        value={s.text}
        readOnly={env.readOnly}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        onInput={(e) => {
          const t = e.currentTarget.value;
          s.setText(t);
          env.set(c.path, parse(t));
        }}
      />
    </FormField>
  );
}

function BooleanField({ c, env }: Props<Control & { kind: 'boolean' }>) {
  const id = useId();
  const value = valueAt(env, c.path);
  const error = messages(env.errors(c.pointer));
  return (
    <div class={`dzf-check${error ? ' field-invalid' : ''}`}>
      <label class="check">
        <input
          type="checkbox"
          id={id}
          checked={typeof value === 'boolean' ? value : c.defaultValue}
          disabled={env.readOnly}
          aria-describedby={describedBy(id, error, c.hint)}
          onChange={(e) =>
            env.set(c.path, e.currentTarget.checked === c.defaultValue ? undefined : e.currentTarget.checked)
          }
        />
        <span>{c.label}</span>
      </label>
      {error ? (
        <span class="field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      ) : (
        c.hint && (
          <span class="field-hint dzf-hint" id={`${id}-hint`}>
            {c.hint}
          </span>
        )
      )}
    </div>
  );
}

function SelectField({ c, env }: Props<Control & { kind: 'select' }>) {
  const id = useId();
  const value = valueAt(env, c.path);
  const text = value === undefined ? '' : String(value);
  const error = messages(env.errors(c.pointer));
  return (
    <FormField id={id} label={c.label} hint={c.hint} error={error} required={c.required}>
      <select
        id={id}
        value={text}
        disabled={env.readOnly}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, c.hint)}
        onChange={(e) => env.set(c.path, e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
      >
        {(!c.required || text === '') && <option value="">(default)</option>}
        {c.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
        {text !== '' && !c.options.includes(text) && <option value={text}>{text}</option>}
      </select>
    </FormField>
  );
}

/**
 * A one-line monospace input over the value at `c.path`: `format` writes the value as text, and on
 * every keystroke the text is kept and `parse`'s reading of it stored; the text stays as typed while
 * `same(text, value)` holds (so `1.0` is not rewritten `1`), else it follows the value (undo).
 */
function ParsedInputField({
  c,
  env,
  hint,
  placeholder,
  spellcheck,
  format,
  parse,
  same = (t, v) => sameJson(parse(t), v),
}: Props<Control> & {
  hint: string | undefined;
  placeholder?: string;
  spellcheck?: boolean;
  format: (value: unknown) => string;
  parse: (text: string) => unknown;
  same?: (text: string, value: unknown) => boolean;
}) {
  const id = useId();
  const value = valueAt(env, c.path);
  const error = messages(env.errors(c.pointer));
  const s = useSynced(value, format, same);
  return (
    <FormField id={id} label={c.label} hint={hint} error={error} required={c.required}>
      <input
        id={id}
        class="mono"
        value={s.text}
        readOnly={env.readOnly}
        placeholder={placeholder}
        spellcheck={spellcheck}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        onInput={(e) => {
          s.setText(e.currentTarget.value);
          env.set(c.path, parse(e.currentTarget.value));
        }}
      />
    </FormField>
  );
}

/** A string or a number: `90` is stored as a number, `90s` as text. */
function ScalarField({ c, env }: Props<Control & { kind: 'scalar' }>) {
  return (
    <ParsedInputField
      c={c}
      env={env}
      hint={c.hint}
      placeholder="e.g. 30s, 5m, 1h30m"
      format={(v) => (v === undefined ? '' : String(v))}
      parse={parseScalar}
      same={(t, v) => parseScalar(t) === v}
    />
  );
}

/** A small JSON value on one line (`1`, `{"min": 1}`); a plain word is a string. */
function InlineJsonField({ c, env }: Props<Control & { kind: 'json' }>) {
  return (
    <ParsedInputField
      c={c}
      env={env}
      hint={c.hint ?? 'JSON: 1, "text", {"min": 1}; a plain word is taken as text.'}
      spellcheck={false}
      format={formatLoose}
      parse={parseLoose}
    />
  );
}

function AnyJsonField({ c, env }: Props<Control & { kind: 'json' }>) {
  const id = useId();
  return (
    <JsonField
      id={id}
      label={c.label}
      value={valueAt(env, c.path)}
      onValue={(v) => env.set(c.path, v)}
      readOnly={env.readOnly}
      hint={c.hint}
      error={messages(env.errors(c.pointer))}
      required={c.required}
    />
  );
}

/** A list written `a, b, c`. */
export function ListField({ c, env }: Props<ListControl>) {
  return (
    <ParsedInputField
      c={c}
      env={env}
      hint={[c.hint, 'Separate items with commas.'].filter(Boolean).join(' ')}
      spellcheck={false}
      format={formatList}
      parse={(t) => parseList(t, c.numbers)}
    />
  );
}

/** Name/value rows of an object (headers, Context `set`, Ref inputs/outputs). */
export function MapField({ c, env }: Props<MapControl>) {
  const uid = useId();
  const value = valueAt(env, c.path);
  const { rows, setRows } = useSyncedRows(value, mapToRows, (r, v) => sameJson(rowsToMap(r), v));
  const errors = env.errors(c.pointer);
  return (
    <fieldset class={`dzf-fieldset${errors.length ? ' dzf-invalid' : ''}`}>
      <legend>
        {c.label}
        {c.required && <span aria-hidden="true"> *</span>}
      </legend>
      <KeyValueTable
        noun={c.noun}
        rows={rows}
        readOnly={env.readOnly}
        caption={c.hint}
        errors={errors}
        onRows={(next) => {
          setRows(next);
          const map = rowsToMap(next);
          env.set(c.path, map ?? (c.required ? {} : undefined));
        }}
        valueInput={
          c.value === 'expression'
            ? expressionValues(uid, env, 'JSONata')
            : c.template
              ? templateValues(uid, env)
              : c.value === 'multiline'
                ? (row, _i, onValue, label) => (
                    <textarea
                      aria-label={label}
                      rows={4}
                      value={row.value}
                      readOnly={env.readOnly}
                      onInput={(e) => onValue(e.currentTarget.value)}
                    />
                  )
                : undefined
        }
      />
    </fieldset>
  );
}

/** Prefixes a planned control's path (and labels) for row `i` of a rows control. */
function inRow(c: Control, prefix: Path, label: string): Control {
  const path = [...prefix, ...c.path];
  const pointer = `/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
  const moved = { ...c, path, pointer, label: `${label} ${c.label.toLowerCase()}` } as Control;
  if (moved.kind === 'fieldset') moved.children = moved.children.map((x) => inRow(x, prefix, label));
  return moved;
}

/** An array of objects: one fieldset per row, with move and remove buttons, and "Add …". */
function RowsField({ c, env }: Props<RowsControl>) {
  const value = valueAt(env, c.path);
  const list = Array.isArray(value) ? (value as unknown[]) : [];
  const write = (next: unknown[]) => env.set(c.path, next.length || c.required ? next : undefined);
  const noun = c.noun.toLowerCase();
  return (
    <fieldset class="dzf-fieldset">
      <legend>{c.label}</legend>
      {c.hint && <p class="field-hint dzf-hint">{c.hint}</p>}
      <Own env={env} pointer={c.pointer} />
      {list.map((_, i) => (
        <fieldset class="dzf-row" key={i}>
          <legend>
            {c.noun} {i + 1}
          </legend>
          {c.item.map((x) => (
            <ControlView key={x.pointer} c={inRow(x, [...c.path, i], `${c.noun} ${i + 1}`)} env={env} />
          ))}
          {!env.readOnly && (
            <div class="dzf-row-actions">
              <button
                type="button"
                class="secondary small"
                disabled={i === 0}
                aria-label={`Move ${noun} ${i + 1} up`}
                onClick={() => write(swap(list, i, i - 1))}
              >
                ↑
              </button>
              <button
                type="button"
                class="secondary small"
                disabled={i === list.length - 1}
                aria-label={`Move ${noun} ${i + 1} down`}
                onClick={() => write(swap(list, i, i + 1))}
              >
                ↓
              </button>
              <button
                type="button"
                class="secondary small"
                aria-label={`Remove ${noun} ${i + 1}`}
                onClick={() => write(list.filter((_, j) => j !== i))}
              >
                ✕
              </button>
            </div>
          )}
        </fieldset>
      ))}
      {!env.readOnly && (
        <button type="button" class="secondary small" onClick={() => write([...list, {}])}>
          Add {noun}
        </button>
      )}
    </fieldset>
  );
}

/** `list` with items `i` and `j` swapped (a copy). */
export function swap<T>(list: readonly T[], i: number, j: number): T[] {
  const out = [...list];
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}

/** An object whose fields depend on its `type` (`request.auth`): "(none)" removes it. */
function VariantField({ c, env }: Props<Control & { kind: 'variant' }>) {
  const id = useId();
  const value = valueAt(env, c.path) as Record<string, unknown> | undefined;
  const chosen = value && typeof value === 'object' ? String(value[c.discriminator] ?? '') : '';
  const fields = c.variants[chosen] ?? [];
  const error = messages(env.errors(c.pointer));
  return (
    <fieldset class="dzf-fieldset">
      <legend>{c.label}</legend>
      <FormField id={id} label={`${c.label} scheme`} hint={c.hint} error={error}>
        <select
          id={id}
          value={chosen}
          disabled={env.readOnly}
          onChange={(e) => {
            const t = e.currentTarget.value;
            env.set(c.path, t === '' ? undefined : { [c.discriminator]: t });
          }}
        >
          <option value="">(none)</option>
          {c.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </FormField>
      {fields.map((f) => (
        <ControlView key={f.pointer} c={f} env={env} />
      ))}
    </fieldset>
  );
}

const HOOK_TEMPLATE = `async function beforeRequest() {
  // $request.method, $request.url, $request.headers, $request.body can be changed here.
}

async function afterResponse() {
  // $response.status, $response.headers, $response.body; $context.variables.
}
`;

/** Script code (JavaScript editor) and its libraries; on API nodes, the hooks (with a template to start from). */
export function ScriptField({ c, env }: Props<Control & { kind: 'script' }>) {
  const hooks = env.node.type === 'api';
  const value = valueAt(env, [...c.path, 'code']);
  const code = typeof value === 'string' ? value : '';
  const s = useSynced(
    code,
    (t) => t,
    (t, v) => t === v,
  );
  const errors = env.errors(c.pointer);
  const label = c.label === 'Script' ? 'Script code' : `${c.label} code`;
  const setCode = (t: string) => {
    s.setText(t);
    if (t === '' && !c.required && !Array.isArray(getAt(env.node, [...c.path, 'libs']))) env.set(c.path, undefined);
    else env.set([...c.path, 'code'], t);
  };
  return (
    <fieldset class={`dzf-fieldset${errors.length ? ' dzf-invalid' : ''}`}>
      <legend>{c.label}</legend>
      <p class="field-hint dzf-hint">
        {hooks
          ? 'Hooks: async function beforeRequest() (change $request) and afterResponse() (read $response); $context holds the variables (docs/flows.md "Scripts").'
          : c.hint}
      </p>
      {hooks && code === '' && !env.readOnly && (
        <button type="button" class="secondary small" onClick={() => setCode(HOOK_TEMPLATE)}>
          Insert hook template
        </button>
      )}
      <CodeField
        gen={s.gen}
        text={s.text}
        onText={setCode}
        language="javascript"
        label={label}
        readOnly={env.readOnly}
        minHeight="8rem"
      />
      {errors.length > 0 && (
        <p class="field-error" role="alert">
          {messages(errors)}
        </p>
      )}
      <ListField c={c.libs} env={env} />
    </fieldset>
  );
}
