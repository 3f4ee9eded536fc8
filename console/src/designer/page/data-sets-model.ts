/**
 * The pure parts of the designer's data-set editor (./DataSets.tsx; docs/flows.md "Data sets"):
 * how a cell's text is typed, whether a JSON data set can be shown as a table, the table edits
 * (cells, rows, columns) as pure functions on the rows, CSV text ⇄ rows for a change of type, the
 * defaults of a new data set, and which API field errors belong to which data set and field.
 *
 * A JSON data set "fits a table" when its `data` is an array of flat objects (every value a string,
 * number, boolean or null) whose values the table shows faithfully: the columns are the keys in
 * the order they first appear, a row that lacks a key shows an empty cell and keeps lacking it
 * until that cell is edited. A text that the table would read back as another type (`"42"`,
 * `"true"`, `"null"`) does not fit: it is shown in a JSON editor instead, so nothing is retyped
 * behind the user's back.
 *
 * Pure TypeScript (no DOM, no Preact): compiled by the root tsconfig.json and unit-tested in node
 * (test/unit/designer-data-sets.test.ts).
 */
import type { DataSet } from '../../../../src/domain/types';
import { DATA_SET_NAME, MAX_DATA_SETS } from '../../../../src/validation/flow-schemas';

export { MAX_DATA_SETS };

/** A value a table cell holds. */
export type Cell = string | number | boolean | null;

/** One row of a table: column name → value (a missing key is an absent value, not `''`). */
export type Row = Record<string, Cell>;

/** A JSON data set's rows as a table, or why they cannot be one. */
export type TableView = { ok: true; columns: string[]; rows: Row[] } | { ok: false; reason: string };

/** JSON's number grammar (RFC 8259 §6). */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A cell's value as typed: `true`/`false` → boolean, `null` → null, a JSON number (`42`, `-1.5`,
 * `1e3`; finite) → number, anything else (including `''`) → the text itself. The environments and
 * start-run pages' rule (console/src/pages/start-run.tsx `typedValue`) plus `null` (as the mock
 * design form, console/src/resources/design-form.tsx) and exponents, so every number the table
 * shows reads back as the same number.
 */
export function typedCell(text: string): Cell {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (JSON_NUMBER.test(text)) {
    const n = Number(text);
    if (Number.isFinite(n)) return n;
  }
  return text;
}

/** The text a cell shows for `value`: strings as they are, other values as JSON writes them; `''` when absent. */
export function cellText(value: Cell | undefined): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** True when `a` and `b` are the same cell value (`-0` and `0` are the same number, as in JSON). */
export function sameCell(a: Cell | undefined, b: Cell | undefined): boolean {
  return a === b;
}

