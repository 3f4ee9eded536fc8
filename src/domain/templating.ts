/**
 * `{{name}}` placeholders in API node URLs, headers and bodies.
 *
 * Rules (spec "Local request"; docs/flows.md "Templates"):
 * - `{{name}}` is replaced by the variable `name`. Names are case-sensitive and may hold any
 *   character but braces (`{{my var}}`, `{{a/b}}`, `{{a\\b}}`, as Postman's do); spaces around the
 *   name are ignored (`{{ name }}`), unless a variable is named with them (Postman reads
 *   `{{ name }}` as the name " name "). Values are written as text: 5 becomes "5", true becomes
 *   "true", objects and arrays become JSON. `{{user.name}}` reads a field of an object variable (a
 *   variable whose name itself contains the dots wins).
 * - An unknown name stays as written, braces included, so a typo is visible in the request.
 * - Dynamic values: `{{$guid}}` (a UUID v4), `{{$timestamp}}` (Unix seconds), `{{$isoTimestamp}}`
 *   (ISO 8601 UTC), `{{$randomInt}}` (0 to 1000), `{{$runId}}` (the run's id, its mock scope). In a workflow their sources are Temporal's
 *   deterministic `uuid4()`, `Date.now()` and `Math.random()`, so replay gives the same values.
 * - In a JSON body every string (keys too) is templated; numbers, booleans and nulls stay as they are.
 *
 * Pure module (imported by workflow code).
 */
/** Variables as templates see them: names to JSON values. */
export type TemplateVariables = Record<string, unknown>;

/** Sources of the dynamic `{{$...}}` values. */
export interface DynamicSources {
  uuid(): string;
  /** Epoch milliseconds. */
  now(): number;
  /** A number in [0, 1). */
  random(): number;
  /**
   * The run's id, for `{{$runId}}` (a service under test given the mock address
   * `/mock/<ws>/~{{$runId}}/…` writes to the run's mock scope: docs/mocks.md "State"); absent in
   * plans frozen before mock scopes existed, where `{{$runId}}` stays as written.
   */
  runId?: string;
}

/** `{{…}}` around anything but braces (Postman's `/{{([^{}]*?)}}/`), at least one character. */
const PLACEHOLDER = /\{\{([^{}]+)\}\}/g;

function dynamicValue(name: string, dynamic: DynamicSources): string | undefined {
  switch (name) {
    case '$guid':
    case '$uuid':
    case '$randomUUID':
      return dynamic.uuid();
    case '$timestamp':
      return String(Math.floor(dynamic.now() / 1000));
    case '$isoTimestamp':
      return new Date(dynamic.now()).toISOString();
    case '$randomInt':
      return String(Math.floor(dynamic.random() * 1001));
    case '$runId':
      return dynamic.runId;
    default:
      return undefined;
  }
}

const own = (o: unknown, k: string): boolean =>
  o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k);

/** The value a placeholder name refers to, or undefined. */
function lookup(variables: TemplateVariables, name: string): unknown {
  if (own(variables, name)) return variables[name];
  const path = name.split('.');
  let value: unknown = variables;
  for (const key of path) {
    if (!own(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function asText(value: unknown): string {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Replaces placeholders in one string. */
export function fillTemplate(text: string, variables: TemplateVariables, dynamic: DynamicSources): string {
  if (!text.includes('{{')) return text;
  return text.replace(PLACEHOLDER, (whole, written: string) => {
    const name = written.trim();
    if (!name) return whole;
    const value = written !== name && own(variables, written) ? variables[written] : lookup(variables, name);
    if (value !== undefined) return asText(value);
    if (name.startsWith('$')) return dynamicValue(name, dynamic) ?? whole;
    return whole;
  });
}

/** Replaces placeholders in every string inside a JSON value (object keys included). */
export function fillTemplates<T>(value: T, variables: TemplateVariables, dynamic: DynamicSources): T {
  if (typeof value === 'string') return fillTemplate(value, variables, dynamic) as T;
  if (Array.isArray(value)) return value.map((v) => fillTemplates(v, variables, dynamic)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[fillTemplate(k, variables, dynamic)] = fillTemplates(v, variables, dynamic);
    }
    return out as T;
  }
  return value;
}
