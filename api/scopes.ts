/**
 * Scopes per endpoint (docs/security.md "Scopes per endpoint"): ONE table says
 * which API key scope every endpoint needs, and ONE middleware ({@link enforceScopes}) applies it
 * to every /v1 request after authentication and before the body is parsed. Routers do not check
 * scopes themselves.
 *
 * Scopes are ordered `read` < `run` < `write` < `admin` < `owner` (src/teams/roles.ts; spec
 * "Authentication": `read` allows GET, `run` adds starting and cancelling runs, `write` changing
 * what the workspace holds; `admin` adds keys, members and the audit trail, `owner` granting the
 * owner role); a caller (a key, or a person through their role) satisfies an entry when its scope is
 * at least the entry's. `public` entries need no key at all (they live outside /v1 and are
 * listed here so the table documents every endpoint).
 *
 * Paths match case-insensitively, as the routers do. A /v1 request that matches no entry (a path or method no router answers; it ends in 404 or 405)
 * needs `read` for GET/HEAD and `write` otherwise, so an endpoint forgotten in the table is never
 * open to a lesser key; a test checks that every router route has an entry.
 */
import type { Middleware } from 'koa';
import { roleOfScope, scopeAllows, type Scope } from '../src/teams/roles';
import { Problem } from './problem';
import type { AppState } from './context';

/** What an endpoint needs: a key scope, or `public` (no key). */
export type EndpointScope = Scope | 'public';

/**
 * The table: `"<METHOD> <path template>"` (the router's own path syntax, `:name` is one segment)
 * → scope needed (`*name`: the rest of the path, one or more segments). HEAD is answered by the GET entry.
 */
