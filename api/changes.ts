/**
 * Recording changes (docs/teams.md "Audit trail", "Versions"): ONE middleware, the last of the /v1
 * pipeline (api/app.ts), around the routers. For every /v1 request other than GET/HEAD/OPTIONS
 * that the routers answer with 2xx it stores an audit event (src/teams/audit.ts), and after a
 * successful create, update or restore of a test case, environment, runner, design or auth profile
 * a version of it (src/teams/versions.ts).
 *
 * The event:
 * - `action` `<resourceType>.<verb>` from the matched route template of api/scopes.ts
 *   ({@link describeAction}): the resource type is the first segment after /v1, singular
 *   (`test-cases` → `test-case`); the verb `create` (POST on a collection, or a PUT answered 201),
 *   `update` (PUT, PATCH), `delete`, `restore` (`…/versions/:version/restore`), or the last
 *   segment (`deployment.rotate-webhook`, `mock-collection.reset`). Runs: `run.start` (POST
 *   /v1/runs, a deployment's `…/runs`, rerun, replay, resume, a debug run), `run.cancel`,
 *   `run.steer` (control), `run.delete`; members `member.add|update|remove`; keys
 *   `key.create|revoke`; `design.import`.
 * - the resource's id and name: from the resource as loaded (resources with a loader, below), else
 *   the path's parameter or the answer's `id`/`runId`/`userId` and `name`.
 * - `changes`: for test cases, environments, runners, designs, auth profiles, deployments and
 *   folders the field diff (src/teams/diff.ts) of the resource as stored before and after
 *   ({@link RESOURCES}; created: from `{}`, deleted: to `{}`); for anything else the request's
 *   body as `after` (members at the top level), or nothing when it has none. Secret values are
 *   masked (src/teams/diff.ts `maskSecrets`) and nothing is ever taken from an answer's body but
 *   ids and names, so an issued API key (`POST /v1/keys` answers it as `key`), a deployment's
 *   webhook token or signing secret never reach the trail.
 * - `actor` `ctx.state.caller.actor`, `address` `ctx.ip`, `request` `METHOD path`, `requestId`.
 *
 * Not recorded: reads, refused or failed requests (nothing changed), checks that store nothing
 * (`POST /v1/test-cases/validate`, `/v1/mock-samples`, `/v1/relay`, an auth profile's token
 * fetch), and what does not come through /v1: runs a schedule starts (a deployment's incoming
 * webhook records its own `run.start`, api/routes/incoming-webhooks.ts).
 *
 * Failures to store an event or a version are logged (level error) and counted
 * (`assay_audit_write_failures_total`); the answer stays the change's own.
 */
import type { Middleware } from 'koa';
import type { EntityManager } from 'typeorm';
import {
  ApiDesign,
  AuthProfile,
  Deployment,
  Environment,
  Folder,
  Runner,
  TestCase,
  VERSIONED_TYPES,
  type VersionedType,
} from '../src/store/entities';
import { normaliseFolder } from '../src/domain/folders';
import { jsonDiff, maskSecrets } from '../src/teams/diff';
import { auditWriteFailures, recordAudit } from '../src/teams/audit';
import { saveVersion } from '../src/teams/versions';
import type { ApiDeps, AppContext, AppState } from './context';
import { scopeEntryFor } from './scopes';
import { testCaseJson } from './routes/test-cases';
import { environmentJson } from './routes/environments';
import { runnerJson } from './routes/runners';
import { authProfileJson } from './routes/auth-profiles';
import { folderJson } from './routes/folders';
import { designFields } from './routes/designs';
import { iso } from './routes/shared';

/** How a /v1 write is recorded: its action and resource type, or `skip` for writes that store nothing. */
export interface ActionDescription {
  action: string;
  resourceType: string;
  /** The verb (`create`, `update`, `delete`, `restore`, `start`…). */
  verb: string;
  /** The path parameter naming the resource, if the template has one. */
  param?: string;
}

/** Writes that store nothing: not recorded. */
const NOT_CHANGES = new Set([
  'POST /v1/test-cases/validate',
  'POST /v1/mock-samples',
  'POST /v1/relay',
  'POST /v1/auth-profiles/:profileName/token',
]);

/** `test-cases` → `test-case`, `mock-settings` stays, `auth-profiles` → `auth-profile`. */
function singular(segment: string): string {
  if (segment === 'mock-settings') return segment;
  return segment.endsWith('s') ? segment.slice(0, -1) : segment;
}

/**
 * The action of a write to the route `template` (an api/scopes.ts table key's path, `/v1/…`) with
 * `method`, answered `status`; undefined for a write that stores nothing (see the module comment).
 */
