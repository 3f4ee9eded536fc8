/**
 * The assertions table (API, Assert, Poll and the async nodes): one row per assertion with its
 * name, target (a JSONata expression, completed and checked as typed), operator (every operator of
 * ASSERTION_OPERATORS, in words) and expected value (JSON text: `200`, `"abc"`, `[1,2]`; a plain
 * word is taken as a string), hidden for the operators that take none (exists, notExists and the
 * format operators). Rows are added, removed and moved up/down. Labels: "Assertion N name",
 * "Assertion N target", "Assertion N operator", "Assertion N expected".
 */
import { useId } from 'preact/hooks';
import { ASSERTION_OPERATORS, type Assertion } from '../../../../../src/domain/types';
import { OPERATOR_LABELS } from '../labels';
import { takesExpected, type AssertionsControl, type FieldProblem } from '../plan';
import { ErrorList, ExpressionInput, messages, useSynced, type Env } from '../controls';
import { formatLoose, getAt, parseLoose, sameJson } from '../values';

/** What `expected` looks like for an operator (the input's placeholder). */
const EXPECTED_EXAMPLES: Partial<Record<string, string>> = {
  equals: '200',
  notEquals: '500',
  contains: 'abc',
  notContains: 'error',
  greaterThan: '0',
  greaterThanOrEqual: '1',
  lessThan: '1000',
  lessThanOrEqual: '100',
  inRange: '[200, 299]',
  oneOf: '[200, 201]',
  matches: '^[a-z]+$',
  matchesSchema: '{"type": "object"}',
  isType: 'string',
};

/** Swaps rows `i` and `j` of a copy of `list`. */
function swap<T>(list: readonly T[], i: number, j: number): T[] {
  const out = [...list];
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}

/** The assertions table of a node (see the module's notes). */
export function AssertionsTable({ c, env }: { c: AssertionsControl; env: Env }) {
  const value = getAt(env.node, c.path);
  const rows = Array.isArray(value) ? (value as Assertion[]) : [];
  const all = env.errors(c.pointer);
  const cell = (i: number, field: string): FieldProblem[] =>
    all.filter(
      (e) => e.pointer === `${c.pointer}/${i}/${field}` || e.pointer.startsWith(`${c.pointer}/${i}/${field}/`),
    );
  const rest = all.filter(
    (e) => !/^\/\d+\/(name|target|operator|expected)(\/|$)/.test(e.pointer.slice(c.pointer.length)),
  );
  const write = (next: Assertion[]) => env.set(c.path, next.length || c.required ? next : undefined);
  const add = () =>
    write([
      ...rows,
      c.response
        ? { target: 'response.status', operator: 'equals', expected: 200 }
        : { target: '', operator: 'exists' },
    ]);
  const setOperator = (i: number, operator: string) => {
    const row = { ...rows[i]!, operator } as Assertion;
    if (!takesExpected(operator)) delete row.expected;
    env.set([...c.path, i], row);
  };

  return (
    <fieldset class={`dzf-fieldset dzf-assertions${all.length ? ' dzf-invalid' : ''}`}>
      <legend>{c.label}</legend>
      <p class="field-hint dzf-hint">
        Targets are JSONata over {c.response ? 'response, ' : ''}variables, nodes, loop… Expected is JSON (200, "abc",
        [1, 2]); a plain word is text.
      </p>
      <ErrorList errors={rest} base={c.pointer} />
      {rows.length === 0 ? (
        <p class="muted">No assertions{c.minItems > 0 ? ': add at least one.' : '.'}</p>
      ) : (
        <table class="dzf-table">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Target</th>
              <th scope="col">Operator</th>
              <th scope="col">Expected</th>
              <th scope="col">Name</th>
              <th scope="col">
                <span class="dzf-sr">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((a, i) => (
              <AssertionRow
                key={i}
                index={i}
                count={rows.length}
                row={a}
                env={env}
                response={c.response}
                errors={(f) => cell(i, f)}
                onField={(field, v) => env.set([...c.path, i, field], v)}
                onOperator={(op) => setOperator(i, op)}
                onMove={(to) => write(swap(rows, i, to))}
                onRemove={() => write(rows.filter((_, j) => j !== i))}
              />
            ))}
          </tbody>
        </table>
      )}
      {!env.readOnly && (
        <button type="button" class="secondary small" onClick={add}>
          Add assertion
        </button>
      )}
    </fieldset>
  );
}

