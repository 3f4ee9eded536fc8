/**
 * The files `assay import postman` reads, in every form Newman 6 reads them
 * (docs/import-postman.md "Formats"): text encodings, Collection v1, environment and globals
 * exports, and iteration data (`newman run -d`).
 *
 * - Text: UTF-8 with or without a byte order mark, UTF-16 LE or BE with a BOM (and without one,
 *   when the text starts with ASCII, as JSON and CSV headers do), else Latin-1 when the bytes are
 *   not UTF-8. Newman 6.2.2 guesses with chardet and reads UTF-8 (BOM or not), UTF-16 LE with a
 *   BOM and Latin-1; it refuses UTF-16 BE and BOM-less UTF-16, which Assay reads.
 * - Collection v1 (no `info`; `name`, `order`, `requests`, as Newman tests it): converted to v2.1
 *   with Postman's own `postman-collection-transformer`, the converter Newman runs.
 * - Environment and globals: `{name, values: [{key, value, enabled, type}]}`, also wrapped as the
 *   Postman API answers (`{"environment": {…}}`). Strings, numbers and booleans keep their type, as
 *   Newman gives them to scripts (exports from the Postman app hold strings). Values with
 *   `enabled: false` are left out, as the Postman app does (Newman 6.2.2 uses them).
 * - Iteration data: JSON when the text parses as JSON (an array of objects), else CSV parsed with
 *   Newman's csv-parse options and its number casting: a header row naming the columns, quoted
 *   fields (commas, quotes `""`, line breaks inside), whitespace around fields trimmed, short and long
 *   rows accepted, a repeated column keeping its last value; unquoted integers and decimals become
 *   numbers (quoted ones stay text; `true` stays text).
 */
import { parse as parseCsv } from 'csv-parse/sync';
import transformer from 'postman-collection-transformer';

/** The encodings {@link decodeText} recognises. */
export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'latin1';

/** Text of a file and how it was encoded (a leading byte order mark removed). */
export interface DecodedText {
  text: string;
  encoding: TextEncoding;
  bom: boolean;
}

/**
 * Decodes a file's bytes: a byte order mark decides (UTF-8, UTF-16 LE, UTF-16 BE); without one,
 * a NUL in every other byte of the first ones means UTF-16 (ASCII first, as JSON and CSV start);
 * else UTF-8, or Latin-1 when the bytes are not valid UTF-8.
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  const b = bytes;
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf)
    return { text: new TextDecoder('utf-8').decode(b.subarray(3)), encoding: 'utf-8', bom: true };
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe)
    return { text: new TextDecoder('utf-16le').decode(b.subarray(2)), encoding: 'utf-16le', bom: true };
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff)
    return { text: new TextDecoder('utf-16be').decode(b.subarray(2)), encoding: 'utf-16be', bom: true };
  const head = b.subarray(0, Math.min(b.length, 64) & ~1);
  if (head.length >= 4) {
    let evenNul = 0;
    let oddNul = 0;
    for (let i = 0; i < head.length; i += 2) {
      if (head[i] === 0 && head[i + 1] !== 0) evenNul++;
      if (head[i + 1] === 0 && head[i] !== 0) oddNul++;
    }
    const pairs = head.length / 2;
    if (oddNul === pairs) return { text: new TextDecoder('utf-16le').decode(b), encoding: 'utf-16le', bom: false };
    if (evenNul === pairs) return { text: new TextDecoder('utf-16be').decode(b), encoding: 'utf-16be', bom: false };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(b), encoding: 'utf-8', bom: false };
  } catch {
    return { text: new TextDecoder('latin1').decode(b), encoding: 'latin1', bom: false };
  }
}

/** Parses a JSON file's bytes in any encoding {@link decodeText} reads. @throws Error with JSON.parse's message. */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  return JSON.parse(decodeText(bytes).text.trim());
}

/** Newman's test for a Collection v1 (newman/lib/util.js `isV1Collection`). */
export function isV1Collection(json: unknown): boolean {
  const o = json as { name?: unknown; order?: unknown; requests?: unknown } | null;
  return Boolean(o && typeof o === 'object' && o.name && o.order && o.requests);
}

/**
 * A Collection v1 converted to v2.1 as Newman converts it (`postman-collection-transformer`,
 * inputVersion 1.0.0, outputVersion 2.1.0); any other JSON is returned as it is. A collection as
 * the Postman API answers it (`{"collection": {…}}`) is unwrapped first, as Newman does.
 * @throws Error when the converter refuses the v1 collection.
 */
export function collectionAsV2(json: unknown): { collection: unknown; convertedFrom?: 'v1' } {
  const wrapped = (json as { collection?: unknown } | null)?.collection;
  if (wrapped && typeof wrapped === 'object' && !Array.isArray(wrapped)) json = wrapped;
  if (!isV1Collection(json)) return { collection: json };
  let converted: unknown;
  let failure: unknown;
  // The converter calls back synchronously.
  transformer.convert(json, { inputVersion: '1.0.0', outputVersion: '2.1.0' }, (err, result) => {
    failure = err;
    converted = result;
  });
  if (failure || !converted)
    throw new Error(
      `the Collection v1 could not be converted to v2.1: ${failure instanceof Error ? failure.message : String(failure ?? 'no result')}`,
    );
  return { collection: converted, convertedFrom: 'v1' };
}

/** A variable's value: a string, number or boolean as in the file; objects and arrays as JSON text; null and missing "". */
export type VariableValue = string | number | boolean | Record<string, unknown>;