export const ENDPOINT_SCOPES: Readonly<Record<string, EndpointScope>> = {
  // Outside /v1: no API key checked here (library files are public; the incoming deploy webhook
  // authenticates itself with its signature or a run-scope key, docs/deployments.md).
  'GET /libs/:file': 'public',
  'POST /webhooks/deploy/:webhookId': 'public',
  // A Callback node's address: its token is the credential (api/routes/callbacks.ts).
  'GET /callbacks/:token': 'public',
  'POST /callbacks/:token': 'public',
  'PUT /callbacks/:token': 'public',
  'PATCH /callbacks/:token': 'public',
  'DELETE /callbacks/:token': 'public',

  // Console sign-in through OpenID Connect and its session (api/routes/sign-in.ts, docs/teams.md):
  // outside /v1; the session cookie they set is checked by the /v1 authentication.
  'GET /auth/config': 'public',
  'GET /auth/login': 'public',
  'GET /auth/callback': 'public',
  'GET /auth/session': 'public',
  'POST /auth/logout': 'public',

  'GET /v1/workspaces': 'read',

  // Members and their roles (api/routes/members.ts).
  'GET /v1/members': 'admin',
  'POST /v1/members': 'admin',
  'GET /v1/members/:userId': 'admin',
  'PATCH /v1/members/:userId': 'admin',
  'DELETE /v1/members/:userId': 'admin',

  // API keys (api/routes/keys.ts): every member manages their own keys (never above their role);
  // service accounts' keys and other members' keys need `admin`, checked by the route.
  'GET /v1/keys': 'read',
  'POST /v1/keys': 'read',
  'GET /v1/keys/:keyId': 'read',
  'DELETE /v1/keys/:keyId': 'read',

  // The audit trail (api/routes/audit.ts).
  'GET /v1/audit': 'admin',
  'GET /v1/audit/export': 'admin',

  'GET /v1/environments': 'read',
  'POST /v1/environments': 'write',
  'GET /v1/environments/:environmentName': 'read',
  'GET /v1/environments/:environmentName/versions': 'read',
  'GET /v1/environments/:environmentName/versions/:version': 'read',
  'GET /v1/environments/:environmentName/versions/:version/diff': 'read',
  'POST /v1/environments/:environmentName/versions/:version/restore': 'write',
  'PUT /v1/environments/:environmentName': 'write',
  'PATCH /v1/environments/:environmentName': 'write',
  'DELETE /v1/environments/:environmentName': 'write',

  'GET /v1/auth-profiles': 'read',
  'POST /v1/auth-profiles': 'write',
  'GET /v1/auth-profiles/:profileName': 'read',
  'GET /v1/auth-profiles/:profileName/versions': 'read',
  'GET /v1/auth-profiles/:profileName/versions/:version': 'read',
  'GET /v1/auth-profiles/:profileName/versions/:version/diff': 'read',
  'POST /v1/auth-profiles/:profileName/versions/:version/restore': 'write',
  'PUT /v1/auth-profiles/:profileName': 'write',
  'DELETE /v1/auth-profiles/:profileName': 'write',
  'POST /v1/auth-profiles/:profileName/token': 'write',

  'GET /v1/test-cases': 'read',
  'POST /v1/test-cases': 'write',
  // The designer's check of a test case body, nothing stored: part of editing.
  'POST /v1/test-cases/validate': 'write',
  // A debug run of a test case body (api/routes/runs.ts): starting a run.
  'POST /v1/test-cases/debug': 'run',
  'GET /v1/test-cases/:testCaseId': 'read',
  'GET /v1/test-cases/:testCaseId/versions': 'read',
  'GET /v1/test-cases/:testCaseId/versions/:version': 'read',
  'GET /v1/test-cases/:testCaseId/versions/:version/diff': 'read',
  'POST /v1/test-cases/:testCaseId/versions/:version/restore': 'write',
  'PUT /v1/test-cases/:testCaseId': 'write',
  'PATCH /v1/test-cases/:testCaseId': 'write',
  'DELETE /v1/test-cases/:testCaseId': 'write',
  'GET /v1/test-cases/:testCaseId/history': 'read',
  'GET /v1/flaky': 'read',

  'GET /v1/folders': 'read',
  'GET /v1/folders/:folderPath': 'read',
  'PUT /v1/folders/:folderPath': 'write',
  'DELETE /v1/folders/:folderPath': 'write',

  // Workspace files (api/routes/files.ts): `*name` is the rest of the path (a name may contain `/`).
  'GET /v1/files': 'read',
  'GET /v1/files/*name': 'read',
  'GET /v1/files/*name/content': 'read',
  'PUT /v1/files/*name': 'write',
  'DELETE /v1/files/*name': 'write',

  'GET /v1/runners': 'read',
  'POST /v1/runners': 'write',
  'GET /v1/runners/:runnerName': 'read',
  'GET /v1/runners/:runnerName/versions': 'read',
  'GET /v1/runners/:runnerName/versions/:version': 'read',
  'GET /v1/runners/:runnerName/versions/:version/diff': 'read',
  'POST /v1/runners/:runnerName/versions/:version/restore': 'write',
  'GET /v1/runners/:runnerName/test-cases': 'read',
  'PUT /v1/runners/:runnerName': 'write',
  'PATCH /v1/runners/:runnerName': 'write',
  'DELETE /v1/runners/:runnerName': 'write',

  'POST /v1/runs': 'run',
  'GET /v1/runs': 'read',
  'GET /v1/runs/:runId': 'read',
  'GET /v1/runs/:runId/results': 'read',
  'GET /v1/runs/:runId/live': 'read',
  'GET /v1/runs/:runId/deliveries': 'read',
  'GET /v1/runs/:runId/compare/baseline': 'read',
  'GET /v1/runs/:runId/compare/:headRunId': 'read',
  'POST /v1/runs/:runId/cancel': 'run',
  'POST /v1/runs/:runId/control': 'run',
  'POST /v1/runs/:runId/rerun': 'run',
  'POST /v1/runs/:runId/replay': 'run',
  'POST /v1/runs/:runId/resume': 'run',
  'DELETE /v1/runs/:runId': 'write',

  'GET /v1/libraries': 'read',

  'GET /v1/deployments': 'read',
  'POST /v1/deployments': 'write',
  'GET /v1/deployments/:deploymentId': 'read',
  'PATCH /v1/deployments/:deploymentId': 'write',
  'DELETE /v1/deployments/:deploymentId': 'write',
  'POST /v1/deployments/:deploymentId/runs': 'run',
  'POST /v1/deployments/:deploymentId/rotate-webhook': 'write',
  'POST /v1/deployments/:deploymentId/rotate-signing-secret': 'write',

  'GET /v1/designs': 'read',
  'POST /v1/designs': 'write',
  'POST /v1/designs/import': 'write',
  'GET /v1/designs/:designId': 'read',
  'GET /v1/designs/:designId/versions': 'read',
  'GET /v1/designs/:designId/versions/:version': 'read',
  'GET /v1/designs/:designId/versions/:version/diff': 'read',
  'POST /v1/designs/:designId/versions/:version/restore': 'write',
  'PUT /v1/designs/:designId': 'write',
  'PATCH /v1/designs/:designId': 'write',
  'DELETE /v1/designs/:designId': 'write',
  // The mock journal (api/routes/mock-requests.ts).
  'GET /v1/designs/:designId/requests': 'read',
  'GET /v1/mock-requests': 'read',
  'DELETE /v1/mock-requests': 'write',
  // A design-side helper: generates sample data from a schema (CPU work), so `write` like designs.
  'POST /v1/mock-samples': 'write',
  // The mock proxy's target and mode (docs/mocks.md "Proxy: validate and record").
  'GET /v1/mock-settings': 'read',
  'PUT /v1/mock-settings': 'write',

  // Data collections of the mocks (docs/mocks.md "State"); resetting and discarding state is a write.
  'GET /v1/mock-collections': 'read',
  'POST /v1/mock-collections': 'write',
  'GET /v1/mock-collections/:collectionId': 'read',
  'PUT /v1/mock-collections/:collectionId': 'write',
  'PATCH /v1/mock-collections/:collectionId': 'write',
  'DELETE /v1/mock-collections/:collectionId': 'write',
  'GET /v1/mock-collections/:collectionId/records': 'read',
  'POST /v1/mock-collections/:collectionId/reset': 'write',
  'DELETE /v1/mock-scopes/:scope': 'write',

  // The console's relay sends a request as an API node would (address policy, time and size
  // limits) and keeps nothing: `run`, the scope that may already make the service send requests.
  'POST /v1/relay': 'run',
};

