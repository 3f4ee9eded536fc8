/**
 * Tests as files (docs/tests-as-files.md): the resources `assay export` writes and
 * `assay apply` reads, in one normalised shape per kind, whether they come from a YAML file or from
 * the REST API. Normalised means: every field present with its server default, folders and tags in
 * the server's canonical form, flow nodes carrying the ids the server would give them, so that two
 * specs describe the same resource exactly when {@link sameValue} says so.
 *
 * Pure: no I/O here (files: cli/gitops/format.ts; the API: cli/gitops/workspace.ts).
 */
import { normaliseFolder } from '../../src/domain/folders';

/** The four kinds a file may hold; the `kind:` line of every file. */
export const KINDS = ['Environment', 'TestCase', 'Runner', 'Deployment'] as const;
export type Kind = (typeof KINDS)[number];

/** Apply order (creates and updates); deletes run in the reverse order. */
export const KIND_ORDER: readonly Kind[] = KINDS;

/** The folder under the export directory of each kind. */
export const KIND_FOLDER: Record<Kind, string> = {
  Environment: 'environments',
  TestCase: 'test-cases',
  Runner: 'runners',
  Deployment: 'deployments',
};

/** How a kind is named in plan lines and messages (`test case users/get user`). */
export const KIND_LABEL: Record<Kind, string> = {
  Environment: 'environment',
  TestCase: 'test case',
  Runner: 'runner',
  Deployment: 'deployment',
};

/** Runner orders the API accepts (api/routes/runners.ts, src/store/entities/runner.ts RUNNER_ORDERS). */
export const RUNNER_ORDERS = ['name', 'createdAt'] as const;
export type RunnerOrder = (typeof RUNNER_ORDERS)[number];
import { DURABILITIES, VARIABLE_SCOPES, type Durability, type VariableScope } from '../../src/domain/types';
export { DURABILITIES, VARIABLE_SCOPES, type Durability, type VariableScope };

/** Names of environments, runners and deployments (api/routes/shared.ts NAME_PATTERN). */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/**
 * A value kept out of files: `{secret: true}` stands for an environment variable or an outgoing
 * webhook header whose value is never written to (or applied from) a file.
 */
export interface SecretRef {
  secret: true;
}

/** Variable values an environment holds (api/routes/shared.ts variablesSchema). */
export type Scalar = string | number | boolean;

/**
 * Variable names treated as secrets: case-insensitive, anywhere in the name.
 * Their values are exported as `{secret: true}` and apply never sets, changes or deletes them.
 */
export const SECRET_NAME = /secret|token|password|passwd|pwd|api[-_]?key|apikey|auth|credential|private/i;

/** True when `name` looks like it holds a secret ({@link SECRET_NAME}). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** True when `value` is the `{secret: true}` placeholder. */
export function isSecretRef(value: unknown): value is SecretRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    (value as { secret?: unknown }).secret === true &&
    Object.keys(value).length === 1
  );
}

export interface EnvironmentSpec {
  kind: 'Environment';
  name: string;
  description: string;
  /** Variable names to values; a secret one reads `{secret: true}`. */
  variables: Record<string, Scalar | SecretRef>;
}

export interface TestCaseSpec {
  kind: 'TestCase';
  name: string;
  /** Normalised folder path (`users/admin`; '' is the top level). */
  folder: string;
  description: string;
  /** Sorted, without duplicates. */
  tags: string[];
  /** A shared step run by Ref nodes: runners select it only by id (docs/reuse.md "Sub-flows"). */
  reusable: boolean;
  /** Flow nodes (docs/flows.md), every node with an id. */
  flow: unknown[];
  dataSets: unknown[];
  /** Hooks around each of its API nodes (`{code, libs?}`, docs/flows.md "Hooks at three levels"); absent when none. */
  hooks?: { code: string; libs?: string[] };
  /** Its auth profile's name, or `none` (docs/auth.md); null when it names none. */
  authProfile: string | null;
}

export interface RunnerSpec {
  kind: 'Runner';
  name: string;
  description: string;
  /** Test cases listed by reference (`folder/name`, or `name` at the top level), run first in this order. */
  testCases: string[];
  /** Folder selection; '' is every folder, null none. */
  folder: string | null;
  /** Tag selection, sorted. */
  tags: string[];
  order: RunnerOrder;
  loadProfile: Record<string, unknown> | null;
  /** Whether its test cases share variables in a run (docs/flows.md "Variables across test cases"). */
  variableScope: VariableScope;
  /** How its runs are made durable (docs/durability.md "Durability modes"): `node` (default) or `testCase`. */
  durability: Durability;
  /** Its auth profile's name, or `none` (docs/auth.md); null when it names none. */
  authProfile: string | null;
  /** The run its runs compare with (docs/history.md "Baselines"): `lastPassing` or a run id; null when it sets none. */
  baseline: string | null;
  /** Whether failures of test cases flagged flaky do not fail its runs (docs/history.md "Quarantine"). */
  quarantineFlaky: boolean;
}