/** What a value is called in a sentence: "a number", "a boolean", "null", "a text". */
function kind(v: Cell): string {
  if (v === null) return 'null';
  return typeof v === 'string' ? 'a text' : `a ${typeof v}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function shown(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}

/**
 * `data` as a table ({@link TableView}): columns are the rows' keys in order of first appearance;
 * or, when it is not an array of flat objects whose values read back unchanged
 * ({@link typedCell}∘{@link cellText} is the identity), `ok: false` with a sentence saying why
 * (naming the 1-based row and the column), for the note above the JSON editor.
 */
export function tableOf(data: unknown): TableView {
  if (!Array.isArray(data)) return { ok: false, reason: 'its data is not a list' };
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const [i, row] of data.entries()) {
    if (!isPlainObject(row)) return { ok: false, reason: `row ${i + 1} is ${shown(row)}, not an object of columns` };
    for (const [key, v] of Object.entries(row)) {
      if (typeof v === 'object' && v !== null)
        return { ok: false, reason: `row ${i + 1} "${key}" holds ${Array.isArray(v) ? 'a list' : 'an object'}` };
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean' && v !== null)
        return { ok: false, reason: `row ${i + 1} "${key}" is not a JSON value` };
      const back = typedCell(cellText(v));
      if (!sameCell(back, v))
        return {
          ok: false,
          reason: `row ${i + 1} "${key}" is the text ${JSON.stringify(v)}, which a cell would read as ${kind(back)}`,
        };
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
  }
  return { ok: true, columns, rows: data as Row[] };
}

/** `rows` with row `row` (0-based)'s `column` set to `typedCell(text)`; the other rows are shared. */
export function setCell(rows: readonly Row[], row: number, column: string, text: string): Row[] {
  return rows.map((r, i) => (i === row ? { ...r, [column]: typedCell(text) } : r));
}

/** `rows` plus a row at the end with `''` in each of `columns`. */
export function addRow(rows: readonly Row[], columns: readonly string[]): Row[] {
  return [...rows, Object.fromEntries(columns.map((c) => [c, '']))];
}

/** `rows` without row `row` (0-based). */
export function removeRow(rows: readonly Row[], row: number): Row[] {
  return rows.filter((_, i) => i !== row);
}

/** The first of `column2`, `column3`, … (numbered after the columns there are) not in `columns`. */
export function newColumnName(columns: readonly string[]): string {
  for (let n = columns.length + 1; ; n++) if (!columns.includes(`column${n}`)) return `column${n}`;
}

/**
 * `rows` with a column `name` (value `''`) added at the end of each row; with no rows, one row
 * holding just that column (a table's columns are its rows' keys, so a column needs a row).
 */
export function addColumn(rows: readonly Row[], name: string): Row[] {
  if (rows.length === 0) return [{ [name]: '' }];
  return rows.map((r) => ({ ...r, [name]: '' }));
}

/** `rows` without `column`. */
export function removeColumn(rows: readonly Row[], column: string): Row[] {
  return rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== column)));
}

/**
 * Why `name` cannot be the name of column `index` (0-based) among `columns`: empty, or another
 * column's name; undefined when it can.
 */
export function columnNameProblem(columns: readonly string[], index: number, name: string): string | undefined {
  if (name === '') return 'A column needs a name.';
  if (columns.some((c, i) => i !== index && c === name)) return `Another column is named "${name}".`;
  return undefined;
}

/** `rows` with column `from` renamed `to`, keeping its place in each row (a row without `from` is unchanged). */
export function renameColumn(rows: readonly Row[], from: string, to: string): Row[] {
  if (from === to) return [...rows];
  return rows.map((r) =>
    from in r ? Object.fromEntries(Object.entries(r).map(([k, v]) => [k === from ? to : k, v])) : r,
  );
}

/**
 * The data set "Add data set" appends: name `data<N>` (N the first number from the list's length
 * + 1 that no data set uses), type JSON, one column `value` and one empty row.
 */
export function newDataSet(sets: readonly DataSet[]): DataSet {
  const names = new Set(sets.map((s) => s.name));
  let n = sets.length + 1;
  while (names.has(`data${n}`)) n++;
  return { name: `data${n}`, type: 'json', data: [{ value: '' }] };
}

/** True while one more data set is allowed (at most {@link MAX_DATA_SETS}, src/validation/flow-schemas.ts). */
export function canAddDataSet(sets: readonly DataSet[]): boolean {
  return sets.length < MAX_DATA_SETS;
}

const NAME_PATTERN = new RegExp(DATA_SET_NAME.pattern);

/**
 * What is wrong with data set `index`'s name before the API is asked: not matching
 * `DATA_SET_NAME` (1–100 of letters, digits, `_`, `.`, `-`) or used by an earlier data set (the
 * API's rule, src/validation/flow.ts `validateDataSets`); undefined when nothing is.
 */
export function dataSetNameProblem(sets: readonly DataSet[], index: number): string | undefined {
  const name = sets[index]?.name ?? '';
  if (!NAME_PATTERN.test(name)) return 'Use 1–100 letters, digits, _, . or -.';
  if (sets.slice(0, index).some((s) => s.name === name)) return `"${name}" is used by another data set.`;
  return undefined;
}

/** What the API's `cast` turns into a number or boolean (src/validation/data-sets.ts `castValue`). */
const CAST = /^(true|false|-?\d+(\.\d+)?([eE][+-]?\d+)?)$/;

/**
 * One CSV field: quoted (with `""` for a quote) when it holds a comma, quote, line break or edge
 * space, or when `text` is a text value that `cast` would turn into a number or boolean (a quoted
 * value stays text).
 */
function csvField(text: string, isText = true): string {
  return /[",\r\n]|^\s|\s$/.test(text) || (isText && CAST.test(text)) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * CSV text (RFC 4180, `\n` line ends, a header row first) for a table: values as {@link cellText}
 * writes them, `''` for an absent one; texts that look like numbers or booleans are quoted, so the
 * API reads them back as texts even with `cast`.
 */
export function toCsv(columns: readonly string[], rows: readonly Row[]): string {
  const lines = [columns.map((c) => csvField(c, false)).join(',')];
  for (const r of rows) lines.push(columns.map((c) => csvField(cellText(r[c]), typeof r[c] === 'string')).join(','));
  return `${lines.join('\n')}\n`;
}

/**
 * The records of CSV text (RFC 4180: `"` quotes, `""` a quote inside, CRLF or LF), each field with
 * whether it was quoted; blank lines are skipped. Throws on an unclosed quote.
 */
function csvRecords(text: string): Array<Array<{ value: string; quoted: boolean }>> {
  const records: Array<Array<{ value: string; quoted: boolean }>> = [];
  let record: Array<{ value: string; quoted: boolean }> = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endField = () => {
    record.push({ value: field, quoted });
    field = '';
    quoted = false;
  };
  const endRecord = () => {
    endField();
    if (!(record.length === 1 && !record[0]!.quoted && record[0]!.value.trim() === '')) records.push(record);
    record = [];
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' && field.trim() === '' && !quoted) {
      const close = (from: number): number => {
        for (let j = from; j < text.length; j++)
          if (text[j] === '"') {
            if (text[j + 1] === '"') j++;
            else return j;
          }
        throw new Error('a quoted value is not closed');
      };
      const end = close(i + 1);
      field = text.slice(i + 1, end).replace(/""/g, '"');
      quoted = true;
      i = end + 1;
      while (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') i++;
      continue;
    }
    if (c === ',') endField();
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else field += c;
    i++;
  }
  if (field !== '' || quoted || record.length > 0) endRecord();
  return records;
}

/**
 * A CSV data set's text as JSON rows for a change of type to JSON: the header names the columns,
 * values are trimmed (as the API's parser, src/validation/data-sets.ts, does) and typed as a table
 * cell types them ({@link typedCell}) whether or not the data set had `cast`, a quoted value stays
 * text. Missing trailing values are `''`. Throws (with a sentence) on an unclosed quote.
 */
export function csvToRows(csv: string): Row[] {
  const [header, ...records] = csvRecords(csv);
  if (!header) return [];
  const columns = header.map((f) => f.value.trim());
  return records.map((rec) =>
    Object.fromEntries(
      columns.map((c, i) => {
        const f = rec[i];
        if (!f) return [c, ''];
        return [c, f.quoted ? f.value.trim() : typedCell(f.value.trim())];
      }),
    ),
  );
}

/**
 * Data set `set` changed to `type`, keeping its name and, where it can, its rows: JSON → CSV
 * writes the table as CSV ({@link toCsv}) with `cast` when a value is a number or boolean (a JSON
 * data set that does not fit a table becomes an empty CSV); CSV → JSON reads the text
 * ({@link csvToRows}; a CSV that does not parse gives the new data set's one empty row).
 */
export function changeType(set: DataSet, type: DataSet['type']): DataSet {
  if (set.type === type) return set;
  if (type === 'csv' && set.type === 'json') {
    const table = tableOf(set.data);
    if (!table.ok || table.columns.length === 0) return { name: set.name, type: 'csv', csv: '' };
    const typed = table.rows.some((r) => Object.values(r).some((v) => typeof v === 'number' || typeof v === 'boolean'));
    return { name: set.name, type: 'csv', csv: toCsv(table.columns, table.rows), ...(typed ? { cast: true } : {}) };
  }
  if (set.type === 'csv') {
    try {
      return { name: set.name, type: 'json', data: csvToRows(set.csv) };
    } catch {
      return { name: set.name, type: 'json', data: [{ value: '' }] };
    }
  }
  return set;
}

/** An API field error as the problem gives it (RFC 9457 `errors[]`, api/problem.ts). */
export interface PointerError {
  pointer?: string;
  field?: string;
  detail: string;
}

/** The API's errors about one data set, by where the editor shows them. */
export interface DataSetErrors {
  /** Under `/dataSets/<i>/name`. */
  name: string[];
  /** Under `/dataSets/<i>/csv`. */
  csv: string[];
  /** Under `/dataSets/<i>/data` (the data or one of its rows). */
  data: string[];
  /** Anything else under `/dataSets/<i>` (the set itself, `type`, `cast`): shown at the card. */
  card: string[];
}

/** A JSON pointer's tokens (`#/dataSets/0/name` → `['dataSets', '0', 'name']`), `~1`/`~0` unescaped. */
function tokens(pointer: string): string[] {
  return pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((t) => {
      let d = t;
      try {
        d = decodeURIComponent(t);
      } catch {
        // Not percent-encoded: as it is.
      }
      return d.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/**
 * The errors of `errors` about data set `index` (pointer `/dataSets/<index>` or below, with or
 * without a leading `#`), sorted by the field they name; the detail is prefixed with the rest of
 * the path below that field when there is one (`row 3: …` for `/data/2`).
 */
export function dataSetErrors(errors: readonly PointerError[], index: number): DataSetErrors {
  const out: DataSetErrors = { name: [], csv: [], data: [], card: [] };
  for (const e of errors) {
    if (e.pointer === undefined) continue;
    const [root, i, field, ...rest] = tokens(e.pointer);
    if (root !== 'dataSets' || i !== String(index)) continue;
    if (field === 'name' || field === 'csv') out[field].push(e.detail);
    else if (field === 'data') {
      const where = rest.length
        ? `${/^\d+$/.test(rest[0]!) ? `row ${Number(rest[0]) + 1}` : rest[0]}${rest
            .slice(1)
            .map((t) => ` ${t}`)
            .join('')}: `
        : '';
      out.data.push(`${where}${e.detail}`);
    } else out.card.push(field === undefined ? e.detail : `${field}: ${e.detail}`);
  }
  return out;
}

/** The errors about the list itself (pointer exactly `/dataSets`, e.g. too many data sets). */
export function listErrors(errors: readonly PointerError[]): string[] {
  return errors
    .filter((e) => e.pointer !== undefined && tokens(e.pointer).join('/') === 'dataSets')
    .map((e) => e.detail);
}
