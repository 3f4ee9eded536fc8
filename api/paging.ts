/**
 * Paging of list operations (docs/spec-choices.md "API surface"): keyset pagination with an opaque
 * `cursor` and a `limit`, answered as the page envelope `{items, nextCursor}`.
 *
 * A listing reads its paging parameters first ({@link readPaging}: `limit`, then `cursor`), then
 * its filters; {@link keysetPage} fetches one page past the cursor in the listing's {@link Keyset}
 * order and answers the envelope. Lists that are never paged answer the same envelope with
 * `nextCursor: null` ({@link page}).
 */
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { Problem } from './problem';
import { queryInt } from './validation';
import type { AppContext } from './context';

/** Default and largest page size of list operations (docs/spec-choices.md). */
export const PAGE = { default: 50, max: 200 } as const;

/** Page sizes of a listing: the `limit` when none is given, and the largest accepted. */
export interface PageSizes {
  default: number;
  max: number;
}

/** A page of a list: `items` and the cursor of the next page (null on the last). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The page envelope. */
export function page<T>(items: T[], nextCursor: string | null): Page<T> {
  return { items, nextCursor };
}

/**
 * The shapes a listing's cursor decodes to: `name` (one non-empty string: the last name of the
 * page), `pair` (two strings: e.g. folder and name, path and method), `time-id` (an ISO 8601
 * instant and an id: runs by `createdAt`).
 */
export type CursorShape = 'name' | 'pair' | 'time-id';
/** What {@link cursor.decode} returns for each {@link CursorShape}. */
export interface CursorValue {
  name: string;
  pair: [string, string];
  'time-id': [string, string];
}

/** Longest cursor text accepted (characters); a real one is far shorter. */
const MAX_CURSOR_CHARS = 2048;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

function cursorMatches(value: unknown, shape: CursorShape): boolean {
  const str = (v: unknown) => typeof v === 'string' && v.length <= 1000;
  switch (shape) {
    case 'name':
      return str(value) && (value as string).length > 0;
    case 'pair':
      return Array.isArray(value) && value.length === 2 && value.every(str);
    case 'time-id':
      return (
        Array.isArray(value) &&
        value.length === 2 &&
        value.every(str) &&
        ISO_INSTANT.test(value[0] as string) &&
        !Number.isNaN(Date.parse(value[0] as string))
      );
  }
}

/**
 * Opaque cursors for keyset pagination: base64url of JSON. A cursor that is not base64url, not
 * JSON, or not of the listing's {@link CursorShape} (`e30` = `{}`, `W251bGwsbnVsbF0` =
 * `[null,null]`) is a 400 `bad-cursor` naming the parameter, never a query with a bad value.
 */
export const cursor = {
  encode(value: unknown): string {
    return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  },
  /** The cursor of the request (undefined when absent or empty). @throws Problem 400 `bad-cursor` */
  decode<S extends CursorShape>(ctx: AppContext, shape: S, name = 'cursor'): CursorValue[S] | undefined {
    const raw = ctx.query[name];
    if (raw === undefined) return undefined;
    const bad = (detail: string) =>
      new Problem('bad-cursor', `Query parameter "${name}" ${detail}.`, {
        errors: [{ field: name, pointer: `?${name}`, detail }],
      });
    if (Array.isArray(raw)) throw bad('must be given once');
    if (raw === '') return undefined;
    if (raw.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(raw))
      throw bad('is not a cursor returned by this API');
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    } catch {
      throw bad('is not a cursor returned by this API');
    }
    if (!cursorMatches(value, shape)) throw bad('is not a cursor returned by this listing');
    return value as CursorValue[S];
  },
};

/**
 * The order of a paged listing: its key columns, most significant first (unique together, e.g.
 * name; folder and name; createdAt and id), each with the query builder column, the value a row
 * has in it and, for a column that is not a string, how the cursor's string is read back.
 * `shape` is what the cursor holds: `name` for one key, `pair` or `time-id` for two.
 */
export interface Keyset<Row, S extends CursorShape = CursorShape> {
  shape: S;
  keys: Array<{ column: string; of(row: Row): string; parse?(value: string): unknown }>;
}

/** A listing of rows with a `name` column (unique per workspace), by name: `alias` is the query builder's. */
export function byName<Row extends { name: string }>(alias: string): Keyset<Row, 'name'> {
  return { shape: 'name', keys: [{ column: `${alias}.name`, of: (row) => row.name }] };
}

/** The paging parameters of a request. */
export interface Paging<S extends CursorShape> {
  /** Rows per page, 1 to the listing's largest. */
  limit: number;
  /** The decoded `cursor`: the keys of the last row of the previous page; undefined on the first. */
  after: CursorValue[S] | undefined;
}

/**
 * Reads `limit` (400 `invalid-query` unless an integer from 1 to `sizes.max`) and `cursor`
 * (400 `bad-cursor` unless one `keyset`'s listing returned).
 */
export function readPaging<S extends CursorShape>(
  ctx: AppContext,
  keyset: Keyset<never, S>,
  sizes: PageSizes = PAGE,
): Paging<S> {
  const limit = queryInt(ctx, 'limit', sizes.default, 1, sizes.max);
  return { limit, after: cursor.decode(ctx, keyset.shape) };
}

/**
 * One page of `qb` (filtered already) in `keyset` order (`direction` on every key), starting after
 * `paging.after`; each row answered as `toJson` makes it. Fetches one row more than the page to
 * know whether another page follows.
 */
export async function keysetPage<Row extends ObjectLiteral, S extends CursorShape, T>(
  qb: SelectQueryBuilder<Row>,
  paging: Paging<S>,
  keyset: Keyset<Row, S>,
  toJson: (row: Row) => T | Promise<T>,
  direction: 'ASC' | 'DESC' = 'ASC',
): Promise<Page<T>> {
  const { keys } = keyset;
  if (paging.after !== undefined) {
    const values = typeof paging.after === 'string' ? [paging.after] : (paging.after as string[]);
    const cmp = direction === 'ASC' ? '>' : '<';
    const params: Record<string, unknown> = {};
    keys.forEach((key, i) => (params[`pageKey${i}`] = key.parse ? key.parse(values[i]!) : values[i]));
    // (k0 > :v0) OR (k0 = :v0 AND k1 > :v1) OR …: rows strictly after the cursor in key order.
    const after = keys
      .map((key, i) =>
        [...keys.slice(0, i).map((k, j) => `${k.column} = :pageKey${j}`), `${key.column} ${cmp} :pageKey${i}`].join(
          ' AND ',
        ),
      )
      .map((term) => `(${term})`)
      .join(' OR ');
    qb.andWhere(`(${after})`, params);
  }
  keys.forEach((key, i) => (i === 0 ? qb.orderBy(key.column, direction) : qb.addOrderBy(key.column, direction)));
  const rows = await qb.take(paging.limit + 1).getMany();
  const items = rows.slice(0, paging.limit);
  const last = items[items.length - 1];
  const next = rows.length > paging.limit && last ? keys.map((key) => key.of(last)) : undefined;
  return page(
    await Promise.all(items.map(toJson)),
    next ? cursor.encode(keyset.shape === 'name' ? next[0] : next) : null,
  );
}