interface CompiledEntry {
  method: string;
  template: string;
  pattern: RegExp;
  scope: EndpointScope;
}

function compile(table: Readonly<Record<string, EndpointScope>>): CompiledEntry[] {
  return Object.entries(table).map(([key, scope]) => {
    const [method, template] = key.split(' ') as [string, string];
    const source = template
      .split('/')
      .map((segment) =>
        segment.startsWith(':')
          ? '[^/]+'
          : segment.startsWith('*')
            ? '.+'
            : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    return { method, template, pattern: new RegExp(`^${source}/?$`, 'i'), scope };
  });
}

const COMPILED = compile(ENDPOINT_SCOPES);

/**
 * The table entry for a request, or undefined when none matches. Literal segments win over
 * parameters (`/v1/designs/import` before `/v1/designs/:designId`) because the entry with fewer
 * parameters is preferred.
 */
export function scopeEntryFor(method: string, path: string): { template: string; scope: EndpointScope } | undefined {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  let best: CompiledEntry | undefined;
  for (const entry of COMPILED) {
    if (entry.method !== m || !entry.pattern.test(path)) continue;
    if (!best || params(entry.template) < params(best.template)) best = entry;
  }
  return best && { template: best.template, scope: best.scope };
}

/**
 * How unspecific a template is: its parameters, a rest-of-path parameter (`*name`) counting as
 * many, less its literal segments (`/v1/files/*name/content` before `/v1/files/*name`).
 */
function params(template: string): number {
  const segments = template.split('/');
  return (
    segments.filter((s) => s.startsWith(':')).length * 100 +
    segments.filter((s) => s.startsWith('*')).length * 10_000 -
    segments.filter((s) => s !== '' && !s.startsWith(':') && !s.startsWith('*')).length
  );
}

/** The scope a /v1 request needs: its table entry, else `read` for GET/HEAD and `write` otherwise. */
export function scopeNeeded(method: string, path: string): Scope {
  const entry = scopeEntryFor(method, path);
  if (entry && entry.scope !== 'public') return entry.scope;
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

export { scopeAllows };

/**
 * The one scope check for /v1 (runs after authentication): 403 problem `forbidden` naming the
 * scope needed when the caller's key has less. Runs before body parsing, so a refused request's
 * body is never read.
 */
export function enforceScopes(): Middleware<AppState> {
  return async (ctx, next) => {
    const needed = scopeNeeded(ctx.method, ctx.path);
    const have = ctx.state.caller.scope;
    if (!scopeAllows(have, needed)) {
      throw new Problem(
        'forbidden',
        ctx.state.caller.keyId
          ? `${ctx.method} ${ctx.path} needs scope "${needed}"; this API key acts with "${have}".`
          : `${ctx.method} ${ctx.path} needs scope "${needed}" (role ${roleOfScope(needed)}); your role here allows "${have}".`,
        { scopeNeeded: needed },
      );
    }
    await next();
  };
}
