/**
 * Versions of test cases, environments, runners, designs and auth profiles (docs/teams.md
 * "Versions"; saved by api/changes.ts, stored by src/teams/versions.ts). For each, under the
 * resource's own path (`/v1/test-cases/:testCaseId`, `/v1/environments/:environmentName`,
 * `/v1/runners/:runnerName`, `/v1/designs/:designId`, `/v1/auth-profiles/:profileName`):
 *
 *   GET  …/versions                     page {items: [{version, name, savedAt, savedBy, restoredFrom,
 *                                        current}], nextCursor}, newest first (`limit`, `cursor`)
 *   GET  …/versions/:version            {version, name, savedAt, savedBy, restoredFrom, body}
 *   GET  …/versions/:version/diff?to=n  {from, to, changes: [{path, before?, after?}]} (`to`
 *                                        absent: the current version)
 *   POST …/versions/:version/restore    the resource as its PUT answers it; a new version with
 *                                        `restoredFrom`
 *
 * `current` marks the version the resource is at now (a test case: its `version`; the others: the
 * newest saved). A version's `body` is the resource as GET answered it then, secrets masked as
 * GET masks them; a `read`-scope key gets an environment's plain values as `"***"` too, as GET
 * gives them (api/routes/environments.ts).
 *
 * A restore is the resource's own PUT with the version's body (its fields that PUT takes): the
 * request is rewritten and handed on to the resource's router, so it is validated exactly as an
 * edit is, and one that no longer validates (a sub-flow or auth profile it names was deleted, a
 * name taken meanwhile) answers that problem and stores nothing. A test case's restore needs no
 * `If-Match` (one sent is honoured). Secrets: a version holds none (`"***"`), and PUT keeps the
 * stored secret for a masked one, so a restored environment or auth profile keeps its CURRENT
 * secret values; a secret the resource no longer has is 400 `validation-failed` naming it.
 *
 * Unknown resource (or one of another workspace): 404 `not-found`; unknown version: 404; a
 * version that is not a positive integer: 400 `invalid-query` naming `version` (or `to`).
 */
import Router from '@koa/router';
import type { EntityManager } from 'typeorm';
import { ResourceVersion, TestCase, type VersionedType } from '../../src/store/entities';
import { getVersion, latestVersionNumber, versionQuery } from '../../src/teams/versions';
import { jsonDiff, MASK } from '../../src/teams/diff';
import type { ApiDeps, AppContext, AppState } from '../context';
import { markRestore, RESOURCES } from '../changes';
import { Problem } from '../problem';
import { keysetPage, readPaging, type Keyset } from '../paging';
import { queryProblem, queryString } from '../validation';
import { TEST_CASE_SCHEMAS } from './test-cases';
import { ENVIRONMENT_SCHEMAS } from './environments';
import { RUNNER_SCHEMAS } from './runners';
import { DESIGN_SCHEMAS } from './designs';
import { AUTH_PROFILE_SCHEMAS } from './auth-profiles';
import { iso } from './shared';

/** One versioned resource type: its collection path, path parameter, and the fields its PUT takes. */
interface VersionedResource {
  type: VersionedType;
  collection: string;
  param: string;
  noun: string;
  putFields: readonly string[];
}

/** The five versioned types (src/store/entities/resource-version.ts `VERSIONED_TYPES`). */
export const VERSIONED_RESOURCES: readonly VersionedResource[] = [
  {
    type: 'test-case',
    collection: 'test-cases',
    param: 'testCaseId',
    noun: 'Test case',
    putFields: Object.keys(TEST_CASE_SCHEMAS.full.properties),
  },
  {
    type: 'environment',
    collection: 'environments',
    param: 'environmentName',
    noun: 'Environment',
    putFields: Object.keys(ENVIRONMENT_SCHEMAS.replace.properties),
  },
  {
    type: 'runner',
    collection: 'runners',
    param: 'runnerName',
    noun: 'Runner',
    putFields: Object.keys(RUNNER_SCHEMAS.replace.properties),
  },
  {
    type: 'design',
    collection: 'designs',
    param: 'designId',
    noun: 'Design',
    putFields: Object.keys(DESIGN_SCHEMAS.full.properties),
  },
  {
    type: 'auth-profile',
    collection: 'auth-profiles',
    param: 'profileName',
    noun: 'Auth profile',
    putFields: Object.keys(AUTH_PROFILE_SCHEMAS.replace.properties),
  },
];

/** Versions listed newest first: by number (a `name`-shaped cursor holding the number). */
const ORDER: Keyset<ResourceVersion, 'name'> = {
  shape: 'name',
  keys: [{ column: 'v.version', of: (v) => String(v.version), parse: (value) => Number(value) }],
};

/** A version number from the path (`version`) or the query (`to`). @throws Problem 400 `invalid-query` naming it. */
function versionNumber(raw: string | undefined, name: string): number {
  if (raw === undefined || !/^[1-9][0-9]{0,8}$/.test(raw))
    throw queryProblem(name, 'must be a version number (1, 2, …)');
  return Number(raw);
}

