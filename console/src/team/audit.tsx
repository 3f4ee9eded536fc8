/**
 * `/audit` (admins; docs/console.md "Audit"): the workspace's audit trail, newest first: when, who,
 * the action, the resource and the client's address; filters for the action, the resource type,
 * the actor and a time range, kept in the address; "Load more" follows the API's cursor; a row
 * opens to show its changes (field, before → after) and request id. "Export JSON lines" downloads
 * `GET /v1/audit/export` (one event per line, oldest first) for the same time range: a plain link
 * with a console session (the cookie goes along), fetched with the key and saved as a file when
 * signed in with a key. `GET /v1/audit` (docs/teams.md "Audit").
 */
import './team.css';
import { Fragment } from 'preact';
import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { api, authHeaders, answer, problemOf, withQuery, type Page, type Problem } from '../api';
import { useLoad } from '../hooks';
import { dateTime } from '../format';
import { can, session } from '../session';
import { Loading } from '../resources/common';
import { saveBlob } from '../resources/files';
import { Empty, PageHeader, ProblemBox } from '../ui/kit';
import { ChangesTable } from '../versions/changes';
import { actorText, AUDIT_RESOURCE_TYPES, type AuditEvent } from './types';

const PAGE = 50;
const seg = encodeURIComponent;

/** The filters as the address keeps them (`since`/`until` as `<input type="datetime-local">` values). */
interface Filters {
  action: string;
  resourceType: string;
  actorId: string;
  since: string;
  until: string;
}

