/**
 * The file format of tests as files (docs/tests-as-files.md "File format"): one resource per YAML
 * file, starting with its `kind:` line. {@link parseResourceFile} reads and checks a file (YAML
 * errors, unknown kinds and fields, wrong types: one {@link FileProblem} each, naming the file and
 * the field); {@link serialiseResource} writes a spec with a fixed key order, sorted where order has
 * no meaning and without defaults, so unchanged resources export to the same bytes.
 * {@link resourcePath} names the file of a new resource. Pure (no file system access).
 */
import YAML, { isMap, type Document } from 'yaml';
import { normaliseFolder } from '../../src/domain/folders';
import { assignNodeIds } from '../../src/flow/tree';
import {
  DEPLOYMENT_FIELDS,
  DURABILITIES,
  isSecretRef,
  KIND_FOLDER,
  RUNNER_FIELDS,
  TEST_CASE_FIELDS,
  KINDS,
  NAME_PATTERN,
  RUNNER_ORDERS,
  VARIABLE_SCOPES,
  sortedSet,
  type DeploymentSpec,
  type Durability,
  type EnvironmentSpec,
  type Kind,
  type ResourceSpec,
  type RunnerOrder,
  type VariableScope,
  type RunnerSpec,
  type Scalar,
  type SecretRef,
  type TestCaseSpec,
  type WebhookSpec,
} from './model';

/** One thing wrong with a file: `runners/smoke.yaml: testCases[1]: must be text`. */
export interface FileProblem {
  /** Path of the file as the user named it (relative to the directory given). */
  file: string;
  /** Where in the file: a field path (`webhooks.onComplete[0].url`) or `line 3, column 5`. */
  field?: string;
  message: string;
}

/** The one-line form of a problem. */
export function describeProblem(p: FileProblem): string {
  return `${p.file}: ${p.field ? `${p.field}: ` : ''}${p.message}`;
}

/** What parsing a file gives: the spec, or the problems (never both). */
export type ParseResult = { spec: ResourceSpec; problems?: undefined } | { spec?: undefined; problems: FileProblem[] };

const FIELDS: Record<Kind, readonly string[]> = {
  Environment: ['kind', 'name', 'description', 'variables'],
  TestCase: ['kind', 'name', ...TEST_CASE_FIELDS],
  Runner: ['kind', 'name', ...RUNNER_FIELDS],
  Deployment: ['kind', 'name', ...DEPLOYMENT_FIELDS],
};
const WEBHOOK_FIELDS = ['url', 'method', 'headers', 'payload'];
const WEBHOOK_METHODS = ['POST', 'PUT', 'PATCH'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (isRecord(v)) return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}

/** Field checks for one file, collecting problems. */
class Checker {
  readonly problems: FileProblem[] = [];
  constructor(readonly file: string) {}

  fail(field: string, message: string): void {
    this.problems.push({ file: this.file, field: field || undefined, message });
  }

  text(v: unknown, field: string, opts: { min?: number; max?: number } = {}): string | undefined {
    if (typeof v !== 'string') {
      this.fail(field, v === undefined ? 'is missing' : `must be text, not ${typeName(v)}`);
      return undefined;
    }
    if (opts.min !== undefined && v.length < opts.min)
      this.fail(field, opts.min === 1 ? 'must not be empty' : `must have at least ${opts.min} characters`);
    else if (opts.max !== undefined && v.length > opts.max)
      this.fail(field, `must have at most ${opts.max} characters`);
    return v;
  }

  optionalText(v: unknown, field: string, fallback: string, max?: number): string {
    return v === undefined ? fallback : (this.text(v, field, { max }) ?? fallback);
  }