/** One outgoing webhook of a deployment (docs/deployments.md). */
export interface WebhookSpec {
  url: string;
  method?: string;
  /** Header names to values; values the server never reveals read `{secret: true}`. */
  headers?: Record<string, string | SecretRef>;
  payload?: unknown;
}

export interface DeploymentSpec {
  kind: 'Deployment';
  name: string;
  runner: string;
  environment: string;
  schedule: string | null;
  timezone: string;
  enabled: boolean;
  webhookEnabled: boolean;
  webhookRequireAuth: boolean;
  webhooks: { onComplete: WebhookSpec[]; onFailure: WebhookSpec[] };
  loadProfile: Record<string, unknown> | null;
  /** Its runs' durability mode over the runner's (docs/durability.md "Durability modes"); null: the runner's. */
  durability: Durability | null;
}

export type ResourceSpec = EnvironmentSpec | TestCaseSpec | RunnerSpec | DeploymentSpec;

/**
 * The fields of a test case, runner and deployment besides `kind` and `name`, in the order a file
 * writes them: the fields a file may hold (format.ts) and, but for a test case's `folder` (part of
 * its identity, {@link resourceKey}), the fields apply compares and updates (plan.ts).
 */
export const TEST_CASE_FIELDS = [
  'folder',
  'description',
  'tags',
  'reusable',
  'authProfile',
  'dataSets',
  'hooks',
  'flow',
] as const satisfies ReadonlyArray<keyof TestCaseSpec>;
export const RUNNER_FIELDS = [
  'description',
  'folder',
  'tags',
  'order',
  'variableScope',
  'durability',
  'authProfile',
  'baseline',
  'quarantineFlaky',
  'testCases',
  'loadProfile',
] as const satisfies ReadonlyArray<keyof RunnerSpec>;
export const DEPLOYMENT_FIELDS = [
  'runner',
  'environment',
  'schedule',
  'timezone',
  'enabled',
  'webhookEnabled',
  'webhookRequireAuth',
  'webhooks',
  'loadProfile',
  'durability',
] as const satisfies ReadonlyArray<keyof DeploymentSpec>;

/** A test case's reference as runners list it: `folder/name`, or `name` at the top level. */
export function testCaseRef(tc: Pick<TestCaseSpec, 'folder' | 'name'>): string {
  return tc.folder ? `${tc.folder}/${tc.name}` : tc.name;
}

/**
 * The identity of a resource within a workspace: kind and name, and for a test case its folder too
 * (names are unique per folder). Two specs with the same key are the same resource.
 */
export function resourceKey(spec: Pick<ResourceSpec, 'kind' | 'name'> & { folder?: string | null }): string {
  return spec.kind === 'TestCase' ? `TestCase:${spec.folder ?? ''}\u0000${spec.name}` : `${spec.kind}:${spec.name}`;
}

/** `environment staging`, `test case users/get user`. */
export function resourceLabel(spec: Pick<ResourceSpec, 'kind' | 'name'> & { folder?: string | null }): string {
  const name = spec.kind === 'TestCase' ? testCaseRef({ folder: spec.folder ?? '', name: spec.name }) : spec.name;
  return `${KIND_LABEL[spec.kind]} ${name}`;
}

/** Sorted, duplicates removed. */
export function sortedSet(items: readonly string[]): string[] {
  return [...new Set(items)].sort();
}

/**
 * JSON text of `value` with object keys sorted at every level (and `undefined` members dropped), so
 * that two values differing only in key order compare equal.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, (v as Record<string, unknown>)[k]]),
      );
    }
    return v;
  });
}

/** Deep equality that ignores the order of object keys (not of array items). */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** A test case as `GET /v1/test-cases` answers it (api/routes/test-cases.ts testCaseJson). */
export interface TestCaseJson {
  id: string;
  name: string;
  folder: string;
  description?: string;
  tags?: string[];
  reusable?: boolean;
  flow: unknown[];
  dataSets?: unknown[] | null;
  hooks?: { code: string; libs?: string[] } | null;
  authProfile?: string | null;
}

/** An environment as the API answers it to a `run` or `write` key. */
export interface EnvironmentJson {
  id?: string;
  name: string;
  description?: string;
  /** Plain values, and secrets as answered (`{"secret": true, "value": "***"}`). */
  variables?: Record<string, Scalar | { secret: true; value: string }>;
}

