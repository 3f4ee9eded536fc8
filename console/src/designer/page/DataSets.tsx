/**
 * The designer's data-set editor (docs/console.md "The designer", docs/flows.md "Data sets"): the
 * test case's `dataSets` as a list of cards, one per data set, each a group named "Data set N"
 * with its Name, its Type (JSON rows or CSV) and Remove.
 *
 * - A JSON data set whose rows are flat objects is a table: header inputs "Column N name",
 *   "Add column", "Remove column N"; cells "Row N <column>", "Add row", "Remove row N". Cells are
 *   typed (`true`/`false`, `null`, numbers; else text: ./data-sets-model.ts `typedCell`). A JSON
 *   data set the table cannot show faithfully is a JSON editor ("Data set N (JSON)") with a note
 *   saying why; "Edit as JSON"/"Edit as a table" switch one data set by hand.
 * - A CSV data set is a textarea "Data set N (CSV)" and the checkbox "Cast numbers and true/false".
 *
 * Every change calls `onChange` with the whole new list (the page makes it one undoable command);
 * cells, column names and JSON texts keep their own text while typed, so nothing jumps. The API's
 * errors under `/dataSets/<i>` are shown at card i, at the field they name (`name`, `csv`, `data`).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { DataSet } from '../../../../src/domain/types';
import { Editor, pointerRange, type EditorMark } from '../../ui/editor';
import { pretty, readJson, underPointer } from '../../resources/common';
import {
  MAX_DATA_SETS,
  addColumn,
  addRow,
  canAddDataSet,
  cellText,
  changeType,
  columnNameProblem,
  dataSetErrors,
  dataSetNameProblem,
  listErrors,
  newColumnName,
  newDataSet,
  removeColumn,
  removeRow,
  renameColumn,
  sameCell,
  setCell,
  tableOf,
  typedCell,
  type Cell,
  type DataSetErrors,
  type PointerError,
  type Row,
} from './data-sets-model';
import './data-sets.css';

/** The props of {@link DataSetsEditor}. */
export interface DataSetsEditorProps {
  /** The test case's data sets (never mutated). */
  dataSets: DataSet[];
  /** Called with the whole new list after each change. */
  onChange: (next: DataSet[]) => void;
  /** Show, do not edit (a `read` key). */
  readOnly: boolean;
  /** The API's field errors whose pointer lies under `/dataSets` (`marksUnder(problem, '/dataSets', …).errors`). */
  errors: PointerError[];
}

let nextUid = 0;

/**
 * Stable keys for the cards, so a card's own state (its JSON text, its table/JSON choice) follows
 * it when an earlier card is removed; a change of length from outside (undo, a JSON edit) gives
 * every card a new key.
 */
function useCardKeys(length: number) {
  const keys = useRef<number[]>([]);
  if (keys.current.length !== length) keys.current = Array.from({ length }, () => nextUid++);
  return {
    keys: keys.current,
    added: () => keys.current.push(nextUid++),
    removed: (i: number) => keys.current.splice(i, 1),
  };
}

export function DataSetsEditor({ dataSets, onChange, readOnly, errors }: DataSetsEditorProps) {
  const cards = useCardKeys(dataSets.length);
  const list = listErrors(errors);
  const canAdd = canAddDataSet(dataSets);
  return (
    <div class="dz-ds">
      {list.length > 0 && (
        <ul class="dz-ds-errors" role="alert">
          {list.map((m, i) => (
            <li key={i}>{m}</li>
          ))}
        </ul>
      )}
      {dataSets.length === 0 && (
        <p class="muted dz-ds-empty">No data sets. An Iteration node runs its children once per row of one.</p>
      )}
      {dataSets.map((set, i) => (
        <DataSetCard
          key={cards.keys[i]}
          uid={cards.keys[i] ?? i}
          set={set}
          index={i}
          nameProblem={dataSetNameProblem(dataSets, i)}
          errors={dataSetErrors(errors, i)}
          allErrors={errors}
          readOnly={readOnly}
          onSet={(next) => onChange(dataSets.map((s, j) => (j === i ? next : s)))}
          onRemove={() => {
            cards.removed(i);
            onChange(dataSets.filter((_, j) => j !== i));
          }}
        />
      ))}
      {!readOnly && (
        <div class="dz-ds-add">
          <button
            type="button"
            class="secondary small"
            disabled={!canAdd}
            aria-describedby={canAdd ? undefined : 'dz-ds-max'}
            onClick={() => {
              cards.added();
              onChange([...dataSets, newDataSet(dataSets)]);
            }}
          >
            Add data set
          </button>
          {!canAdd && (
            <span id="dz-ds-max" class="field-hint">
              At most {MAX_DATA_SETS} data sets.
            </span>
          )}
        </div>
      )}
    </div>
  );
}