  bool(v: unknown, field: string, fallback: boolean): boolean {
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') {
      this.fail(field, `must be true or false, not ${typeName(v)}`);
      return fallback;
    }
    return v;
  }

  name(v: unknown, field = 'name'): string {
    const s = this.text(v, field, { min: 1 });
    if (s && !NAME_PATTERN.test(s))
      this.fail(field, `"${s}" must be letters, digits, "_", "." or "-", starting with a letter or digit (up to 100)`);
    return s ?? '';
  }

  textList(v: unknown, field: string, opts: { noCommas?: boolean } = {}): string[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.fail(field, `must be a list, not ${typeName(v)}`);
      return [];
    }
    const out: string[] = [];
    v.forEach((item, i) => {
      const s = this.text(item, `${field}[${i}]`, { min: 1 });
      if (s === undefined) return;
      if (opts.noCommas && s.includes(',')) this.fail(`${field}[${i}]`, `"${s}" must not contain a comma`);
      out.push(s);
    });
    return out;
  }

  list(v: unknown, field: string, required = false): unknown[] {
    if (v === undefined && !required) return [];
    if (v === undefined) {
      this.fail(field, 'is missing');
      return [];
    }
    if (!Array.isArray(v)) {
      this.fail(field, `must be a list, not ${typeName(v)}`);
      return [];
    }
    return v;
  }

  mappingOrNull(v: unknown, field: string): Record<string, unknown> | null {
    if (v === undefined || v === null) return null;
    if (!isRecord(v)) {
      this.fail(field, `must be a mapping or null, not ${typeName(v)}`);
      return null;
    }
    return v;
  }

  unknownFields(doc: Record<string, unknown>, allowed: readonly string[], prefix = ''): void {
    for (const key of Object.keys(doc)) {
      if (!allowed.includes(key))
        this.fail(`${prefix}${key}`, `unknown field (expected one of: ${allowed.join(', ')})`);
    }
  }
}

/**
 * Reads one file's text: YAML (one document), a mapping whose `kind` is one of {@link KINDS}, every
 * field known and of the right type. Answers the normalised spec (defaults filled in, folder and
 * tags canonical, flow nodes with ids) or the problems found.
 */
