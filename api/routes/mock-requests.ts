/**
 * The mock journal (docs/mocks.md "Journal and verification"; src/mock/journal.ts): the requests the
 * workspace's mocks received, newest first, keyset-paged (api/paging.ts).
 *
 *   GET    /v1/designs/{id}/requests   one design's requests (404 when the design does not exist)
 *   GET    /v1/mock-requests            the workspace's requests (`designId` filters)
 *   DELETE /v1/mock-requests            forgets requests: `?scope=` one scope's, `?designId=` one
 *                                       design's, neither: the whole workspace's → {deleted}
 *
 * Filters (each optional; empty is 400 `invalid-query`): `scope` (exact) or `shared=true` (requests
 * without a scope), `method`, `path` (exact; ending in `*`: a prefix), `since`/`until` (ISO 8601
 * instants, inclusive/exclusive), `status`, `violations=true` (only requests with contract
 * violations), `fault=true` (only requests answered with a fault). Paging: `limit` (default 50, at
 * most 200) and `cursor`. Every item is `MockJournalEntryView` (src/domain/mocks.ts).
 */
import Router from '@koa/router';
import type { SelectQueryBuilder } from 'typeorm';
import { ApiDesign, MockJournalEntry } from '../../src/store/entities';
import { entryView } from '../../src/mock/journal';
import { MOCK_SCOPE_PATTERN } from '../../src/domain/mocks';
import type { ApiDeps, AppContext, AppState } from '../context';
import { keysetPage, readPaging, type Keyset } from '../paging';
import { queryFilter, queryFilterEnum, queryProblem } from '../validation';
import { findOr404, workspaceRows } from '../lookups';

/** Newest first: by `receivedAt`, then `id`. */
const ORDER: Keyset<MockJournalEntry, 'time-id'> = {
  shape: 'time-id',
  keys: [
    {
      column: 'e.receivedAt',
      of: (row) => new Date(row.receivedAt).toISOString(),
      parse: (value) => new Date(value),
    },
    { column: 'e.id', of: (row) => row.id },
  ],
};

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function instant(ctx: AppContext, name: string): Date | undefined {
  const raw = queryFilter(ctx, name);
  if (raw === undefined) return undefined;
  const ms = Date.parse(raw);
  if (!ISO_INSTANT.test(raw) || Number.isNaN(ms))
    throw queryProblem(name, 'must be an ISO 8601 instant such as 2026-11-26T10:00:00Z');
  return new Date(ms);
}

/** Escapes `%`, `_` and `!` for a LIKE prefix (ESCAPE '!': the same in MySQL and SQLite, where `\\` is not). */
function likePrefix(text: string): string {
  return `${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/** Applies the listing's filters (see the module comment) to `qb`. */
function filtered(ctx: AppContext, qb: SelectQueryBuilder<MockJournalEntry>): SelectQueryBuilder<MockJournalEntry> {
  const scope = queryFilter(ctx, 'scope');
  const shared = queryFilterEnum(ctx, 'shared', ['true', 'false'] as const);
  if (scope !== undefined) {
    if (!MOCK_SCOPE_PATTERN.test(scope)) throw queryProblem('scope', 'must be 1 to 100 of A-Z a-z 0-9 _ . : -');
    if (shared === 'true') throw queryProblem('shared', 'cannot be true with a scope');
    qb.andWhere('e.scope = :scope', { scope });
  } else if (shared === 'true') qb.andWhere('e.scope IS NULL');
  const method = queryFilter(ctx, 'method');
  if (method !== undefined) qb.andWhere('e.method = :method', { method: method.toUpperCase() });
  const path = queryFilter(ctx, 'path');
  if (path !== undefined) {
    if (path.endsWith('*')) qb.andWhere("e.path LIKE :path ESCAPE '!'", { path: likePrefix(path.slice(0, -1)) });
    else qb.andWhere('e.path = :path', { path });
  }
  const since = instant(ctx, 'since');
  if (since) qb.andWhere('e.receivedAt >= :since', { since });
  const until = instant(ctx, 'until');
  if (until) qb.andWhere('e.receivedAt < :until', { until });
  const status = queryFilter(ctx, 'status');
  if (status !== undefined) {
    const n = Number(status);
    if (!Number.isInteger(n) || n < 0 || n > 599) throw queryProblem('status', 'must be an integer from 0 to 599');
    qb.andWhere('e.status = :status', { status: n });
  }
  if (queryFilterEnum(ctx, 'violations', ['true', 'false'] as const) === 'true')
    qb.andWhere('e.violations IS NOT NULL');
  if (queryFilterEnum(ctx, 'fault', ['true', 'false'] as const) === 'true') qb.andWhere('e.fault IS NOT NULL');
  return qb;
}

export function mockRequestsRouter(deps: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const repo = deps.dataSource.getRepository(MockJournalEntry);

  /** One page of the filtered journal; buffered entries of this process are written first. */
  const list = async (ctx: AppContext, designId: string | undefined) => {
    const paging = readPaging(ctx, ORDER);
    const qb = workspaceRows(repo, 'e', ctx);
    if (designId !== undefined) qb.andWhere('e.designId = :designId', { designId });
    filtered(ctx, qb);
    await deps.journal?.flush();
    ctx.body = await keysetPage(qb, paging, ORDER, entryView, 'DESC');
  };

  router.get('/designs/:designId/requests', async (ctx) => {
    const ws = ctx.state.caller.workspaceId;
    await findOr404(
      deps.dataSource.manager,
      ApiDesign,
      { id: ctx.params.designId!, workspaceId: ws },
      `Design ${ctx.params.designId}`,
    );
    await list(ctx, ctx.params.designId!);
  });

  router.get('/mock-requests', async (ctx) => {
    await list(ctx, queryFilter(ctx, 'designId'));
  });

  router.delete('/mock-requests', async (ctx) => {
    const ws = ctx.state.caller.workspaceId;
    const scope = queryFilter(ctx, 'scope');
    if (scope !== undefined && !MOCK_SCOPE_PATTERN.test(scope))
      throw queryProblem('scope', 'must be 1 to 100 of A-Z a-z 0-9 _ . : -');
    const designId = queryFilter(ctx, 'designId');
    await deps.journal?.flush();
    const result = await repo.delete({
      workspaceId: ws,
      ...(scope !== undefined ? { scope } : {}),
      ...(designId !== undefined ? { designId } : {}),
    });
    ctx.body = { deleted: result.affected ?? 0 };
  });

  return router;
}