function AssertionRow({
  index: i,
  count,
  row,
  env,
  response,
  errors,
  onField,
  onOperator,
  onMove,
  onRemove,
}: {
  index: number;
  count: number;
  row: Assertion;
  env: Env;
  response: boolean;
  errors: (field: string) => FieldProblem[];
  onField: (field: string, value: unknown) => void;
  onOperator: (op: string) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  const uid = useId();
  const n = i + 1;
  const operator = typeof row.operator === 'string' ? row.operator : '';
  const showExpected = takesExpected(operator);
  const opError = messages(errors('operator'));
  const expError = messages(errors('expected'));
  const nameError = messages(errors('name'));
  const s = useSynced(row.expected as unknown, formatLoose, (t, v) => sameJson(parseLoose(t), v));
  return (
    <tr>
      <td class="num">{n}</td>
      <td class="dzf-target">
        <ExpressionInput
          id={`${uid}-t`}
          label={`Assertion ${n} target`}
          value={typeof row.target === 'string' ? row.target : ''}
          onValue={(t) => onField('target', t)}
          variables={env.context.variables}
          response={response}
          readOnly={env.readOnly}
          serverError={messages(errors('target'))}
          placeholder={response ? 'response.body.id' : 'variables.count'}
        />
      </td>
      <td>
        <select
          aria-label={`Assertion ${n} operator`}
          value={operator}
          disabled={env.readOnly}
          aria-invalid={opError ? true : undefined}
          onChange={(e) => onOperator(e.currentTarget.value)}
        >
          {ASSERTION_OPERATORS.map((op) => (
            <option key={op} value={op}>
              {OPERATOR_LABELS[op]}
            </option>
          ))}
          {operator !== '' && !(ASSERTION_OPERATORS as readonly string[]).includes(operator) && (
            <option value={operator}>{operator}</option>
          )}
        </select>
        {opError && (
          <span class="field-error" role="alert">
            {opError}
          </span>
        )}
      </td>
      <td>
        {showExpected ? (
          <>
            <input
              class="mono"
              aria-label={`Assertion ${n} expected`}
              value={s.text}
              readOnly={env.readOnly}
              spellcheck={false}
              placeholder={EXPECTED_EXAMPLES[operator] ?? ''}
              aria-invalid={expError ? true : undefined}
              onInput={(e) => {
                s.setText(e.currentTarget.value);
                onField('expected', parseLoose(e.currentTarget.value));
              }}
            />
            {expError && (
              <span class="field-error" role="alert">
                {expError}
              </span>
            )}
          </>
        ) : (
          <span class="muted">—</span>
        )}
      </td>
      <td>
        <input
          aria-label={`Assertion ${n} name`}
          value={typeof row.name === 'string' ? row.name : ''}
          readOnly={env.readOnly}
          placeholder="(optional)"
          aria-invalid={nameError ? true : undefined}
          onInput={(e) => onField('name', e.currentTarget.value === '' ? undefined : e.currentTarget.value)}
        />
        {nameError && (
          <span class="field-error" role="alert">
            {nameError}
          </span>
        )}
      </td>
      <td class="dzf-actions">
        {!env.readOnly && (
          <>
            <button
              type="button"
              class="secondary small"
              disabled={i === 0}
              aria-label={`Move assertion ${n} up`}
              onClick={() => onMove(i - 1)}
            >
              ↑
            </button>
            <button
              type="button"
              class="secondary small"
              disabled={i === count - 1}
              aria-label={`Move assertion ${n} down`}
              onClick={() => onMove(i + 1)}
            >
              ↓
            </button>
            <button type="button" class="secondary small" aria-label={`Remove assertion ${n}`} onClick={onRemove}>
              ✕
            </button>
          </>
        )}
      </td>
    </tr>
  );
}
