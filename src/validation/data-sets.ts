/**
 * Data sets attached to a test case, for Iteration nodes: a JSON array, or CSV text whose first
 * line names the columns (parsed with csv-parse; values stay strings unless `cast` is true, which
 * turns numbers and booleans into JSON values). Parsed when the test case is saved (so a broken CSV
 * is a 400 naming the data set) and again when a run starts (the plan carries arrays).
 */
import { parse } from 'csv-parse/sync';
import type { DataSet } from '../domain/types';

/** Largest number of rows a data set may hold. */
export const MAX_DATA_SET_ROWS = 10_000;

/** The rows of a data set. @throws Error with a readable message when the CSV does not parse. */
export function dataSetRows(set: DataSet): unknown[] {
  if (set.type === 'json') return set.data;
  const rows = parse(set.csv, {
    columns: true,
    skip_empty_lines: true,
    trim: true,
    bom: true,
    cast: set.cast === true ? (value, context) => castValue(value, context.quoting) : false,
  }) as unknown[];
  if (rows.length > MAX_DATA_SET_ROWS)
    throw new Error(`has ${rows.length} rows; at most ${MAX_DATA_SET_ROWS} are allowed`);
  return rows;
}

function castValue(value: string, quoted: boolean): unknown {
  if (quoted) return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value !== '' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return Number(value);
  return value;
}

/** All data sets of a test case by name, parsed. */
export function dataSetsByName(sets: DataSet[] | null | undefined): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const set of sets ?? []) out[set.name] = dataSetRows(set);
  return out;
}