/** Errors as a list under a field; the API's are announced when they appear (`alert`). */
function Errors({ id, messages, alert = true }: { id?: string; messages: string[]; alert?: boolean }) {
  if (messages.length === 0) return null;
  return (
    <ul id={id} class="dz-ds-errors" role={alert ? 'alert' : undefined}>
      {messages.map((m, i) => (
        <li key={i}>{m}</li>
      ))}
    </ul>
  );
}

function DataSetCard({
  uid,
  set,
  index,
  nameProblem,
  errors,
  allErrors,
  readOnly,
  onSet,
  onRemove,
}: {
  uid: number;
  set: DataSet;
  index: number;
  nameProblem: string | undefined;
  errors: DataSetErrors;
  allErrors: PointerError[];
  readOnly: boolean;
  onSet: (next: DataSet) => void;
  onRemove: () => void;
}) {
  const n = index + 1;
  const id = `dz-ds-${uid}`;
  const nameMessages = [...errors.name, ...(nameProblem && errors.name.length === 0 ? [nameProblem] : [])];
  const invalid = nameMessages.length + errors.csv.length + errors.data.length + errors.card.length > 0;
  return (
    <fieldset class={`dz-ds-card${invalid ? ' dz-ds-invalid' : ''}`}>
      <legend>Data set {n}</legend>
      <Errors messages={errors.card} />
      <div class="dz-ds-head">
        <label class="dz-ds-name">
          <span class="field-label">Name</span>
          <input
            aria-label={`Data set ${n} name`}
            value={set.name}
            readOnly={readOnly}
            spellcheck={false}
            aria-invalid={nameMessages.length > 0 || undefined}
            aria-describedby={nameMessages.length > 0 ? `${id}-name-error` : `${id}-name-hint`}
            onInput={(e) => onSet({ ...set, name: e.currentTarget.value })}
          />
          {nameMessages.length > 0 ? (
            <Errors id={`${id}-name-error`} messages={nameMessages} alert={errors.name.length > 0} />
          ) : (
            <span id={`${id}-name-hint`} class="field-hint">
              What an Iteration node's data set names
            </span>
          )}
        </label>
        <label class="dz-ds-type">
          <span class="field-label">Type</span>
          <select
            aria-label={`Data set ${n} type`}
            value={set.type}
            disabled={readOnly}
            onChange={(e) => onSet(changeType(set, e.currentTarget.value as DataSet['type']))}
          >
            <option value="json">JSON rows</option>
            <option value="csv">CSV</option>
          </select>
        </label>
        {!readOnly && (
          <button type="button" class="secondary small dz-ds-remove" onClick={onRemove}>
            Remove<span class="dz-ds-sr"> data set {n}</span>
          </button>
        )}
      </div>
      {set.type === 'csv' ? (
        <CsvBody id={id} n={n} set={set} errors={errors.csv} readOnly={readOnly} onSet={onSet} />
      ) : (
        <JsonBody
          id={id}
          n={n}
          index={index}
          set={set}
          errors={errors.data}
          allErrors={allErrors}
          readOnly={readOnly}
          onSet={onSet}
        />
      )}
    </fieldset>
  );
}

function CsvBody({
  id,
  n,
  set,
  errors,
  readOnly,
  onSet,
}: {
  id: string;
  n: number;
  set: Extract<DataSet, { type: 'csv' }>;
  errors: string[];
  readOnly: boolean;
  onSet: (next: DataSet) => void;
}) {
  return (
    <div class="dz-ds-body">
      <label class="dz-ds-csv">
        <span class="field-label">CSV, header row first</span>
        <textarea
          aria-label={`Data set ${n} (CSV)`}
          rows={Math.min(12, Math.max(3, set.csv.split('\n').length + 1))}
          value={set.csv}
          readOnly={readOnly}
          spellcheck={false}
          aria-invalid={errors.length > 0 || undefined}
          aria-describedby={errors.length > 0 ? `${id}-csv-error` : undefined}
          onInput={(e) => onSet({ ...set, csv: e.currentTarget.value })}
        />
      </label>
      <Errors id={`${id}-csv-error`} messages={errors} />
      <label class="dz-ds-check">
        <input
          type="checkbox"
          checked={set.cast === true}
          disabled={readOnly}
          onChange={(e) => {
            const { cast: _cast, ...rest } = set;
            onSet(e.currentTarget.checked ? { ...rest, cast: true } : rest);
          }}
        />{' '}
        Cast numbers and true/false
      </label>
    </div>
  );
}

