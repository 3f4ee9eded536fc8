/**
 * `{{name}}` variables of local requests (interface spec "Local request"; the same placeholder
 * syntax as Assay's API nodes, src/domain/templating.ts). Pure functions, no storage, no network.
 *
 * - `{{name}}` is replaced by the value of `name` in the linked variable group. Names are
 *   case-sensitive; spaces inside the braces are ignored (`{{ base }}`).
 * - `{{$guid}}` is a new UUID v4 (crypto.randomUUID) and `{{$timestamp}}` the current Unix time in
 *   seconds, computed again for every send (each `{{$guid}}` occurrence gets its own UUID, as in
 *   API nodes).
 * - An unresolved variable stays as written, braces included.
 * - Applied to the URL, header names and values, and the body (JSON and plain text as text, form
 *   values, multipart text values; not file contents), like API nodes do.
 */

/** A variable group as resolution sees it: names to values. */
export type Variables = Record<string, string>;

/** Where dynamic values come from (tests pass fixed ones). */
export interface Dynamic {
  guid(): string;
  /** Epoch milliseconds. */
  now(): number;
}

/** The browser's sources: crypto.randomUUID and Date.now. */
export const browserDynamic: Dynamic = { guid: () => crypto.randomUUID(), now: () => Date.now() };

const PLACEHOLDER = /\{\{\s*([$A-Za-z_][\w.$-]*)\s*\}\}/g;

/** Replaces every `{{name}}` of `text` (see the module's rules); unknown names stay as written. */
export function resolve(text: string, variables: Variables, dynamic: Dynamic = browserDynamic): string {
  if (!text.includes('{{')) return text;
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    if (name === '$guid') return dynamic.guid();
    if (name === '$timestamp') return String(Math.floor(dynamic.now() / 1000));
    return Object.prototype.hasOwnProperty.call(variables, name) ? variables[name]! : whole;
  });
}

/** The names `text` refers to that `variables` does not define (dynamic values excluded), in order, once each. */
export function unresolved(text: string, variables: Variables): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) {
    const name = m[1]!;
    if (name === '$guid' || name === '$timestamp') continue;
    if (!Object.prototype.hasOwnProperty.call(variables, name) && !out.includes(name)) out.push(name);
  }
  return out;
}

/** The enabled rows of a group as {@link Variables} (a later row of the same name wins). */
export function rowsToVariables(rows: { name: string; value: string; enabled?: boolean }[]): Variables {
  const out: Variables = {};
  for (const r of rows) if (r.enabled !== false && r.name) out[r.name] = r.value;
  return out;
}

/** An environment's variables (strings, numbers, booleans) as {@link Variables}: values written as text. */
export function environmentVariables(variables: Record<string, unknown> | undefined): Variables {
  const out: Variables = {};
  for (const [k, v] of Object.entries(variables ?? {})) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

/** An environment as the API answers it: its own values, and what it inherits (docs/reuse.md). */
export interface EnvironmentValues {
  variables?: Record<string, unknown>;
  servers?: Record<string, string>;
  inherited?: {
    variables: Record<string, { value: unknown; secret?: true }>;
    servers: Record<string, { value: string }>;
  };
}

/**
 * An environment's values as a run sees them (docs/reuse.md): the variables it inherits through
 * `extends` under its own, and its servers (inherited, then its own) as `server.<name>`, so that
 * `{{server.users}}` resolves here as it does in API nodes.
 */
export function linkedEnvironmentVariables(env: EnvironmentValues): Variables {
  const inherited: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(env.inherited?.variables ?? {}))
    inherited[k] = v.secret ? { secret: true, value: v.value } : v.value;
  const out = environmentVariables({ ...inherited, ...env.variables });
  for (const [k, v] of Object.entries(env.inherited?.servers ?? {})) out[`server.${k}`] = v.value;
  for (const [k, v] of Object.entries(env.servers ?? {})) out[`server.${k}`] = v;
  return out;
}