/**
 * A version's body as the caller may see it: for a `read`-scope key an environment's plain
 * variable values (and inherited ones) are `"***"`, as GET gives them; everything else as stored.
 */
function bodyFor(ctx: AppContext, type: VersionedType, body: Record<string, unknown>): Record<string, unknown> {
  if (type !== 'environment' || ctx.state.caller.scope !== 'read') return body;
  const variables = body.variables;
  if (!variables || typeof variables !== 'object') return body;
  const masked: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(variables as Record<string, unknown>))
    masked[name] = value !== null && typeof value === 'object' ? value : MASK;
  return { ...body, variables: masked };
}

export function versionsRouter({ dataSource }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();

  for (const resource of VERSIONED_RESOURCES) {
    const base = `/${resource.collection}/:${resource.param}/versions`;
    const loader = RESOURCES[resource.type]!;

    /** The resource of the path in the caller's workspace: its id and, for a test case, its version. 404 when none. */
    const target = async (manager: EntityManager, ctx: AppContext): Promise<{ id: string; current: number | null }> => {
      const key = ctx.params[resource.param]!;
      const found = await loader.load(manager, ctx.state.caller.workspaceId, { key });
      if (!found) throw new Problem('not-found', `${resource.noun} "${key}" does not exist.`);
      if (resource.type === 'test-case') {
        const tc = await manager
          .getRepository(TestCase)
          .findOne({ select: { id: true, version: true }, where: { id: found.id } });
        return { id: found.id, current: tc?.version ?? null };
      }
      return { id: found.id, current: await latestVersionNumber(manager, resource.type, found.id) };
    };

    const versionOr404 = async (ctx: AppContext, id: string, n: number): Promise<ResourceVersion> => {
      const v = await getVersion(dataSource.manager, ctx.state.caller.workspaceId, resource.type, id, n);
      if (!v) throw new Problem('not-found', `${resource.noun} "${ctx.params[resource.param]}" has no version ${n}.`);
      return v;
    };

    router.get(base, async (ctx) => {
      const paging = readPaging(ctx, ORDER);
      const { id, current } = await target(dataSource.manager, ctx);
      const qb = versionQuery(dataSource.manager, ctx.state.caller.workspaceId, resource.type, id);
      ctx.body = await keysetPage(
        qb,
        paging,
        ORDER,
        (v) => ({
          version: v.version,
          name: v.name,
          savedAt: iso(v.savedAt),
          savedBy: v.savedBy,
          restoredFrom: v.restoredFrom ?? null,
          current: v.version === current,
        }),
        'DESC',
      );
    });

    router.get(`${base}/:version`, async (ctx) => {
      const n = versionNumber(ctx.params.version, 'version');
      const { id } = await target(dataSource.manager, ctx);
      const v = await versionOr404(ctx, id, n);
      ctx.body = {
        version: v.version,
        name: v.name,
        savedAt: iso(v.savedAt),
        savedBy: v.savedBy,
        restoredFrom: v.restoredFrom ?? null,
        body: bodyFor(ctx, resource.type, v.body),
      };
    });

    router.get(`${base}/:version/diff`, async (ctx) => {
      const from = versionNumber(ctx.params.version, 'version');
      const { id, current } = await target(dataSource.manager, ctx);
      const toRaw = queryString(ctx, 'to');
      const to = toRaw === undefined ? current : versionNumber(toRaw, 'to');
      if (to === null)
        throw new Problem('not-found', `${resource.noun} "${ctx.params[resource.param]}" has no saved version.`);
      const [a, b] = [await versionOr404(ctx, id, from), await versionOr404(ctx, id, to)];
      ctx.body = {
        from,
        to,
        changes: jsonDiff(bodyFor(ctx, resource.type, a.body), bodyFor(ctx, resource.type, b.body)),
      };
    });

    /**
     * The restore: the version's body (the fields PUT takes) handed on as the resource's PUT
     * (module comment); api/changes.ts records it as `<type>.restore` and saves the new version
     * with `restoredFrom`.
     */
    router.post(`${base}/:version/restore`, async (ctx, next) => {
      const n = versionNumber(ctx.params.version, 'version');
      const { id } = await target(dataSource.manager, ctx);
      const v = await versionOr404(ctx, id, n);
      const body: Record<string, unknown> = {};
      for (const field of resource.putFields) if (v.body[field] !== undefined) body[field] = v.body[field];
      const text = JSON.stringify(body);
      markRestore(ctx, n);
      ctx.method = 'PUT';
      ctx.path = `/v1/${resource.collection}/${encodeURIComponent(ctx.params[resource.param]!)}`;
      (ctx.request as { body?: unknown }).body = body;
      // The resource's PUT reads a body only when the request says it has one (api/body.ts `hasBody`).
      ctx.req.headers['content-length'] = String(Buffer.byteLength(text));
      delete ctx.req.headers['transfer-encoding'];
      ctx.req.headers['content-type'] = 'application/json';
      await next();
    });
  }

  return router;
}