/** A `datetime-local` value (local time, `2026-03-01T09:30`) as an ISO 8601 instant; undefined when empty or unreadable. */
export function localToIso(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** The console page of an audited resource, when it has one. */
function resourceHref(e: AuditEvent): string | undefined {
  const id = e.resourceId;
  const name = e.resourceName;
  switch (e.resourceType) {
    case 'test-case':
      return id ? `/test-cases/${seg(id)}` : undefined;
    case 'environment':
      return name ? `/environments/${seg(name)}` : undefined;
    case 'runner':
      return name ? `/runners/${seg(name)}` : undefined;
    case 'auth-profile':
      return name ? `/auth-profiles/${seg(name)}` : undefined;
    case 'design':
      return id ? `/designs/${seg(id)}` : undefined;
    case 'deployment':
      return id ? `/deployments/${seg(id)}` : undefined;
    case 'mock-collection':
      return id ? `/mock-collections/${seg(id)}` : undefined;
    case 'run':
      return id ? `/runs/${seg(id)}` : undefined;
    default:
      return undefined;
  }
}

function EventRow({
  e,
  open,
  onToggle,
  onActor,
}: {
  e: AuditEvent;
  open: boolean;
  onToggle: () => void;
  onActor: () => void;
}) {
  const href = resourceHref(e);
  const what = e.resourceName || e.resourceId || '';
  const n = e.changes?.length ?? 0;
  return (
    <Fragment>
      <tr data-action={e.action} class={open ? 'team-open' : undefined}>
        <td title={e.at}>{dateTime(e.at)}</td>
        <td>
          <button type="button" class="link" title="Only this actor" onClick={onActor}>
            {actorText(e.actor)}
          </button>
        </td>
        <td>
          <code>{e.action}</code>
        </td>
        <td>
          <span class="muted">{e.resourceType}</span> {href ? <a href={href}>{what}</a> : what}
        </td>
        <td>{e.address ?? <span class="muted">—</span>}</td>
        <td>
          <button
            type="button"
            class="secondary small"
            aria-expanded={open}
            aria-label={`Changes of ${e.action} ${what}`}
            onClick={onToggle}
          >
            {open ? 'Hide' : `Changes (${n})`}
          </button>
        </td>
      </tr>
      {open && (
        <tr class="team-detail">
          <td colSpan={6}>
            <ChangesTable changes={e.changes ?? []} label={`Changes of ${e.action} ${what}`} />
            <p class="muted team-detail-meta">
              Event <code>{e.id}</code>
              {e.requestId && (
                <>
                  {' '}
                  · request <code>{e.requestId}</code>
                </>
              )}
              {typeof e.request === 'string' && (
                <>
                  {' '}
                  · <code>{e.request}</code>
                </>
              )}
              {e.actor?.type !== 'user' && e.actor?.id && (
                <>
                  {' '}
                  · {e.actor.type} <code>{e.actor.id}</code>
                </>
              )}
            </p>
          </td>
        </tr>
      )}
    </Fragment>
  );
}

/** "Export JSON lines": a link with a console session, a fetch-and-save with a key. */
function ExportLink({ since, until }: { since?: string; until?: string }) {
  const [problem, setProblem] = useState<Problem>();
  const href = withQuery('/v1/audit/export', { since, until });
  const viaKey = session()?.kind === 'key';
  return (
    <>
      <a
        class="button secondary"
        href={href}
        download="audit.jsonl"
        onClick={(e) => {
          if (!viaKey) return; // the session cookie goes with a plain link
          e.preventDefault();
          setProblem(undefined);
          fetch(href, { headers: { Accept: 'application/x-ndjson', ...authHeaders('GET') } })
            .then(async (res) => {
              if (res.status >= 400) await answer(res, {});
              saveBlob(await res.blob(), 'audit.jsonl');
            })
            .catch((err: unknown) => setProblem(problemOf(err, 'Export failed')));
        }}
      >
        Export JSON lines
      </a>
      <ProblemBox problem={problem} />
    </>
  );
}

/** The route `/audit`. */
export function AuditPage() {
  const { query, path, route } = useLocation();
  const filters: Filters = {
    action: query.action ?? '',
    resourceType: query.resourceType ?? '',
    actorId: query.actorId ?? '',
    since: query.since ?? '',
    until: query.until ?? '',
  };
  const apiQuery = {
    action: filters.action || undefined,
    resourceType: filters.resourceType || undefined,
    actorId: filters.actorId || undefined,
    since: localToIso(filters.since),
    until: localToIso(filters.until),
  };
  const key = JSON.stringify(apiQuery);
  const first = useLoad(
    (signal) =>
      api<Page<AuditEvent>>('GET', withQuery('/v1/audit', { ...apiQuery, limit: PAGE }), undefined, { signal }),
    [key],
  );
  const [more, setMore] = useState<AuditEvent[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [moreProblem, setMoreProblem] = useState<Problem>();
  const [loadingMore, setLoadingMore] = useState(false);
  const [open, setOpen] = useState<Set<string>>(new Set());
  useEffect(() => {
    setMore([]);
    setCursor(first.data?.nextCursor ?? null);
  }, [first.data]);

  if (!can('admin'))
    return <Empty title="The audit trail is for workspace admins">Ask an admin of this workspace.</Empty>;

  const set = (next: Partial<Filters>) => route(withQuery(path, { ...filters, ...next }), true);
  const loadMore = async () => {
    if (!cursor) return;
    setLoadingMore(true);
    setMoreProblem(undefined);
    try {
      const page = await api<Page<AuditEvent>>('GET', withQuery('/v1/audit', { ...apiQuery, limit: PAGE, cursor }));
      setMore((m) => [...m, ...page.items]);
      setCursor(page.nextCursor);
    } catch (err) {
      setMoreProblem(problemOf(err));
    } finally {
      setLoadingMore(false);
    }
  };
  const items = first.data ? [...first.data.items, ...more] : undefined;
  const toggle = (id: string) =>
    setOpen((o) => {
      const n = new Set(o);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  const filtered = Object.values(filters).some(Boolean);

  return (
    <>
      <PageHeader title="Audit" sub="Every change in this workspace: who, when, from where, and what changed.">
        <ExportLink since={apiQuery.since} until={apiQuery.until} />
      </PageHeader>
      <form
        key={key}
        class="row team-filters"
        aria-label="Audit filters"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          set({
            action: String(f.get('action') ?? '').trim(),
            resourceType: String(f.get('resourceType') ?? ''),
            actorId: String(f.get('actorId') ?? '').trim(),
            since: String(f.get('since') ?? ''),
            until: String(f.get('until') ?? ''),
          });
        }}
      >
        <label class="field">
          <span class="field-label">Action</span>
          <input name="action" defaultValue={filters.action} placeholder="test-case.update" list="audit-actions" />
          <datalist id="audit-actions">
            {AUDIT_RESOURCE_TYPES.flatMap((t) =>
              ['create', 'update', 'delete', 'restore'].map((v) => <option key={`${t}.${v}`} value={`${t}.${v}`} />),
            )}
          </datalist>
        </label>
        <label class="field">
          <span class="field-label">Resource type</span>
          <select
            name="resourceType"
            value={filters.resourceType}
            onChange={(e) => set({ resourceType: e.currentTarget.value })}
          >
            <option value="">any</option>
            {AUDIT_RESOURCE_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span class="field-label">Actor id</span>
          <input name="actorId" defaultValue={filters.actorId} placeholder="usr_… or a key id" />
        </label>
        <label class="field">
          <span class="field-label">Since</span>
          <input name="since" type="datetime-local" defaultValue={filters.since} />
        </label>
        <label class="field">
          <span class="field-label">Until</span>
          <input name="until" type="datetime-local" defaultValue={filters.until} />
        </label>
        <button type="submit" class="secondary">
          Apply
        </button>
        {filtered && (
          <button type="button" class="secondary" onClick={() => route(path, true)}>
            Clear
          </button>
        )}
      </form>
      <ProblemBox problem={first.problem} onRetry={first.reload} />
      {!items && !first.problem && <Loading what="the audit trail" />}
      {items?.length === 0 && (
        <Empty title={filtered ? 'No event matches these filters' : 'Nothing recorded yet'}>
          {filtered
            ? 'Clear a filter to see more.'
            : 'Changes to test cases, environments, keys, members… appear here.'}
        </Empty>
      )}
      {items && items.length > 0 && (
        <table aria-label="Audit events" class="team-audit">
          <thead>
            <tr>
              <th>Time</th>
              <th>Who</th>
              <th>Action</th>
              <th>Resource</th>
              <th>Address</th>
              <th>Changes</th>
            </tr>
          </thead>
          <tbody>
            {items.map((e) => (
              <EventRow
                key={e.id}
                e={e}
                open={open.has(e.id)}
                onToggle={() => toggle(e.id)}
                onActor={() => set({ actorId: e.actor?.id ?? '' })}
              />
            ))}
          </tbody>
        </table>
      )}
      <ProblemBox problem={moreProblem} />
      {cursor && (
        <p class="team-more">
          <button type="button" class="secondary" disabled={loadingMore} onClick={() => void loadMore()}>
            {loadingMore ? 'Loading…' : 'Load more'}
          </button>
        </p>
      )}
    </>
  );
}