export function describeAction(method: string, template: string, status = 200): ActionDescription | undefined {
  const m = method.toUpperCase();
  if (NOT_CHANGES.has(`${m} ${template}`)) return undefined;
  const segments = template.split('/').slice(2);
  const [collection = '', idSegment, ...rest] = segments;
  const param = idSegment?.startsWith(':') || idSegment?.startsWith('*') ? idSegment.slice(1) : undefined;
  const resourceType = singular(collection);
  const run = (verb: string): ActionDescription => ({
    action: `run.${verb}`,
    resourceType: 'run',
    verb,
    param: collection === 'runs' ? param : undefined,
  });
  // Runs, started in several ways.
  if (m === 'POST' && template === '/v1/test-cases/debug') return run('start');
  if (m === 'POST' && template === '/v1/deployments/:deploymentId/runs') return run('start');
  if (collection === 'runs') {
    if (m === 'POST' && !param) return run('start');
    const sub = rest[0];
    if (sub === 'rerun' || sub === 'replay' || sub === 'resume') return run('start');
    if (sub === 'cancel') return run('cancel');
    if (sub === 'control') return run('steer');
    if (m === 'DELETE') return run('delete');
  }
  if (rest[0] === 'versions' && rest[2] === 'restore')
    return { action: `${resourceType}.restore`, resourceType, verb: 'restore', param };
  if (collection === 'designs' && idSegment === 'import')
    return { action: 'design.import', resourceType, verb: 'import' };
  let verb: string;
  if (rest.length > 0) verb = rest[rest.length - 1]!;
  else if (param === undefined && idSegment !== undefined) verb = idSegment;
  else if (m === 'POST') verb = collection === 'members' ? 'add' : 'create';
  else if (m === 'PUT' || m === 'PATCH') verb = status === 201 ? 'create' : 'update';
  else if (m === 'DELETE') verb = collection === 'members' ? 'remove' : collection === 'keys' ? 'revoke' : 'delete';
  else verb = m.toLowerCase();
  return { action: `${resourceType}.${verb}`, resourceType, verb, param };
}

/** The path parameters of `path` matched against `template` (router syntax; values URL-decoded). */
export function templateParams(template: string, path: string): Record<string, string> {
  const t = template.split('/');
  const p = path.replace(/\/$/, '').split('/');
  const out: Record<string, string> = {};
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  for (let i = 0; i < t.length; i++) {
    const seg = t[i]!;
    if (seg.startsWith(':')) out[seg.slice(1)] = decode(p[i] ?? '');
    else if (seg.startsWith('*')) {
      out[seg.slice(1)] = decode(p.slice(i, p.length - (t.length - 1 - i)).join('/'));
      break;
    }
  }
  return out;
}

/** How a resource with a loader is found and snapshotted for the trail. */
export interface ResourceLoader {
  /** The path parameter that names it. */
  param: string;
  /** The resource addressed by the parameter's value (`key`) or by its id; null when there is none. */
  load(
    manager: EntityManager,
    workspaceId: string,
    by: { id?: string; key?: string },
  ): Promise<ResourceSnapshot | null>;
}

/** A resource as the trail sees it: its id, name and JSON (secrets not yet masked). */
export interface ResourceSnapshot {
  id: string;
  name: string;
  json: Record<string, unknown>;
}

const byIdOr = (by: { id?: string; key?: string }, keyColumn: string): Record<string, string> | null =>
  by.id !== undefined ? { id: by.id } : by.key !== undefined ? { [keyColumn]: by.key } : null;

/**
 * The resources with before/after snapshots, by resource type. The JSON is what GET answers as far
 * as it is the resource's own (an environment without `inherited`, a design without `mockUrl`, a
 * deployment without its schedule state, webhook address and secrets).
 */