export function parseResourceFile(file: string, text: string): ParseResult {
  let docs: Document.Parsed[];
  try {
    docs = YAML.parseAllDocuments(text, { uniqueKeys: true, prettyErrors: true }) as Document.Parsed[];
  } catch (err) {
    return { problems: [{ file, message: `YAML error: ${(err as Error).message.split('\n')[0]}` }] };
  }
  if (!Array.isArray(docs)) return { problems: [{ file, message: 'YAML error: cannot read the file' }] };
  const real = docs.filter((d) => d.contents !== null || d.errors.length > 0);
  for (const d of real) {
    const err = d.errors[0];
    if (err) {
      const at = err.linePos?.[0];
      return {
        problems: [
          {
            file,
            field: at ? `line ${at.line}, column ${at.col}` : undefined,
            message: `YAML error: ${err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
          },
        ],
      };
    }
  }
  if (real.length === 0)
    return {
      problems: [
        {
          file,
          message: 'is empty; a resource file starts with "kind:" (Environment, TestCase, Runner or Deployment)',
        },
      ],
    };
  if (real.length > 1)
    return { problems: [{ file, message: `holds ${real.length} YAML documents; put one resource in each file` }] };
  let doc: unknown;
  try {
    doc = real[0]!.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return { problems: [{ file, message: `YAML error: ${(err as Error).message.split('\n')[0]}` }] };
  }
  if (!isRecord(doc))
    return { problems: [{ file, message: `must be a mapping starting with "kind:", not ${typeName(doc)}` }] };
  const c = new Checker(file);
  const kind = doc.kind;
  if (kind === undefined) {
    c.fail('kind', `is missing (one of ${KINDS.join(', ')})`);
    return { problems: c.problems };
  }
  if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) {
    c.fail('kind', `unknown kind ${JSON.stringify(kind)} (one of ${KINDS.join(', ')})`);
    return { problems: c.problems };
  }
  c.unknownFields(doc, FIELDS[kind as Kind]);
  const spec = SPEC_READERS[kind as Kind](doc, c);
  return c.problems.length ? { problems: c.problems } : { spec };
}

function readEnvironment(doc: Record<string, unknown>, c: Checker): EnvironmentSpec {
  const variables: Record<string, Scalar | SecretRef> = {};
  if (doc.variables !== undefined && doc.variables !== null) {
    if (!isRecord(doc.variables))
      c.fail('variables', `must be a mapping of names to values, not ${typeName(doc.variables)}`);
    else {
      for (const name of Object.keys(doc.variables).sort()) {
        const v = doc.variables[name];
        const field = `variables.${name}`;
        if (name.length === 0 || name.length > 200) c.fail(field, 'a variable name has 1 to 200 characters');
        if (isSecretRef(v)) variables[name] = { secret: true };
        else if (typeof v === 'string' || typeof v === 'boolean') variables[name] = v;
        else if (typeof v === 'number' && Number.isFinite(v)) variables[name] = v;
        else if (v === null || v === undefined)
          c.fail(field, 'has no value; give one, or {secret: true} for a value kept out of files');
        else c.fail(field, `must be text, a number, true/false or {secret: true}, not ${typeName(v)}`);
      }
    }
  }
  return {
    kind: 'Environment',
    name: c.name(doc.name),
    description: c.optionalText(doc.description, 'description', '', 1000),
    variables,
  };
}

function readTestCase(doc: Record<string, unknown>, c: Checker): TestCaseSpec {
  const name = c.text(doc.name, 'name', { min: 1, max: 200 }) ?? '';
  const folder = normaliseFolder(c.optionalText(doc.folder, 'folder', '', 255));
  return {
    kind: 'TestCase',
    name,
    folder,
    description: c.optionalText(doc.description, 'description', '', 2000),
    tags: sortedSet(c.textList(doc.tags, 'tags', { noCommas: true })),
    reusable: c.bool(doc.reusable, 'reusable', false),
    flow: assignNodeIds(c.list(doc.flow, 'flow', true)),
    dataSets: c.list(doc.dataSets === null ? undefined : doc.dataSets, 'dataSets'),
    // The server checks the script (docs/flows.md "Hooks at three levels"); only its presence here.
    ...withHooks(c.mappingOrNull(doc.hooks ?? null, 'hooks')),
    authProfile: c.optionalText(doc.authProfile, 'authProfile', '', 100) || null,
  };
}

/** `{hooks}` when a test case has some, else nothing (specs without hooks stay as they were). */
function withHooks(hooks: Record<string, unknown> | null): { hooks?: TestCaseSpec['hooks'] } {
  return hooks ? { hooks: hooks as unknown as TestCaseSpec['hooks'] } : {};
}

function readRunner(doc: Record<string, unknown>, c: Checker): RunnerSpec {
  let folder: string | null = null;
  if (doc.folder !== undefined && doc.folder !== null)
    folder = normaliseFolder(c.text(doc.folder, 'folder', { max: 255 }) ?? '');
  let order: RunnerOrder = 'name';
  if (doc.order !== undefined) {
    if ((RUNNER_ORDERS as readonly unknown[]).includes(doc.order)) order = doc.order as RunnerOrder;
    else c.fail('order', `must be one of ${RUNNER_ORDERS.join(', ')}, not ${typeName(doc.order)}`);
  }
  let variableScope: VariableScope = 'testCase';
  if (doc.variableScope !== undefined) {
    if ((VARIABLE_SCOPES as readonly unknown[]).includes(doc.variableScope))
      variableScope = doc.variableScope as VariableScope;
    else c.fail('variableScope', `must be one of ${VARIABLE_SCOPES.join(', ')}, not ${typeName(doc.variableScope)}`);
  }
  const durability = readDurability(doc, c) ?? 'node';
  const testCases = c.textList(doc.testCases, 'testCases');
  const tags = sortedSet(c.textList(doc.tags, 'tags'));
  const name = c.name(doc.name);
  if (testCases.length === 0 && folder === null && tags.length === 0 && name) {
    c.fail('', 'selects no test cases: give testCases, folder ("" for every folder) or tags');
  }
  return {
    kind: 'Runner',
    name,
    description: c.optionalText(doc.description, 'description', '', 1000),
    testCases: [...new Set(testCases)],
    folder,
    tags,
    order,
    loadProfile: c.mappingOrNull(doc.loadProfile, 'loadProfile'),
    variableScope,
    durability,
    authProfile: c.optionalText(doc.authProfile, 'authProfile', '', 100) || null,
    baseline: c.optionalText(doc.baseline, 'baseline', '', 40) || null,
    quarantineFlaky: c.bool(doc.quarantineFlaky, 'quarantineFlaky', false),
  };
}

/** A runner's or deployment's `durability` (docs/durability.md "Durability modes"); null when absent or null. */
function readDurability(doc: Record<string, unknown>, c: Checker): Durability | null {
  if (doc.durability === undefined || doc.durability === null) return null;
  if ((DURABILITIES as readonly unknown[]).includes(doc.durability)) return doc.durability as Durability;
  c.fail('durability', `must be one of ${DURABILITIES.join(', ')}, not ${typeName(doc.durability)}`);
  return null;
}

function readWebhooks(v: unknown, c: Checker): DeploymentSpec['webhooks'] {
  const out: DeploymentSpec['webhooks'] = { onComplete: [], onFailure: [] };
  if (v === undefined || v === null) return out;
  if (!isRecord(v)) {
    c.fail('webhooks', `must be a mapping with onComplete and onFailure lists, not ${typeName(v)}`);
    return out;
  }
  c.unknownFields(v, ['onComplete', 'onFailure'], 'webhooks.');
  for (const list of ['onComplete', 'onFailure'] as const) {
    c.list(v[list] === null ? undefined : v[list], `webhooks.${list}`).forEach((entry, i) => {
      const at = `webhooks.${list}[${i}]`;
      if (!isRecord(entry)) {
        c.fail(at, `must be a mapping with url (and method, headers, payload), not ${typeName(entry)}`);
        return;
      }
      c.unknownFields(entry, WEBHOOK_FIELDS, `${at}.`);
      const hook: WebhookSpec = { url: c.text(entry.url, `${at}.url`, { min: 1, max: 2048 }) ?? '' };
      if (entry.method !== undefined) {
        const m = c.text(entry.method, `${at}.method`);
        if (m !== undefined && !WEBHOOK_METHODS.includes(m.toUpperCase()))
          c.fail(`${at}.method`, `must be one of ${WEBHOOK_METHODS.join(', ')}`);
        if (m !== undefined) hook.method = m;
      }
      if (entry.headers !== undefined && entry.headers !== null) {
        if (!isRecord(entry.headers))
          c.fail(`${at}.headers`, `must be a mapping of header names to values, not ${typeName(entry.headers)}`);
        else {
          const headers: Record<string, string | SecretRef> = {};
          for (const name of Object.keys(entry.headers).sort()) {
            const hv = entry.headers[name];
            if (isSecretRef(hv)) headers[name] = { secret: true };
            else if (typeof hv === 'string') headers[name] = hv;
            else c.fail(`${at}.headers.${name}`, `must be text or {secret: true}, not ${typeName(hv)}`);
          }
          if (Object.keys(headers).length) hook.headers = headers;
        }
      }
      if (entry.payload !== undefined) hook.payload = entry.payload;
      out[list].push(hook);
    });
  }
  return out;
}

function readDeployment(doc: Record<string, unknown>, c: Checker): DeploymentSpec {
  let schedule: string | null = null;
  if (doc.schedule !== undefined && doc.schedule !== null)
    schedule = (c.text(doc.schedule, 'schedule', { max: 200 }) ?? '').trim() || null;
  return {
    kind: 'Deployment',
    name: c.name(doc.name),
    runner: c.name(doc.runner, 'runner'),
    environment: c.name(doc.environment, 'environment'),
    schedule,
    timezone: c.optionalText(doc.timezone, 'timezone', 'UTC', 64) || 'UTC',
    enabled: c.bool(doc.enabled, 'enabled', true),
    webhookEnabled: c.bool(doc.webhookEnabled, 'webhookEnabled', false),
    webhookRequireAuth: c.bool(doc.webhookRequireAuth, 'webhookRequireAuth', true),
    webhooks: readWebhooks(doc.webhooks, c),
    loadProfile: c.mappingOrNull(doc.loadProfile, 'loadProfile'),
    durability: readDurability(doc, c),
  };
}

const SPEC_READERS: Record<Kind, (doc: Record<string, unknown>, c: Checker) => ResourceSpec> = {
  Environment: readEnvironment,
  TestCase: readTestCase,
  Runner: readRunner,
  Deployment: readDeployment,
};

/** The file's mapping for `spec`, keys in their fixed order, defaults left out. */
export function fileDocument(spec: ResourceSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { kind: spec.kind, name: spec.name };
  const put = (key: string, value: unknown, skip: boolean) => {
    if (!skip) out[key] = value;
  };
  switch (spec.kind) {
    case 'Environment':
      put('description', spec.description, !spec.description);
      put(
        'variables',
        Object.fromEntries(
          Object.keys(spec.variables)
            .sort()
            .map((k) => [k, spec.variables[k]]),
        ),
        Object.keys(spec.variables).length === 0,
      );
      break;
    case 'TestCase':
      put('folder', spec.folder, !spec.folder);
      put('description', spec.description, !spec.description);
      put('tags', sortedSet(spec.tags), spec.tags.length === 0);
      put('reusable', spec.reusable, !spec.reusable);
      put('authProfile', spec.authProfile, spec.authProfile === null);
      put('dataSets', spec.dataSets, spec.dataSets.length === 0);
      put('hooks', spec.hooks, spec.hooks === undefined);
      out.flow = spec.flow;
      break;
    case 'Runner':
      put('description', spec.description, !spec.description);
      put('folder', spec.folder, spec.folder === null);
      put('tags', sortedSet(spec.tags), spec.tags.length === 0);
      put('order', spec.order, spec.order === 'name');
      put('variableScope', spec.variableScope, spec.variableScope === 'testCase');
      put('durability', spec.durability, spec.durability === 'node');
      put('authProfile', spec.authProfile, spec.authProfile === null);
      put('baseline', spec.baseline, spec.baseline === null);
      put('quarantineFlaky', spec.quarantineFlaky, !spec.quarantineFlaky);
      put('testCases', spec.testCases, spec.testCases.length === 0);
      put('loadProfile', spec.loadProfile, spec.loadProfile === null);
      break;
    case 'Deployment': {
      out.runner = spec.runner;
      out.environment = spec.environment;
      put('schedule', spec.schedule, spec.schedule === null);
      put('timezone', spec.timezone, spec.timezone === 'UTC');
      out.enabled = spec.enabled;
      out.webhookEnabled = spec.webhookEnabled;
      put('webhookRequireAuth', spec.webhookRequireAuth, spec.webhookRequireAuth);
      const hooks: Record<string, unknown> = {};
      for (const list of ['onComplete', 'onFailure'] as const) {
        if (spec.webhooks[list].length) hooks[list] = spec.webhooks[list].map(webhookDocument);
      }
      put('webhooks', hooks, Object.keys(hooks).length === 0);
      put('loadProfile', spec.loadProfile, spec.loadProfile === null);
      put('durability', spec.durability, spec.durability === null);
      break;
    }
  }
  return out;
}

function webhookDocument(w: WebhookSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { url: w.url };
  if (w.method !== undefined) out.method = w.method;
  if (w.headers && Object.keys(w.headers).length)
    out.headers = Object.fromEntries(
      Object.keys(w.headers)
        .sort()
        .map((k) => [k, w.headers![k]]),
    );
  if (w.payload !== undefined) out.payload = w.payload;
  return out;
}

/**
 * The YAML text of `spec`: `kind:` first, block style, no line folding, multi-line text as literal
 * blocks, `{secret: true}` on one line. The same spec always gives the same bytes.
 */
export function serialiseResource(spec: ResourceSpec): string {
  const doc = new YAML.Document(fileDocument(spec), { aliasDuplicateObjects: false });
  YAML.visit(doc, {
    Map(_key, node) {
      if (isMap(node) && node.items.length === 1 && isSecretRef(node.toJSON())) node.flow = true;
    },
  });
  return doc.toString({ indent: 2, lineWidth: 0, minContentWidth: 0, blockQuote: 'literal', indentSeq: true });
}

/**
 * A file or folder name for `text`: letters, digits, `.`, `_` and `-` kept, every other run of
 * characters (spaces, slashes, quotes…) made one `-`, no leading dot or dash, at most 80
 * characters; `unnamed` when nothing is left.
 */
export function safeSegment(text: string): string {
  const cleaned = text
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+/, '')
    .slice(0, 80)
    .replace(/[-.]+$/, '');
  return cleaned || 'unnamed';
}

/**
 * The path (relative, `/`-separated) of a new file for `spec`: `environments/<name>.yaml`,
 * `test-cases/<folder path>/<name>.yaml`, `runners/<name>.yaml`, `deployments/<name>.yaml`, each
 * part made safe ({@link safeSegment}). `taken` holds the paths in use, lower-cased (so names that
 * differ only in case do not collide on macOS or Windows); a clash gets `-2`, `-3`… The answer is
 * added to `taken`.
 */
export function resourcePath(spec: ResourceSpec, taken: Set<string>): string {
  const dir = [
    KIND_FOLDER[spec.kind],
    ...(spec.kind === 'TestCase' && spec.folder ? spec.folder.split('/').map(safeSegment) : []),
  ].join('/');
  const base = safeSegment(spec.name);
  for (let n = 1; ; n++) {
    const candidate = `${dir}/${n === 1 ? base : `${base}-${n}`}.yaml`;
    if (!taken.has(candidate.toLowerCase())) {
      taken.add(candidate.toLowerCase());
      return candidate;
    }
  }
}
