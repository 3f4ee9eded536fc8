/**
 * The frame of the resource list pages (test cases, environments, runners, deployments, API
 * designs): a header with a "New …" link for write keys, the page's filters, every item of the
 * listing (all its pages, {@link listAll}) and its states: the problem with "Try again",
 * "Loading…", an empty state that says what to do next, else a table with a row per item.
 * Each page gives what differs: words, links, filters, columns, the API path and its query.
 */
import { Fragment, type ComponentChildren } from 'preact';
import { useLoad } from '../hooks';
import { can } from '../session';
import { Empty, PageHeader, ProblemBox } from '../ui/kit';
import { listAll, Loading } from './common';

/** One column of the table: its heading, an item's cell, and a class for both (`num`). */
export interface Column<T> {
  head: string;
  cell: (item: T) => ComponentChildren;
  class?: string;
}

export interface ResourceListProps<T> {
  /** The page's heading and the sentence under it. */
  title: string;
  sub: string;
  /** The "New …" link write keys see in the header (and in the empty state); none where the page creates otherwise. */
  create?: { href: string; label: string };
  /** The listing's API path with its query (`/v1/designs?path=%2Fusers`); read again when it changes. */
  path: string;
  /** What the loading line names: `runners` gives "Loading runners…". */
  what: string;
  /** Controls between the header and the list (a filter form). */
  filters?: ComponentChildren;
  /**
   * The empty list: its title; what a write key is offered (default: the `create` link); the API
   * calls that create items (`POST /v1/runners`), introduced by `via` (default "or with the API").
   */
  empty: { title: string; write?: ComponentChildren; calls: string[]; via?: string };
  /** The table: its accessible name, its columns, and each row's key. */
  table: { label: string; columns: Column<T>[]; key: (item: T) => string };
  /** A filter applied here, on the items read (`keep`), and the row shown when it keeps none. */
  narrow?: { keep: (item: T) => boolean; none: ComponentChildren };
  /**
   * Places the loading line and the table among controls built from the items (undefined until
   * they arrive), such as the test cases' folder tree; the empty state is shown without them.
   */
  around?: (list: ComponentChildren, items: T[] | undefined) => ComponentChildren;
  /** What follows the list (a create form). */
  children?: ComponentChildren;
}

/** A resource list page: header, filters, the list's states and table, then `children`. */
export function ResourceList<T>({
  title,
  sub,
  create,
  path,
  what,
  filters,
  empty,
  table,
  narrow,
  around,
  children,
}: ResourceListProps<T>) {
  const list = useLoad((signal) => listAll<T>(path, signal), [path]);
  const items = list.data;
  const shown = items && narrow ? items.filter(narrow.keep) : items;
  const body = (
    <>
      {!items && !list.problem && <Loading what={what} />}
      {shown && (
        <table aria-label={table.label}>
          <thead>
            <tr>
              {table.columns.map((c) => (
                <th key={c.head} class={c.class}>
                  {c.head}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((item) => (
              <tr key={table.key(item)}>
                {table.columns.map((c) => (
                  <td key={c.head} class={c.class}>
                    {c.cell(item)}
                  </td>
                ))}
              </tr>
            ))}
            {narrow && shown.length === 0 && (
              <tr>
                <td colSpan={table.columns.length} class="muted">
                  {narrow.none}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      )}
    </>
  );
  return (
    <>
      <PageHeader title={title} sub={sub}>
        {create && can('write') && (
          <a class="button" href={create.href}>
            {create.label}
          </a>
        )}
      </PageHeader>
      {filters}
      <ProblemBox problem={list.problem} onRetry={list.reload} />
      {items?.length === 0 ? (
        <Empty title={empty.title}>
          {can('write')
            ? (empty.write ?? (create && <a href={create.href}>{create.label}</a>))
            : 'A key with write scope can create them'}
          , {empty.via ?? 'or with the API'}:{' '}
          {empty.calls.map((call, i) => (
            <Fragment key={call}>
              {i > 0 && ', '}
              <code>{call}</code>
            </Fragment>
          ))}
          .
        </Empty>
      ) : around ? (
        around(body, items)
      ) : (
        body
      )}
      {children}
    </>
  );
}
