/**
 * `assay apply`'s plan (docs/tests-as-files.md "Plan"): what the files in a directory
 * ({@link DesiredResource}) change in a workspace ({@link CurrentResource}), like `terraform plan`:
 * resources to create, to update (naming the fields that differ) and, with `prune`, to delete;
 * the count left unchanged; warnings about secrets the files cannot set; and problems (references
 * to test cases, runners or environments that will not exist, two files for one resource) that
 * stop the apply before anything changes. Pure: the requests are made in cli/gitops/workspace.ts.
 *
 * Secrets: an environment variable whose name looks secret ({@link isSecretName})
 * or whose file value is `{secret: true}` is never set, changed or removed by apply; an outgoing
 * webhook header given as `{secret: true}` keeps the value stored on the server, and is left out
 * (with a warning) where the server has none.
 */
import { describeFileAction, type FilePlan } from './file-sync';
import type { FileProblem } from './format';
import {
  DEPLOYMENT_FIELDS,
  RUNNER_FIELDS,
  TEST_CASE_FIELDS,
  isSecretName,
  isSecretRef,
  KIND_ORDER,
  resourceKey,
  resourceLabel,
  sameValue,
  testCaseRef,
  type DeploymentSpec,
  type EnvironmentSpec,
  type Kind,
  type ResourceSpec,
  type RunnerSpec,
  type Scalar,
  type SecretRef,
  type TestCaseSpec,
  type WebhookJson,
} from './model';

/** A resource as a file describes it. */
export interface DesiredResource {
  spec: ResourceSpec;
  /** The file, relative to the directory given (for messages). */
  file: string;
}

/** A resource as the workspace has it; `id` for test cases and deployments (addressed by id). */
export interface CurrentResource {
  spec: ResourceSpec;
  id?: string;
}

/** One change of a plan. */
export interface PlanAction {
  op: 'create' | 'update' | 'delete';
  kind: Kind;
  /** {@link resourceKey} of the resource. */
  key: string;
  /** {@link resourceLabel}: `test case users/get user`. */
  label: string;
  /** The file describing it (create, update). */
  file?: string;
  /** For an update: the fields that differ, in file order. */
  fields: string[];
  desired?: ResourceSpec;
  current?: CurrentResource;
}

export interface Plan {
  /** In apply order: creates and updates by kind (environments first), then deletes in reverse kind order. */
  actions: PlanAction[];
  /** Resources the files describe that need no change. */
  unchanged: number;
  /** Labels of workspace resources no file describes, kept because `prune` is off. */
  kept: string[];
  /** Things apply cannot do from files (secrets to set by hand), one line each. */
  warnings: string[];
  /** Reasons not to apply at all; when any, {@link actions} must not be carried out. */
  problems: FileProblem[];
}

export interface PlanOptions {
  /** Delete workspace resources that no file describes. */
  prune?: boolean;
}

/** Environment variables apply manages: not secret by name, not `{secret: true}` in the file. */
function managedVariable(name: string, fileValue: unknown): boolean {
  return !isSecretName(name) && !isSecretRef(fileValue);
}

/**
 * What applying `desired` over `current` (undefined: a new environment) changes in its variables:
 * `set` (new or different values) and `remove` (managed variables the file no longer lists), plus
 * warnings for the secret variables the file names that apply leaves alone.
 */
export function environmentVariableChanges(
  desired: EnvironmentSpec,
  current: EnvironmentSpec | undefined,
): { set: Record<string, Scalar>; remove: string[]; warnings: string[] } {
  const set: Record<string, Scalar> = {};
  const remove: string[] = [];
  const warnings: string[] = [];
  const now = current?.variables ?? {};
  for (const [name, value] of Object.entries(desired.variables)) {
    if (managedVariable(name, value)) {
      if (!(name in now) || !sameValue(now[name], value)) set[name] = value as Scalar;
      continue;
    }
    const ignored = !isSecretRef(value)
      ? ` (the value in the file is ignored: secrets are never applied from files)`
      : '';
    if (!(name in now)) {
      warnings.push(
        `environment ${desired.name}: secret variable "${name}" is not set${ignored}; set it in the console or with PATCH /v1/environments/${desired.name} {"variables": {"${name}": "…"}}`,
      );
    } else if (ignored) {
      warnings.push(
        `environment ${desired.name}: variable "${name}" looks secret; the value in the file is ignored and the stored one kept`,
      );
    }
  }
  for (const [name, value] of Object.entries(now)) {
    if (name in desired.variables) continue;
    if (isSecretName(name) || isSecretRef(value)) continue;
    remove.push(name);
  }
  return { set, remove: remove.sort(), warnings };
}

/**
 * The outgoing webhooks of `desired` as apply sends them, given what the deployment has now:
 * literal header values as written, `{secret: true}` headers as `"***"` (the API keeps the stored
 * value, api/secrets.ts) where the entry at the same position has that header, left out otherwise
 * (with a warning). `compare` is the same with every header value masked, the form the API
 * answers, for the diff.
 */
