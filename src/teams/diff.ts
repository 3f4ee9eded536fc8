/**
 * Field diffs of JSON documents and the masking of secret values in them, for the audit trail and
 * the diffs of resource versions (docs/teams.md "Audit trail", "Versions").
 *
 * {@link jsonDiff} lists what changed between two JSON values as {@link AuditChange} entries whose
 * `path` is an RFC 6901 JSON Pointer (`/flow/0/request/url`; `~` and `/` in member names escaped as
 * `~0` and `~1`; `""` is the whole document). Objects are compared member by member, arrays index
 * by index (an insertion in the middle shows as a change of every later index, then an addition at
 * the end); anything else is compared by value. An entry has `before` (absent when the member was
 * added) and `after` (absent when it was removed). At most {@link MAX_CHANGES} entries are listed,
 * then one more, `{path: "", after: "<n> more changes not listed"}`.
 *
 * {@link maskSecrets} replaces secret values by {@link MASK} before a document is diffed or
 * stored in the trail (rules in its docstring).
 */
import type { AuditChange } from '../store/entities';
import { SEALED_PREFIX } from '../secrets/keyring';

/** What a secret value reads as, as everywhere in the API (docs/secrets.md). */
export const MASK = '***';

/** Entries {@link jsonDiff} lists at most (then one entry counting the rest). */
export const MAX_CHANGES = 1000;

/** An RFC 6901 reference token: `~` → `~0`, `/` → `~1`. */
function token(name: string | number): string {
  return String(name).replace(/~/g, '~0').replace(/\//g, '~1');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Deep equality of JSON values (object member order does not count). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * What changed from `before` to `after` (JSON values; `undefined` stands for "absent"): entries in
 * document order (members of `before` in their order, then members only `after` has), paths as RFC
 * 6901 JSON Pointers. Equal documents give `[]`. At most {@link MAX_CHANGES} entries, then one
 * saying how many more there were.
 */
export function jsonDiff(before: unknown, after: unknown): AuditChange[] {
  const out: AuditChange[] = [];
  let more = 0;
  const emit = (path: string, b: unknown, a: unknown) => {
    if (out.length >= MAX_CHANGES) {
      more++;
      return;
    }
    const change: AuditChange = { path };
    if (b !== undefined) change.before = b;
    if (a !== undefined) change.after = a;
    out.push(change);
  };
  const walk = (path: string, b: unknown, a: unknown) => {
    if (b === undefined && a === undefined) return;
    if (Array.isArray(b) && Array.isArray(a)) {
      const n = Math.max(b.length, a.length);
      for (let i = 0; i < n; i++)
        walk(`${path}/${i}`, i < b.length ? b[i] : undefined, i < a.length ? a[i] : undefined);
      return;
    }
    if (isObject(b) && isObject(a)) {
      for (const key of Object.keys(b)) walk(`${path}/${token(key)}`, b[key], a[key]);
      for (const key of Object.keys(a))
        if (!Object.prototype.hasOwnProperty.call(b, key)) walk(`${path}/${token(key)}`, undefined, a[key]);
      return;
    }
    if (!jsonEqual(b, a)) emit(path, b, a);
  };
  walk('', before, after);
  if (more > 0) out.push({ path: '', after: `${more} more change${more === 1 ? '' : 's'} not listed` });
  return out;
}

/**
 * Member names whose values are secrets (case-insensitive, `-` and `_` ignored, a plural `s`
 * allowed): names that are, or end in, password, secret, token, apiKey, authorization,
 * clientSecret, privateKey or cookie — so `password`, `X-Api-Key`, `api_key`, `Authorization`,
 * `Proxy-Authorization`, `refreshToken`, `signingSecret`, `Set-Cookie`, but not `tokenUrl` or
 * `tokenType`.
 */
const SECRET_NAMES = ['password', 'secret', 'token', 'apikey', 'authorization', 'clientsecret', 'privatekey', 'cookie'];

/** Whether a member called `name` holds a secret ({@link SECRET_NAMES}). */
export function isSecretName(name: string): boolean {
  const n = name.toLowerCase().replace(/[-_]/g, '');
  const stem = n.endsWith('s') ? n.slice(0, -1) : n;
  return SECRET_NAMES.some((s) => n.endsWith(s) || stem.endsWith(s));
}

/** A value that only refers to a variable (`{{password}}`, `{{ env.token }}`): not a secret itself. */
function isReference(value: string): boolean {
  return /^\s*\{\{[^{}]+\}\}\s*$/.test(value);
}

/** A value sealed with the key ring (src/secrets/keyring.ts `SEALED_PREFIX`: `v1.<key>.<iv>.<data>…`). */
export function isSealed(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(SEALED_PREFIX) && value.split('.').length >= 4;
}

/** Whether the value of a secret-named member is masked: not null, empty, a boolean or a `{{variable}}` reference. */
function maskable(value: unknown): boolean {
  if (value === null || value === undefined || typeof value === 'boolean') return false;
  if (typeof value === 'string') return value !== '' && !isReference(value);
  return true;
}

/**
 * A copy of the JSON value `value` with secret values replaced by `"***"`:
 * - an environment variable `{secret: true, …}` (as stored: `sealed`, or as answered or sent: `value`): its `value` and `sealed`;
 * - any member whose name is secret ({@link isSecretName}), unless its value is null, empty, a
 *   boolean (`secret: true` itself) or only a `{{variable}}` reference; an object or array there is
 *   masked as a whole;
 * - any string sealed with the key ring ({@link isSealed}), wherever it is.
 * Other values are copied as they are.
 */
export function maskSecrets<T>(value: T): T {
  return mask(value) as T;
}

function mask(value: unknown): unknown {
  if (typeof value === 'string') return isSealed(value) ? MASK : value;
  if (Array.isArray(value)) return value.map(mask);
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  const secretVariable = value.secret === true;
  for (const [key, v] of Object.entries(value)) {
    if (secretVariable && (key === 'value' || key === 'sealed')) out[key] = v === null || v === undefined ? v : MASK;
    else if (isSecretName(key) && maskable(v)) out[key] = MASK;
    else out[key] = mask(v);
  }
  return out;
}
