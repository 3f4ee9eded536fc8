/**
 * Who is signed in (docs/console.md "Signing in"), one of two ways:
 *
 * - **An API key** (`kind: 'key'`), kept in sessionStorage (gone when the tab closes) unless the
 *   user ticks "remember", then in localStorage. The workspace and the key's scope come from
 *   `GET /v1/workspaces` (its `key` field) when signing in. Requests carry `Authorization: Bearer`.
 * - **A console session** (`kind: 'user'`, OpenID Connect sign-in, docs/teams.md): the HttpOnly
 *   `assay_session` cookie the API set after `/auth/callback`. Nothing secret is stored here: the
 *   user, the CSRF token and the workspaces come from `GET /auth/session` each time the console
 *   starts ({@link startSession}). Requests carry the cookie (`credentials: 'same-origin'`),
 *   `X-CSRF-Token` on every method other than GET and HEAD, and `X-Assay-Workspace` with the chosen
 *   workspace's id; only that choice is remembered (localStorage, per user).
 *
 * What the console offers follows {@link can}: the five scopes of src/teams/roles.ts, read < run <
 * write < admin < owner; a session's scope is its role's (`ROLE_SCOPES`), a key's its own.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Role as ServerRole, Scope as ServerScope } from '../../src/teams/roles';

/** What a caller may do, lowest first (src/teams/roles.ts `SCOPES`; the console may import only its types). */
export const SCOPES = ['read', 'run', 'write', 'admin', 'owner'] as const satisfies readonly ServerScope[];
export type Scope = (typeof SCOPES)[number];

/** What a person is in a workspace, lowest first (src/teams/roles.ts `ROLES`). */
export const ROLES = ['viewer', 'runner', 'editor', 'admin', 'owner'] as const satisfies readonly ServerRole[];
export type Role = (typeof ROLES)[number];

/** The scope each role allows (src/teams/roles.ts `ROLE_SCOPES`). */
export const ROLE_SCOPES: Readonly<Record<Role, Scope>> = {
  viewer: 'read',
  runner: 'run',
  editor: 'write',
  admin: 'admin',
  owner: 'owner',
};

/** True when scope `have` includes `needed` (src/teams/roles.ts `scopeAllows`). */
export function scopeAllows(have: Scope, needed: Scope): boolean {
  return SCOPES.indexOf(have) >= SCOPES.indexOf(needed);
}

/** A workspace as `GET /auth/session` lists it: the user's effective role there. */
export interface SessionWorkspace {
  id: string;
  name: string;
  role: Role;
}

/** Signed in with an API key. */
export interface KeySession {
  kind: 'key';
  key: string;
  workspace: { id: string; name: string };
  scope: Scope;
  keyName: string;
}

/** Signed in through the console's OpenID Connect sign-in (the session cookie). */
export interface UserSession {
  kind: 'user';
  user: { id: string; name: string; email: string };
  /** Sent as `X-CSRF-Token` on every request other than GET and HEAD. */
  csrfToken: string;
  /** ISO 8601: when the session ends at the latest. */
  expiresAt: string;
  /** Every workspace the user is a member of. */
  workspaces: SessionWorkspace[];
  /** The chosen one (sent as `X-Assay-Workspace`). */
  workspace: { id: string; name: string };
  role: Role;
  scope: Scope;
}

/** The signed-in caller. `workspace` and `scope` are common to both kinds. */
export type Session = KeySession | UserSession;

/** `GET /auth/session` (docs/teams.md "Sign-in"). */
export interface SessionAnswer {
  user: { id: string; name: string; email: string };
  csrfToken: string;
  expiresAt: string;
  workspaces: SessionWorkspace[];
}

const STORAGE_KEY = 'assay.session';
const listeners = new Set<() => void>();