export const RESOURCES: Readonly<Record<string, ResourceLoader>> = {
  'test-case': {
    param: 'testCaseId',
    async load(manager, workspaceId, by) {
      const id = by.id ?? by.key;
      if (!id) return null;
      const tc = await manager
        .getRepository(TestCase)
        .findOne({ where: { id, workspaceId }, relations: { tagRows: true } });
      return tc && { id: tc.id, name: tc.name, json: testCaseJson(tc) };
    },
  },
  environment: {
    param: 'environmentName',
    async load(manager, workspaceId, by) {
      const where = byIdOr(by, 'name');
      const e = where && (await manager.getRepository(Environment).findOneBy({ ...where, workspaceId }));
      return e ? { id: e.id, name: e.name, json: environmentJson(e, { scope: 'admin' }) } : null;
    },
  },
  runner: {
    param: 'runnerName',
    async load(manager, workspaceId, by) {
      const where = byIdOr(by, 'name');
      const r = where && (await manager.getRepository(Runner).findOneBy({ ...where, workspaceId }));
      return r ? { id: r.id, name: r.name, json: runnerJson(r) } : null;
    },
  },
  'auth-profile': {
    param: 'profileName',
    async load(manager, workspaceId, by) {
      const where = byIdOr(by, 'name');
      const p = where && (await manager.getRepository(AuthProfile).findOneBy({ ...where, workspaceId }));
      return p ? { id: p.id, name: p.name, json: authProfileJson(p) } : null;
    },
  },
  design: {
    param: 'designId',
    async load(manager, workspaceId, by) {
      const id = by.id ?? by.key;
      const d = id ? await manager.getRepository(ApiDesign).findOneBy({ id, workspaceId }) : null;
      return d ? { id: d.id, name: designName(d), json: designFields(d) } : null;
    },
  },
  deployment: {
    param: 'deploymentId',
    async load(manager, workspaceId, by) {
      const id = by.id ?? by.key;
      const d = id ? await manager.getRepository(Deployment).findOneBy({ id, workspaceId }) : null;
      return d ? { id: d.id, name: d.name, json: deploymentSnapshot(d) } : null;
    },
  },
  folder: {
    param: 'folderPath',
    async load(manager, workspaceId, by) {
      const where =
        by.id !== undefined ? { id: by.id } : by.key !== undefined ? { path: normaliseFolder(by.key) } : null;
      const f = where && (await manager.getRepository(Folder).findOneBy({ ...where, workspaceId }));
      return f ? { id: f.id, name: f.path, json: folderJson(f) } : null;
    },
  },
};

/** A design's name for people: its `name`, else `METHOD path`. */
function designName(d: Pick<ApiDesign, 'name' | 'method' | 'path'>): string {
  return d.name || `${d.method} ${d.path}`;
}

/** A deployment's own settings (api/routes/deployments.ts), never its webhook address, token hash or signing secret. */
function deploymentSnapshot(d: Deployment): Record<string, unknown> {
  return {
    id: d.id,
    name: d.name,
    runner: d.runnerName,
    environment: d.environmentName,
    schedule: d.schedule,
    timezone: d.timezone,
    enabled: Boolean(d.enabled),
    webhookEnabled: Boolean(d.webhookEnabled),
    webhookRequireAuth: Boolean(d.webhookRequireAuth),
    webhooks: d.webhooks ?? { onComplete: [], onFailure: [] },
    loadProfile: d.loadProfile ?? null,
    baseline: d.baseline ?? null,
    durability: d.durability ?? null,
    parallel: d.parallel ?? null,
    createdAt: iso(d.createdAt),
    updatedAt: iso(d.updatedAt),
  };
}

/** Marks on a request the versions route rewrote into a restore (api/routes/versions.ts). */
const restores = new WeakMap<object, { version: number }>();

/** Called by api/routes/versions.ts before it hands a restore to the resource's PUT: the version restored. */
export function markRestore(ctx: AppContext, version: number): void {
  restores.set(ctx, { version });
}

/** Bodies recorded as they are up to this size (JSON characters); larger ones as `{truncated: true, bytes}`. */
const MAX_BODY_CHARS = 64 * 1024;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The answer's id of a resource (`id`, a run's `runId`, a member's `userId`). */
function answerId(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  for (const key of ['id', 'runId', 'userId']) if (typeof body[key] === 'string') return body[key];
  return undefined;
}

function answerName(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  for (const key of ['name', 'runner', 'email']) if (typeof body[key] === 'string' && body[key]) return body[key];
  return undefined;
}

/** The changes of a write without a loader: its masked request body as `after`, members at the top level. */
function bodyChanges(body: unknown): ReturnType<typeof jsonDiff> {
  if (body === undefined || body === null) return [];
  const masked = maskSecrets(body);
  const text = JSON.stringify(masked) ?? '';
  if (text.length > MAX_BODY_CHARS) return [{ path: '', after: { truncated: true, bytes: Buffer.byteLength(text) } }];
  return isRecord(masked) ? jsonDiff({}, masked) : [{ path: '', after: masked }];
}

/**
 * The middleware (module comment). `deps.logger` gets failures to store an event or a version.
 */