export function deploymentWebhooks(
  desired: DeploymentSpec,
  current: DeploymentSpec | undefined,
): {
  send: { onComplete: WebhookJson[]; onFailure: WebhookJson[] };
  compare: DeploymentSpec['webhooks'];
  warnings: string[];
} {
  const warnings: string[] = [];
  const send = { onComplete: [] as WebhookJson[], onFailure: [] as WebhookJson[] };
  const compare: DeploymentSpec['webhooks'] = { onComplete: [], onFailure: [] };
  for (const list of ['onComplete', 'onFailure'] as const) {
    desired.webhooks[list].forEach((hook, i) => {
      const stored = Object.keys(current?.webhooks[list][i]?.headers ?? {}).map((h) => h.toLowerCase());
      const sent: WebhookJson = { url: hook.url };
      const cmp: DeploymentSpec['webhooks']['onComplete'][number] = { url: hook.url };
      if (hook.method !== undefined) sent.method = cmp.method = hook.method;
      const headers: Record<string, string> = {};
      const masked: Record<string, SecretRef> = {};
      for (const [name, value] of Object.entries(hook.headers ?? {})) {
        if (isSecretRef(value) && !stored.includes(name.toLowerCase())) {
          warnings.push(
            `deployment ${desired.name}: secret header "${name}" of webhooks.${list}[${i}] is not set; set it in the console or with PATCH /v1/deployments/{id} (header values are never exported)`,
          );
          continue;
        }
        headers[name] = isSecretRef(value) ? '***' : value;
        masked[name] = { secret: true };
      }
      if (Object.keys(headers).length) {
        sent.headers = headers;
        cmp.headers = masked;
      }
      if (hook.payload !== undefined) sent.payload = cmp.payload = hook.payload;
      send[list].push(sent);
      compare[list].push(cmp);
    });
  }
  return { send, compare, warnings };
}

type Fields<T> = ReadonlyArray<keyof T & string>;

/** What apply compares of a test case: its fields but `folder`, which is part of its identity. */
const TEST_CASE_UPDATE_FIELDS: Fields<TestCaseSpec> = TEST_CASE_FIELDS.filter((f) => f !== 'folder');

function differing<T extends object>(fields: Fields<T>, a: T, b: T): string[] {
  return fields.filter((f) => !sameValue(a[f], b[f]));
}

/**
 * The fields in which `desired` differs from `current` (same kind and identity), and the warnings
 * about secrets it cannot set.
 */
export function changedFields(
  desired: ResourceSpec,
  current: ResourceSpec | undefined,
): { fields: string[]; warnings: string[] } {
  switch (desired.kind) {
    case 'Environment': {
      const now = current as EnvironmentSpec | undefined;
      const vars = environmentVariableChanges(desired, now);
      if (!now) return { fields: [], warnings: vars.warnings };
      const fields: string[] = [];
      if (desired.description !== now.description) fields.push('description');
      if (Object.keys(vars.set).length || vars.remove.length) fields.push('variables');
      return { fields, warnings: vars.warnings };
    }
    case 'TestCase':
      return {
        fields: current ? differing(TEST_CASE_UPDATE_FIELDS, desired, current as TestCaseSpec) : [],
        warnings: [],
      };
    case 'Runner':
      return { fields: current ? differing(RUNNER_FIELDS, desired, current as RunnerSpec) : [], warnings: [] };
    case 'Deployment': {
      const now = current as DeploymentSpec | undefined;
      const hooks = deploymentWebhooks(desired, now);
      if (!now) return { fields: [], warnings: hooks.warnings };
      const fields = differing(DEPLOYMENT_FIELDS, { ...desired, webhooks: hooks.compare }, now);
      return { fields, warnings: hooks.warnings };
    }
  }
}

/**
 * The plan for making the workspace (`current`) match the files (`desired`). Problems (two files
 * for one resource, a runner listing a test case that will not exist, a deployment naming a runner
 * or environment that will not exist) are reported instead of acted on: a plan with problems must
 * not be applied.
 */