function readKeySession(): KeySession | null {
  const raw = sessionStorage.getItem(STORAGE_KEY) ?? localStorage.getItem(STORAGE_KEY);
  if (!raw) return null;
  try {
    const s = JSON.parse(raw) as Partial<KeySession>;
    // Sessions stored before console sessions existed have no `kind`.
    return typeof s.key === 'string' && s.workspace ? ({ ...s, kind: 'key' } as KeySession) : null;
  } catch {
    return null;
  }
}

let current: Session | null = readKeySession();
/** False until {@link startSession} has asked `GET /auth/session` (or found a stored key). */
let started = current !== null;
/** Why the user was signed out, shown on the sign-in page ("Your session ended; sign in again"). */
let endedReason: string | undefined;

const notify = () => listeners.forEach((l) => l());

/** The current session, or null when signed out. */
export function session(): Session | null {
  return current;
}

/** True once the console knows whether a console session is live (see {@link startSession}). */
export function sessionKnown(): boolean {
  return started;
}

/** Why the last session ended (a 401 in session mode), or undefined; the sign-in page shows it. */
export function sessionEndedReason(): string | undefined {
  return endedReason;
}

/** Stores a key session; `remember` keeps it across browser restarts (localStorage). */
export function signIn(next: Omit<KeySession, 'kind'>, remember: boolean): void {
  sessionStorage.removeItem(STORAGE_KEY);
  localStorage.removeItem(STORAGE_KEY);
  const s: KeySession = { ...next, kind: 'key' };
  (remember ? localStorage : sessionStorage).setItem(STORAGE_KEY, JSON.stringify(s));
  current = s;
  started = true;
  endedReason = undefined;
  notify();
}

const workspaceChoiceKey = (userId: string) => `assay.workspace.${userId}`;

/**
 * The console session of `answer` (`GET /auth/session`), in workspace `preferred` (an id) when the
 * user is a member of it, else the one remembered for this user, else the first by name (the API's
 * own default, docs/teams.md). Null when the user belongs to no workspace.
 */
export function userSession(answer: SessionAnswer, preferred?: string): UserSession | null {
  const workspaces = [...answer.workspaces].sort((a, b) => a.name.localeCompare(b.name));
  let remembered: string | null = null;
  try {
    remembered = localStorage.getItem(workspaceChoiceKey(answer.user.id));
  } catch {
    remembered = null;
  }
  const chosen =
    workspaces.find((w) => w.id === preferred) ?? workspaces.find((w) => w.id === remembered) ?? workspaces[0];
  if (!chosen) return null;
  return {
    kind: 'user',
    user: answer.user,
    csrfToken: answer.csrfToken,
    expiresAt: answer.expiresAt,
    workspaces,
    workspace: { id: chosen.id, name: chosen.name },
    role: chosen.role,
    scope: ROLE_SCOPES[chosen.role] ?? 'read',
  };
}

/** The signed-in user who belongs to no workspace yet (the console says so, with a sign-out button). */
let homeless: SessionAnswer | null = null;

/** A user signed in but member of no workspace, or null. */
export function memberOfNothing(): SessionAnswer | null {
  return homeless;
}

/** Makes `answer` the current session (keeping the chosen workspace when it is still the user's). */
export function adoptSession(answer: SessionAnswer): void {
  const keep = current?.kind === 'user' ? current.workspace.id : undefined;
  const next = userSession(answer, keep);
  homeless = next ? null : answer;
  current = next;
  started = true;
  endedReason = undefined;
  notify();
}

/** `GET /auth/config` (docs/teams.md "Sign-in"): whether single sign-on is offered, and its name. */
export interface AuthConfig {
  oidc: { enabled: boolean; displayName?: string };
}

let authConfig: Promise<AuthConfig> | undefined;

/**
 * `GET /auth/config`, asked once per page load; a server without it (an older Assay, where the
 * path answers the console's HTML) or a failure reads as "no single sign-on".
 */