export function recordChanges({ dataSource, logger }: Pick<ApiDeps, 'dataSource' | 'logger'>): Middleware<AppState> {
  return async (ctx, next) => {
    const method = ctx.method.toUpperCase();
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
    const path = ctx.path;
    const entry = scopeEntryFor(method, path);
    const caller = ctx.state.caller;
    if (!entry || entry.scope === 'public' || !caller) return next();
    const template = entry.template;
    const params = templateParams(template, path);
    const guess = describeAction(method, template);
    if (!guess) return next();
    const loader = RESOURCES[guess.resourceType];
    const key = loader ? params[loader.param] : undefined;
    let before: ResourceSnapshot | null = null;
    if (loader && key !== undefined) {
      try {
        before = await loader.load(dataSource.manager, caller.workspaceId, { key });
      } catch (err) {
        logger.warn({ err, action: guess.action }, 'audit: could not read the resource before the change');
      }
    }

    await next();

    if (ctx.status < 200 || ctx.status > 299) return;
    const described = describeAction(method, template, ctx.status)!;
    const restore = restores.get(ctx);
    const answer: unknown = ctx.body;
    try {
      let after: ResourceSnapshot | null = null;
      if (loader && described.verb !== 'delete') {
        const id = answerId(answer) ?? before?.id;
        after = await loader.load(dataSource.manager, caller.workspaceId, id !== undefined ? { id } : { key });
      }
      const snapshot = after ?? before;
      const changes = loader
        ? jsonDiff(maskSecrets(before?.json ?? {}), maskSecrets(after?.json ?? {}))
        : described.action === 'design.import'
          ? importChanges(answer)
          : bodyChanges((ctx.request as { body?: unknown }).body);
      const paramValue = described.param !== undefined ? params[described.param] : undefined;
      await recordAudit(dataSource.manager, {
        workspaceId: caller.workspaceId,
        actor: caller.actor,
        address: ctx.ip || null,
        action: described.action,
        resourceType: described.resourceType,
        resourceId: snapshot?.id ?? answerId(answer) ?? paramValue ?? null,
        resourceName: snapshot?.name ?? answerName(answer) ?? null,
        request: `${method} ${path}`,
        requestId: ctx.state.requestId ?? null,
        changes,
      });
    } catch (err) {
      auditWriteFailures.inc();
      logger.error(
        { err, action: described.action, requestId: ctx.state.requestId },
        'audit: could not store the event',
      );
    }
    await saveVersions(ctx, described, answer, restore?.version ?? null);
  };

  /** Versions of what a create, update, restore or design import stored (src/teams/versions.ts). */
  async function saveVersions(
    ctx: AppContext,
    described: ActionDescription,
    answer: unknown,
    restoredFrom: number | null,
  ) {
    const type = described.resourceType as VersionedType;
    if (!(VERSIONED_TYPES as readonly string[]).includes(type)) return;
    const bodies =
      described.verb === 'import' && isRecord(answer) && Array.isArray(answer.created)
        ? (answer.created as unknown[])
        : ['create', 'update', 'restore'].includes(described.verb)
          ? [answer]
          : [];
    for (const body of bodies) {
      if (!isRecord(body) || typeof body.id !== 'string') continue;
      try {
        await saveVersion(dataSource.manager, {
          workspaceId: ctx.state.caller.workspaceId,
          resourceType: type,
          resourceId: body.id,
          name: versionName(type, body),
          body: versionBody(type, body),
          savedBy: ctx.state.caller.actor,
          restoredFrom: described.verb === 'restore' ? restoredFrom : null,
          ...(type === 'test-case' && typeof body.version === 'number' ? { version: body.version } : {}),
        });
      } catch (err) {
        auditWriteFailures.inc();
        logger.error({ err, resourceType: type, resourceId: body.id }, 'versions: could not store a version');
      }
    }
  }
}

/** A design import's changes: the designs created or replaced, by id. */
function importChanges(answer: unknown) {
  const created = isRecord(answer) && Array.isArray(answer.created) ? answer.created.filter(isRecord) : [];
  return created.length ? [{ path: '/created', after: created.map((d) => d.id) }] : [];
}

/** The name a version is listed with. */
function versionName(type: VersionedType, body: Record<string, unknown>): string {
  if (type === 'design')
    return designName({
      name: String(body.name ?? ''),
      method: String(body.method ?? ''),
      path: String(body.path ?? ''),
    });
  return typeof body.name === 'string' ? body.name : String(body.id);
}

/**
 * What a version keeps of a write's answer: all of it but an environment's `inherited` (its
 * parents' values) and a design's `mockUrl` (where it is served, not what it is). The answer masks
 * secrets already (environments `{"secret": true, "value": "***"}`, auth profiles `"***"`).
 */
export function versionBody(type: VersionedType, body: Record<string, unknown>): Record<string, unknown> {
  if (type === 'environment') {
    const { inherited: _inherited, ...rest } = body;
    return rest;
  }
  if (type === 'design') {
    const { mockUrl: _mockUrl, ...rest } = body;
    return rest;
  }
  return body;
}