/** A JSON text kept while it does not parse; a new `value` from outside replaces it. */
function useJsonText(value: unknown): [string, (t: string) => void] {
  const [text, setText] = useState(() => pretty(value));
  useEffect(() => {
    const parsed = readJson(text, 'x');
    if (!parsed.ok || JSON.stringify(parsed.value) !== JSON.stringify(value)) setText(pretty(value));
  }, [value]);
  return [text, setText];
}

function JsonBody({
  id,
  n,
  index,
  set,
  errors,
  allErrors,
  readOnly,
  onSet,
}: {
  id: string;
  n: number;
  index: number;
  set: Extract<DataSet, { type: 'json' }>;
  errors: string[];
  allErrors: PointerError[];
  readOnly: boolean;
  onSet: (next: DataSet) => void;
}) {
  const table = tableOf(set.data);
  // Once shown as JSON, a data set stays JSON until the user asks for the table: fixing it in the
  // editor must not swap the editor away mid-typing.
  const [asJson, setAsJson] = useState(!table.ok);
  useEffect(() => {
    if (!table.ok) setAsJson(true);
  }, [table.ok]);
  const [text, setText] = useJsonText(set.data);
  const what = `Data set ${n}`;
  if (asJson || !table.ok) {
    const read = readJson(text, what);
    const prefix = `/dataSets/${index}/data`;
    const marks: EditorMark[] = read.ok
      ? allErrors
          .filter((e) => e.pointer !== undefined && underPointer(e.pointer, prefix))
          .map((e) => ({
            ...pointerRange(text, e.pointer!.replace(/^#/, '').slice(prefix.length)),
            message: e.detail,
          }))
      : [read.mark];
    return (
      <div class="dz-ds-body">
        {!table.ok ? (
          <p class="dz-ds-note" id={`${id}-why`}>
            Shown as JSON: {table.reason}. A table shows a list of flat objects whose values are text, numbers,
            true/false or null.
          </p>
        ) : (
          <p class="dz-ds-note">
            <button type="button" class="secondary small" onClick={() => setAsJson(false)}>
              Edit as a table<span class="dz-ds-sr"> (data set {n})</span>
            </button>
          </p>
        )}
        <Editor
          value={text}
          language="json"
          label={`Data set ${n} (JSON)`}
          readOnly={readOnly}
          marks={marks}
          minHeight="3rem"
          onChange={(t) => {
            setText(t);
            const parsed = readJson(t, what);
            if (parsed.ok && Array.isArray(parsed.value)) onSet({ ...set, data: parsed.value });
          }}
        />
        {!read.ok && <span class="field-error">{read.message}: the last valid rows are kept.</span>}
        {read.ok && !Array.isArray(read.value) && (
          <span class="field-error">{what} must be a JSON list: the last valid rows are kept.</span>
        )}
        <Errors messages={errors} />
      </div>
    );
  }
  return (
    <div class="dz-ds-body">
      <RowsTable
        id={id}
        n={n}
        columns={table.columns}
        rows={table.rows}
        readOnly={readOnly}
        invalid={errors.length > 0}
        onRows={(rows) => onSet({ ...set, data: rows })}
      />
      <Errors messages={errors} />
      <p class="field-hint dz-ds-hint">
        true, false, null and numbers are saved typed; anything else as text. An empty cell marked “absent” has no value
        in that row.{' '}
        <button type="button" class="secondary small" onClick={() => setAsJson(true)}>
          Edit as JSON<span class="dz-ds-sr"> (data set {n})</span>
        </button>
      </p>
    </div>
  );
}

function RowsTable({
  id,
  n,
  columns,
  rows,
  readOnly,
  invalid,
  onRows,
}: {
  id: string;
  n: number;
  columns: string[];
  rows: Row[];
  readOnly: boolean;
  invalid: boolean;
  onRows: (rows: Row[]) => void;
}) {
  return (
    <>
      <div class="dz-ds-scroll">
        <table class={`dz-ds-table${invalid ? ' dz-ds-invalid' : ''}`} aria-label={`Data set ${n} rows`}>
          <thead>
            <tr>
              <th scope="col" class="dz-ds-num">
                <span class="dz-ds-sr">Row</span>#
              </th>
              {columns.map((c, j) => (
                <th scope="col" key={j}>
                  <ColumnHeader
                    errId={`${id}-col-${j}-error`}
                    index={j}
                    column={c}
                    columns={columns}
                    readOnly={readOnly}
                    onRename={(to) => onRows(renameColumn(rows, c, to))}
                    onRemove={() => onRows(removeColumn(rows, c))}
                  />
                </th>
              ))}
              {!readOnly && (
                <th scope="col" class="dz-ds-actions">
                  <button
                    type="button"
                    class="secondary small"
                    onClick={() => onRows(addColumn(rows, newColumnName(columns)))}
                  >
                    Add column
                  </button>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                <th scope="row" class="dz-ds-num">
                  {i + 1}
                </th>
                {columns.map((c, j) => (
                  <td key={j}>
                    <CellInput
                      label={`Row ${i + 1} ${c}`}
                      value={r[c]}
                      readOnly={readOnly}
                      onText={(t) => onRows(setCell(rows, i, c, t))}
                    />
                  </td>
                ))}
                {!readOnly && (
                  <td class="dz-ds-actions">
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`Remove row ${i + 1}`}
                      onClick={() => onRows(removeRow(rows, i))}
                    >
                      Remove
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && (
        <p class="muted dz-ds-empty">No rows: an Iteration node over this data set runs nothing.</p>
      )}
      {!readOnly && (
        <button type="button" class="secondary small dz-ds-add-row" onClick={() => onRows(addRow(rows, columns))}>
          Add row
        </button>
      )}
    </>
  );
}

/** A column's name; a name that is empty or taken stays in the input (marked) and is not applied. */
function ColumnHeader({
  errId,
  index,
  column,
  columns,
  readOnly,
  onRename,
  onRemove,
}: {
  errId: string;
  index: number;
  column: string;
  columns: string[];
  readOnly: boolean;
  onRename: (to: string) => void;
  onRemove: () => void;
}) {
  // The text typed and the column it was typed for: shown while the column is still that one; a
  // different column (a rename that applied, undo, a JSON edit) shows its own name. Derived while
  // rendering, not in an effect, so a late effect can never undo a keystroke.
  const [local, setLocal] = useState({ text: column, of: column });
  const text = local.of === column ? local.text : column;
  const problem = text === column ? undefined : columnNameProblem(columns, index, text);
  return (
    <div class="dz-ds-col">
      <input
        aria-label={`Column ${index + 1} name`}
        value={text}
        readOnly={readOnly}
        spellcheck={false}
        aria-invalid={problem !== undefined || undefined}
        aria-describedby={problem ? errId : undefined}
        onInput={(e) => {
          const t = e.currentTarget.value;
          if (columnNameProblem(columns, index, t) === undefined) {
            setLocal({ text: t, of: t });
            onRename(t);
          } else setLocal({ text: t, of: column });
        }}
        onBlur={() => setLocal({ text: column, of: column })}
      />
      {!readOnly && (
        <button
          type="button"
          class="secondary small dz-ds-x"
          aria-label={`Remove column ${index + 1}`}
          title={`Remove column ${column}`}
          onClick={onRemove}
        >
          ×
        </button>
      )}
      {problem && (
        <span id={errId} class="field-error dz-ds-col-error" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}

/** One cell: its own text while typed (so `1.50` is not rewritten `1.5`), replaced by a value from outside. */
function CellInput({
  label,
  value,
  readOnly,
  onText,
}: {
  label: string;
  value: Cell | undefined;
  readOnly: boolean;
  onText: (text: string) => void;
}) {
  // The text typed and the value it stands for: shown while the cell holds that value; another
  // value (undo, a JSON edit, a removed row) shows its own text. Derived while rendering, not in an
  // effect, so a late effect can never undo a keystroke.
  const [local, setLocal] = useState<{ text: string; of: Cell | undefined }>({ text: cellText(value), of: value });
  const text = sameCell(local.of, value) ? local.text : cellText(value);
  const kind = value === undefined ? 'absent' : value === null ? 'null' : typeof value;
  return (
    <input
      aria-label={label}
      class={`dz-ds-cell dz-ds-${kind}`}
      value={text}
      readOnly={readOnly}
      spellcheck={false}
      placeholder={value === undefined ? 'absent' : undefined}
      title={value === undefined ? 'absent' : kind === 'string' ? 'text' : kind}
      onInput={(e) => {
        const t = e.currentTarget.value;
        setLocal({ text: t, of: typedCell(t) });
        onText(t);
      }}
    />
  );
}