export function computePlan(desired: DesiredResource[], current: CurrentResource[], options: PlanOptions = {}): Plan {
  const plan: Plan = { actions: [], unchanged: 0, kept: [], warnings: [], problems: [] };
  const wanted = new Map<string, DesiredResource>();
  for (const d of desired) {
    const key = resourceKey(d.spec);
    const first = wanted.get(key);
    if (first) {
      plan.problems.push({
        file: d.file,
        message: `describes ${resourceLabel(d.spec)}, as ${first.file} does; keep one file per resource`,
      });
      continue;
    }
    wanted.set(key, d);
  }
  const existing = new Map(current.map((c) => [resourceKey(c.spec), c]));

  const byKind = (kind: Kind) =>
    [...wanted.values()]
      .filter((d) => d.spec.kind === kind)
      .sort((a, b) => resourceLabel(a.spec).localeCompare(resourceLabel(b.spec)));
  for (const kind of KIND_ORDER) {
    for (const d of byKind(kind)) {
      const key = resourceKey(d.spec);
      const now = existing.get(key);
      const { fields, warnings } = changedFields(d.spec, now?.spec);
      plan.warnings.push(...warnings);
      const base = { kind, key, label: resourceLabel(d.spec), file: d.file, desired: d.spec, current: now };
      if (!now) plan.actions.push({ ...base, op: 'create', fields: [] });
      else if (fields.length) plan.actions.push({ ...base, op: 'update', fields });
      else plan.unchanged += 1;
    }
  }
  const unwanted = current.filter((c) => !wanted.has(resourceKey(c.spec)));
  if (options.prune) {
    for (const kind of [...KIND_ORDER].reverse()) {
      for (const c of unwanted
        .filter((u) => u.spec.kind === kind)
        .sort((a, b) => resourceLabel(a.spec).localeCompare(resourceLabel(b.spec)))) {
        plan.actions.push({
          op: 'delete',
          kind,
          key: resourceKey(c.spec),
          label: resourceLabel(c.spec),
          fields: [],
          current: c,
        });
      }
    }
  } else {
    plan.kept = unwanted.map((c) => resourceLabel(c.spec)).sort();
  }
  plan.problems.push(...referenceProblems(wanted, current, options));
  return plan;
}

/** References that would point at nothing once the plan is applied. */
function referenceProblems(
  wanted: Map<string, DesiredResource>,
  current: CurrentResource[],
  options: PlanOptions,
): FileProblem[] {
  const problems: FileProblem[] = [];
  // What will exist afterwards: every file's resource, and the workspace's others unless pruned.
  const after: ResourceSpec[] = [
    ...[...wanted.values()].map((d) => d.spec),
    ...(options.prune ? [] : current.map((c) => c.spec).filter((s) => !wanted.has(resourceKey(s)))),
  ];
  const refs = new Map<string, number>();
  for (const s of after) if (s.kind === 'TestCase') refs.set(testCaseRef(s), (refs.get(testCaseRef(s)) ?? 0) + 1);
  const names = (kind: Kind) => new Set(after.filter((s) => s.kind === kind).map((s) => s.name));
  const runners = names('Runner');
  const environments = names('Environment');
  const where = options.prune ? 'in the directory' : 'in the directory or the workspace';
  for (const d of wanted.values()) {
    if (d.spec.kind === 'Runner') {
      d.spec.testCases.forEach((ref, i) => {
        const n = refs.get(ref) ?? 0;
        if (n === 0)
          problems.push({
            file: d.file,
            field: `testCases[${i}]`,
            message: `no test case "${ref}" ${where} (write it as folder/name)`,
          });
        else if (n > 1)
          problems.push({
            file: d.file,
            field: `testCases[${i}]`,
            message: `"${ref}" names ${n} test cases (a name containing "/" is ambiguous); rename one`,
          });
      });
    }
    if (d.spec.kind === 'Deployment') {
      if (!runners.has(d.spec.runner))
        problems.push({ file: d.file, field: 'runner', message: `no runner "${d.spec.runner}" ${where}` });
      if (!environments.has(d.spec.environment))
        problems.push({
          file: d.file,
          field: 'environment',
          message: `no environment "${d.spec.environment}" ${where}`,
        });
    }
  }
  return problems;
}

/** The text of a plan action: `+ create environment staging`, `~ update test case users/get user (flow, tags)`. */
export function describeAction(a: PlanAction): string {
  const sign = { create: '+', update: '~', delete: '-' }[a.op];
  return `${sign} ${a.op} ${a.label}${a.op === 'update' ? ` (${a.fields.join(', ')})` : ''}`;
}

/**
 * The plan as lines (docs/tests-as-files.md "Plan"), in apply order: uploads of workspace files
 * (`files`, cli/gitops/file-sync.ts), then `plan`'s actions, then deletes of workspace files; the
 * unchanged and kept counts and the totals count both. `dir` names the directory in the
 * no-change line.
 */
export function renderPlan(plan: Plan, dir: string, files?: FilePlan): string[] {
  const lines = [
    ...(files?.uploads ?? []).map(describeFileAction),
    ...plan.actions.map(describeAction),
    ...(files?.deletes ?? []).map(describeFileAction),
  ];
  const ops = [...plan.actions, ...(files?.uploads ?? []), ...(files?.deletes ?? [])].map((a) => a.op);
  const count = (op: PlanAction['op']) => ops.filter((o) => o === op).length;
  const unchanged = plan.unchanged + (files?.unchanged ?? 0);
  const kept = [...plan.kept, ...(files?.kept ?? [])];
  if (unchanged) lines.push(`= ${unchanged} unchanged`);
  if (kept.length) lines.push(`= ${kept.length} without a file, kept (--prune deletes them): ${kept.join(', ')}`);
  if (ops.length === 0) lines.push(`No changes: the workspace matches ${dir}.`);
  else lines.push(`Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete.`);
  return lines;
}
