/**
 * The audit trail of a workspace (docs/teams.md "Audit trail"; scope `admin`, api/scopes.ts):
 *
 *   GET /v1/audit?action=&resourceType=&resourceId=&actorId=&since=&until=&limit=&cursor=
 *       → page {items: [AuditEvent], nextCursor}, newest first (by `at`, then id)
 *   GET /v1/audit/export?since=&until= (and the same filters)
 *       → application/x-ndjson, one event per line, oldest first, streamed from the store a page at
 *         a time (memory bounded by one page whatever the trail's size), as the attachment
 *         `assay-audit-<workspace>.jsonl`
 *
 * `since` (inclusive) and `until` (exclusive) are ISO 8601 date-times with a time zone
 * (`2026-01-31T00:00:00Z`); anything else, like any filter given empty or twice, is 400
 * `invalid-query` naming the parameter. An event is `{id, at, actor, address, action, resourceType,
 * resourceId, resourceName, request, requestId, changes: [{path, before?, after?}]}`
 * (src/teams/audit.ts `auditEventJson`). Only the caller's workspace's events are ever read.
 */
import { Readable } from 'node:stream';
import Router from '@koa/router';
import { AuditEvent, Workspace } from '../../src/store/entities';
import { auditEventJson, auditQuery, exportAudit, type AuditFilters } from '../../src/teams/audit';
import type { ApiDeps, AppContext, AppState } from '../context';
import { keysetPage, readPaging, type Keyset } from '../paging';
import { queryFilter, queryProblem } from '../validation';

/** The listing's order: by `at`, then id (both descending: newest first). */
const ORDER: Keyset<AuditEvent, 'time-id'> = {
  shape: 'time-id',
  keys: [
    { column: 'a.at', of: (e) => e.at.toISOString(), parse: (value) => new Date(value) },
    { column: 'a.id', of: (e) => e.id },
  ],
};

/** An ISO 8601 date-time with seconds optional, fractions allowed and a zone required (RFC 3339 §5.6, minutes-only allowed). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** A date-time query parameter, or undefined when absent. @throws Problem 400 `invalid-query` naming it. */
function dateParam(ctx: AppContext, name: string): Date | undefined {
  const raw = queryFilter(ctx, name);
  if (raw === undefined) return undefined;
  const at = DATE_TIME.test(raw) ? new Date(raw) : null;
  if (!at || Number.isNaN(at.getTime()))
    throw queryProblem(name, 'must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T00:00:00Z');
  return at;
}

/** The filters of a listing or an export (module comment). */
export function readAuditFilters(ctx: AppContext): AuditFilters {
  const filters: AuditFilters = {};
  for (const name of ['action', 'resourceType', 'resourceId', 'actorId'] as const) {
    const value = queryFilter(ctx, name);
    if (value !== undefined) filters[name] = value;
  }
  const since = dateParam(ctx, 'since');
  const until = dateParam(ctx, 'until');
  if (since) filters.since = since;
  if (until) filters.until = until;
  return filters;
}

/** A workspace name fit for a file name: anything but letters, digits, `.`, `_` and `-` becomes `_`. */
function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'workspace';
}

export function auditRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();

  router.get('/audit', async (ctx) => {
    const paging = readPaging(ctx, ORDER);
    const qb = auditQuery(dataSource.manager, ctx.state.caller.workspaceId, readAuditFilters(ctx));
    ctx.body = await keysetPage(qb, paging, ORDER, auditEventJson, 'DESC');
  });

  router.get('/audit/export', async (ctx) => {
    const filters = readAuditFilters(ctx);
    const workspaceId = ctx.state.caller.workspaceId;
    const workspace = await dataSource.getRepository(Workspace).findOneBy({ id: workspaceId });
    const pages = exportAudit(dataSource.manager, workspaceId, filters);
    async function* lines(): AsyncGenerator<string> {
      for await (const events of pages) yield events.map((e) => `${JSON.stringify(auditEventJson(e))}\n`).join('');
    }
    ctx.set(
      'Content-Disposition',
      `attachment; filename="assay-audit-${fileSafe(workspace?.name ?? workspaceId)}.jsonl"`,
    );
    ctx.type = 'application/x-ndjson';
    ctx.body = Readable.from(lines(), { objectMode: false });
  });

  return router;
}