/** The variables of an environment or globals export. */
export interface VariableFile {
  name?: string;
  /** The enabled values; of several with one name, the last. */
  variables: Record<string, VariableValue>;
  /** Names only disabled values have (`"enabled": false` or `"disabled": true`): not imported. */
  disabled: string[];
  /**
   * Of {@link disabled}, those marked `"enabled": false` (the Postman app's export), which Newman
   * 6.2.2 uses all the same (it reads only the SDK's `"disabled": true`).
   */
  newmanUses: string[];
}

/**
 * Reads a Postman environment or globals export (also as the Postman API wraps it:
 * `{"environment": {…}}`, `{"globals": {…}}`, or a bare array of values), as
 * newman/lib/run/options.js `extractModel` and the SDK's VariableScope do.
 * @throws Error naming what is missing.
 */
export function readVariableFile(json: unknown, type: 'environment' | 'globals'): VariableFile {
  let source = json as Record<string, unknown> | unknown[] | null;
  if (
    source &&
    typeof source === 'object' &&
    !Array.isArray(source) &&
    source[type] &&
    typeof source[type] === 'object'
  )
    source = source[type] as Record<string, unknown> | unknown[];
  const values = Array.isArray(source) ? source : (source as Record<string, unknown> | null)?.values;
  if (!source || typeof source !== 'object' || !Array.isArray(values))
    throw new Error(`not a Postman ${type} export: expected an object with "values" (or an array of values)`);
  const variables: Record<string, VariableValue> = {};
  const off = new Map<string, boolean>();
  for (const v of values as Array<{ key?: unknown; value?: unknown; enabled?: unknown; disabled?: unknown }>) {
    if (!v || typeof v !== 'object' || typeof v.key !== 'string' || v.key === '') continue;
    if (v.enabled === false || v.disabled === true) {
      off.set(v.key, (off.get(v.key) ?? false) || v.disabled !== true);
      continue;
    }
    variables[v.key] = variableValue(v.value);
  }
  const disabled = [...off.keys()].filter((k) => !(k in variables));
  const name = Array.isArray(source) ? undefined : (source as Record<string, unknown>).name;
  return {
    ...(typeof name === 'string' ? { name } : {}),
    variables,
    disabled,
    newmanUses: disabled.filter((k) => off.get(k)),
  };
}

/**
 * A value from a Postman file as an Assay variable: strings, numbers and booleans as they are (as
 * Newman gives them to scripts); an object as an object (Newman keeps it so); an array (which
 * Assay environments do not hold) or an object that reads as an Assay secret (`{"secret": …}`) as
 * its JSON text; null and missing as "".
 */
export function variableValue(value: unknown): VariableValue {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'object' && !Array.isArray(value) && !('secret' in value))
    return value as Record<string, unknown>;
  return JSON.stringify(value);
}

/** One iteration's data: column (or key) → value. */
export type IterationRow = Record<string, unknown>;

/** Iteration data read from a file. */
export interface IterationData {
  format: 'json' | 'csv';
  rows: IterationRow[];
  /** The columns (keys) in first-seen order. */
  columns: string[];
  /** What the user should know (rows that were not objects, no rows, …). */
  notes: string[];
}

/** Newman's `util.isInt`. */
function isInt(value: string): boolean {
  return /^(-|\+)?([1-9]+[0-9]*)$/.test(value);
}

/** Newman's `util.isFloat` (true for any text that starts like a number and is not NaN after it). */
function isFloat(value: string): boolean {
  return (value as unknown as number) - parseFloat(value) + 1 >= 0;
}

/** Newman's `csvAutoParse`: unquoted integers and decimals become numbers. */
function castCsv(value: string, context: { quoting: boolean }): unknown {
  if (context.quoting) return value;
  if (isInt(value)) return parseInt(value, 10);
  if (isFloat(value)) return parseFloat(value);
  return value;
}

/** CSV rows with Newman's csv-parse options (newman/lib/run/options.js `iterationData`). @throws Error from csv-parse. */
export function parseCsvRows(text: string): IterationRow[] {
  return parseCsv(text, {
    columns: true,
    escape: '"',
    cast: (value, context) => castCsv(value, context),
    trim: true,
    relax_quotes: true,
    relax_column_count: true,
    bom: true,
  }) as IterationRow[];
}

/**
 * Reads an iteration data file as `newman run -d` does: JSON when it parses, else CSV.
 * Newman runs once, with no data, when the JSON is not an array or there are no rows; the notes say so.
 * @throws Error when it is neither JSON nor CSV that parses.
 */
export function parseIterationData(bytes: Uint8Array): IterationData {
  const { text } = decodeText(bytes);
  const notes: string[] = [];
  let json: unknown;
  let isJson = false;
  try {
    json = JSON.parse(text.trim());
    isJson = true;
  } catch {
    /* CSV */
  }
  let rows: IterationRow[];
  let format: IterationData['format'];
  if (isJson) {
    format = 'json';
    if (!Array.isArray(json)) {
      notes.push('the JSON data is not an array: Newman runs the collection once without data; so does the import');
      rows = [];
    } else {
      rows = json.map((row, i) => {
        if (row !== null && typeof row === 'object' && !Array.isArray(row)) return row as IterationRow;
        notes.push(`row ${i + 1} is not an object: its iteration has no data`);
        return {};
      });
    }
  } else {
    format = 'csv';
    try {
      rows = parseCsvRows(text);
    } catch (err) {
      throw new Error(`neither JSON nor CSV that parses: ${(err as Error).message}`, { cause: err });
    }
  }
  if (rows.length === 0 && notes.length === 0)
    notes.push('the data has no rows: Newman runs the collection once without data; so does the import');
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows)
    for (const k of Object.keys(row))
      if (!seen.has(k)) {
        seen.add(k);
        columns.push(k);
      }
  return { format, rows, columns, notes };
}