export function loadAuthConfig(): Promise<AuthConfig> {
  authConfig ??= fetch('/auth/config', { headers: { Accept: 'application/json' } })
    .then(async (res) => {
      const body = res.ok ? ((await res.json()) as Partial<AuthConfig>) : undefined;
      return { oidc: { enabled: body?.oidc?.enabled === true, displayName: body?.oidc?.displayName } };
    })
    .catch(() => ({ oidc: { enabled: false } }));
  return authConfig;
}

/**
 * Finds out who is signed in when the console starts: a stored key session wins (the user chose
 * that key in this browser); otherwise, when the server offers single sign-on ({@link
 * loadAuthConfig}), `GET /auth/session`: 200 signs in as that user; anything else (401, no
 * network) leaves the console signed out. Without single sign-on no session can exist, so
 * `/auth/session` is not asked (no 401 in the browser's console). Never throws.
 */
export async function startSession(): Promise<void> {
  if (current) {
    started = true;
    return;
  }
  try {
    if ((await loadAuthConfig()).oidc.enabled) {
      const res = await fetch('/auth/session', {
        credentials: 'same-origin',
        headers: { Accept: 'application/json' },
      });
      if (res.ok) {
        adoptSession((await res.json()) as SessionAnswer);
        return;
      }
    }
  } catch {
    // Unreachable or not JSON: signed out.
  }
  started = true;
  notify();
}

/**
 * Asks `GET /auth/session` again (after a 403 `not-a-member`: the user was removed from the chosen
 * workspace, docs/teams.md "Members"), moving to another workspace of the user's, or to the sign-in
 * page when the session itself ended.
 */
export async function refreshSession(): Promise<void> {
  if (current?.kind !== 'user') return;
  try {
    const res = await fetch('/auth/session', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (res.ok) adoptSession((await res.json()) as SessionAnswer);
    else if (res.status === 401) forget('Your session ended; sign in again.');
  } catch {
    // Unreachable: keep the session as it is.
  }
}

/** Switches the console session to workspace `id` (one of `workspaces`) and remembers the choice. */
export function chooseWorkspace(id: string): void {
  if (current?.kind !== 'user') return;
  const w = current.workspaces.find((x) => x.id === id);
  if (!w) return;
  try {
    localStorage.setItem(workspaceChoiceKey(current.user.id), id);
  } catch {
    // Storage refused: the choice lasts until the page reloads.
  }
  current = { ...current, workspace: { id: w.id, name: w.name }, role: w.role, scope: ROLE_SCOPES[w.role] };
  notify();
}

/**
 * Signs out: a console session ends on the server (`POST /auth/logout` with the CSRF token, which
 * clears the cookie); a key is forgotten everywhere. `reason` is shown on the sign-in page.
 */
export async function signOut(reason?: string): Promise<void> {
  const was = current;
  forget(reason);
  if (was?.kind === 'user' && !reason) {
    try {
      await fetch('/auth/logout', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'X-CSRF-Token': was.csrfToken },
      });
    } catch {
      // Unreachable: the cookie ends on its own (docs/teams.md: idle and absolute limits).
    }
  }
}

/** Forgets the session here (no server call): what a 401 does. */
export function forget(reason?: string): void {
  sessionStorage.removeItem(STORAGE_KEY);
  localStorage.removeItem(STORAGE_KEY);
  current = null;
  homeless = null;
  started = true;
  endedReason = reason;
  notify();
}

/**
 * True when the caller's scope is at least `needed` (read < run < write < admin < owner,
 * src/teams/roles.ts; docs/security.md "Scopes per endpoint"). The console hides what the API
 * would refuse; the API still decides.
 */
export function can(needed: Scope): boolean {
  return current !== null && scopeAllows(current.scope, needed);
}

/** The name to show for the caller: the user's name (else e-mail), or the key's name. */
export function callerName(s: Session): string {
  return s.kind === 'user' ? s.user.name || s.user.email : s.keyName;
}

/** Re-renders the component when the session changes. */
export function useSession(): Session | null {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((t) => t + 1);
    listeners.add(l);
    return () => listeners.delete(l);
  }, []);
  return current;
}