/** A runner as the API answers it (api/routes/runners.ts runnerJson). */
export interface RunnerJson {
  id?: string;
  name: string;
  description?: string;
  testCaseIds?: string[];
  folder?: string | null;
  tags?: string[];
  order?: RunnerOrder;
  loadProfile?: Record<string, unknown> | null;
  variableScope?: VariableScope;
  durability?: Durability;
  authProfile?: string | null;
  baseline?: string | null;
  quarantineFlaky?: boolean;
}

/** A deployment as the API answers it (api/routes/deployments.ts; header values read `"***"`). */
export interface DeploymentJson {
  id: string;
  name: string;
  runner: string;
  environment: string;
  schedule?: string | null;
  timezone?: string;
  enabled?: boolean;
  webhookEnabled?: boolean;
  webhookRequireAuth?: boolean;
  webhooks?: { onComplete?: WebhookJson[]; onFailure?: WebhookJson[] } | null;
  loadProfile?: Record<string, unknown> | null;
  durability?: Durability | null;
}

/** An outgoing webhook entry as stored (src/store/entities/deployment.ts OutgoingWebhook). */
export interface WebhookJson {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  payload?: unknown;
}

/**
 * The environment `e` as a spec: variables whose name looks secret, and secret variables (the API
 * answers them `{"secret": true, "value": "***"}`, docs/secrets.md), become `{secret: true}`.
 */
export function environmentFromApi(e: EnvironmentJson): EnvironmentSpec {
  const variables: Record<string, Scalar | SecretRef> = {};
  for (const name of Object.keys(e.variables ?? {}).sort()) {
    const value = e.variables![name]! as unknown;
    // A secret variable (answered `{secret: true, value: "***"}`, docs/secrets.md) or a name that looks secret.
    const secret =
      isSecretName(name) ||
      (typeof value === 'object' && value !== null && (value as { secret?: unknown }).secret === true);
    variables[name] = secret ? { secret: true } : (value as Scalar);
  }
  return { kind: 'Environment', name: e.name, description: e.description ?? '', variables };
}

/** The test case `tc` as a spec. */
export function testCaseFromApi(tc: TestCaseJson): TestCaseSpec {
  return {
    kind: 'TestCase',
    name: tc.name,
    folder: normaliseFolder(tc.folder ?? ''),
    description: tc.description ?? '',
    tags: sortedSet(tc.tags ?? []),
    reusable: tc.reusable ?? false,
    flow: tc.flow ?? [],
    dataSets: tc.dataSets ?? [],
    ...(tc.hooks ? { hooks: tc.hooks } : {}),
    authProfile: tc.authProfile ?? null,
  };
}

/**
 * The runner `r` as a spec, its test case ids turned into references with `refOf` (an id it does
 * not know stays an id; the server forgets deleted test cases, so that does not happen).
 */
export function runnerFromApi(r: RunnerJson, refOf: (id: string) => string | undefined): RunnerSpec {
  return {
    kind: 'Runner',
    name: r.name,
    description: r.description ?? '',
    testCases: (r.testCaseIds ?? []).map((id) => refOf(id) ?? id),
    folder: r.folder === undefined || r.folder === null ? null : normaliseFolder(r.folder),
    tags: sortedSet(r.tags ?? []),
    order: r.order ?? 'name',
    loadProfile: r.loadProfile ?? null,
    variableScope: r.variableScope ?? 'testCase',
    durability: r.durability ?? 'node',
    authProfile: r.authProfile ?? null,
    baseline: r.baseline ?? null,
    quarantineFlaky: r.quarantineFlaky ?? false,
  };
}

function webhookFromApi(w: WebhookJson): WebhookSpec {
  const out: WebhookSpec = { url: w.url };
  if (w.method !== undefined) out.method = w.method;
  if (w.headers && Object.keys(w.headers).length) {
    // The API never answers header values (api/secrets.ts maskWebhookHeaders).
    out.headers = Object.fromEntries(
      Object.keys(w.headers)
        .sort()
        .map((k) => [k, { secret: true } as SecretRef]),
    );
  }
  if (w.payload !== undefined) out.payload = w.payload;
  return out;
}

/** The deployment `d` as a spec (never its webhook token or signing secret; header values as `{secret: true}`). */
export function deploymentFromApi(d: DeploymentJson): DeploymentSpec {
  return {
    kind: 'Deployment',
    name: d.name,
    runner: d.runner,
    environment: d.environment,
    schedule: d.schedule ?? null,
    timezone: d.timezone ?? 'UTC',
    enabled: d.enabled ?? true,
    webhookEnabled: d.webhookEnabled ?? false,
    webhookRequireAuth: d.webhookRequireAuth ?? true,
    webhooks: {
      onComplete: (d.webhooks?.onComplete ?? []).map(webhookFromApi),
      onFailure: (d.webhooks?.onFailure ?? []).map(webhookFromApi),
    },
    loadProfile: d.loadProfile ?? null,
    durability: d.durability ?? null,
  };
}
