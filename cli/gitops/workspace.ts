/**
 * The API side of tests as files: reading a workspace's environments, test cases, runners and
 * deployments as specs (cli/gitops/model.ts), and carrying out one plan action with the REST API
 * (docs/api.md "Environments", "Test cases", "Runners"; docs/deployments.md):
 *
 * | kind | create | update | delete |
 * |---|---|---|---|
 * | environment | POST /v1/environments | PATCH (merge patch: managed variables only; secrets untouched) | DELETE /v1/environments/{name} |
 * | test case | POST /v1/test-cases | PUT /v1/test-cases/{id} | DELETE /v1/test-cases/{id} |
 * | runner | POST /v1/runners | PUT /v1/runners/{name} | DELETE /v1/runners/{name} |
 * | deployment | POST /v1/deployments | PATCH /v1/deployments/{id} (the fields that differ) | DELETE /v1/deployments/{id} |
 *
 * Runners name test cases by `folder/name` in files and by id in the API; {@link RefIndex} turns
 * one into the other, and learns the ids of test cases as they are created.
 */
import {
  deploymentFromApi,
  environmentFromApi,
  resourceLabel,
  runnerFromApi,
  testCaseFromApi,
  testCaseRef,
  type DeploymentJson,
  type DeploymentSpec,
  type EnvironmentJson,
  type EnvironmentSpec,
  type RunnerJson,
  type RunnerSpec,
  type TestCaseJson,
  type TestCaseSpec,
} from './model';
import { deploymentWebhooks, environmentVariableChanges, type CurrentResource, type PlanAction } from './plan';

/** The part of the CLI's API client (cli/client.ts AssayClient) this module uses. */
export interface ApiClient {
  request<T>(method: string, path: string, options?: { body?: unknown }): Promise<T>;
  listAll<T>(path: string): Promise<T[]>;
}

/** Test case references (`folder/name`) to ids, for runners. */
export class RefIndex {
  private readonly ids = new Map<string, string>();

  /** Remembers that `ref` is the test case `id`. */
  set(ref: string, id: string): void {
    this.ids.set(ref, id);
  }

  delete(ref: string): void {
    this.ids.delete(ref);
  }

  /** The id of `ref`; @throws Error when unknown (the plan checked references first, so it is a bug). */
  id(ref: string): string {
    const id = this.ids.get(ref);
    if (!id) throw new Error(`no test case "${ref}" in the workspace`);
    return id;
  }
}

/** A workspace as specs, with the reference index for its test cases. */
export interface WorkspaceState {
  resources: CurrentResource[];
  refs: RefIndex;
  /** Runner test case ids whose `folder/name` is shared by two test cases: labels of runners that list them. */
  ambiguous: string[];
}

const enc = encodeURIComponent;

/** Reads every environment, test case, runner and deployment of the key's workspace. */
export async function fetchWorkspace(client: ApiClient): Promise<WorkspaceState> {
  const environments = await client.listAll<EnvironmentJson>('/v1/environments');
  const testCases = await client.listAll<TestCaseJson>('/v1/test-cases');
  const runners = await client.listAll<RunnerJson>('/v1/runners');
  const deployments = await client.listAll<DeploymentJson>('/v1/deployments');
  const refs = new RefIndex();
  const refById = new Map<string, string>();
  const refCount = new Map<string, number>();
  const resources: CurrentResource[] = environments.map((e) => ({ spec: environmentFromApi(e) }));
  for (const tc of testCases) {
    const spec = testCaseFromApi(tc);
    const ref = testCaseRef(spec);
    refs.set(ref, tc.id);
    refById.set(tc.id, ref);
    refCount.set(ref, (refCount.get(ref) ?? 0) + 1);
    resources.push({ spec, id: tc.id });
  }
  const ambiguous: string[] = [];
  for (const r of runners) {
    const spec = runnerFromApi(r, (id) => refById.get(id));
    if (spec.testCases.some((ref) => (refCount.get(ref) ?? 0) > 1)) ambiguous.push(resourceLabel(spec));
    resources.push({ spec });
  }
  for (const d of deployments) resources.push({ spec: deploymentFromApi(d), id: d.id });
  return { resources, refs, ambiguous };
}

function testCaseBody(s: TestCaseSpec) {
  return {
    name: s.name,
    folder: s.folder,
    description: s.description,
    tags: s.tags,
    reusable: s.reusable,
    flow: s.flow,
    dataSets: s.dataSets,
    // PUT replaces: absent hooks are removed on the server, as the file says.
    ...(s.hooks ? { hooks: s.hooks } : {}),
    authProfile: s.authProfile,
  };
}

function runnerBody(s: RunnerSpec, refs: RefIndex) {
  return {
    name: s.name,
    description: s.description,
    testCaseIds: s.testCases.map((ref) => refs.id(ref)),
    folder: s.folder,
    tags: s.tags,
    order: s.order,
    loadProfile: s.loadProfile,
    variableScope: s.variableScope,
    durability: s.durability,
    authProfile: s.authProfile,
    baseline: s.baseline,
    quarantineFlaky: s.quarantineFlaky,
  };
}

/** The body creating `s`, or (with `fields`) updating `current` to it: only those fields. */
function deploymentBody(s: DeploymentSpec, current?: DeploymentSpec, fields?: string[]): Record<string, unknown> {
  const all: Record<string, unknown> = {
    name: s.name,
    runner: s.runner,
    environment: s.environment,
    schedule: s.schedule,
    timezone: s.timezone,
    enabled: s.enabled,
    webhookEnabled: s.webhookEnabled,
    webhookRequireAuth: s.webhookRequireAuth,
    webhooks: deploymentWebhooks(s, current).send,
    loadProfile: s.loadProfile,
    durability: s.durability,
  };
  if (!fields) return all;
  return Object.fromEntries(fields.map((f) => [f, all[f]]));
}

/**
 * Carries out one plan action with the API. Creating a test case teaches `refs` its id; deleting
 * one forgets it. @throws ApiProblem / UnreachableError from the client as they come.
 */
export async function applyAction(client: ApiClient, action: PlanAction, refs: RefIndex): Promise<void> {
  const current = action.current;
  if (action.op === 'delete') {
    const spec = current!.spec;
    switch (spec.kind) {
      case 'Environment':
        return void (await client.request('DELETE', `/v1/environments/${enc(spec.name)}`));
      case 'TestCase':
        await client.request('DELETE', `/v1/test-cases/${enc(current!.id!)}`);
        return refs.delete(testCaseRef(spec));
      case 'Runner':
        return void (await client.request('DELETE', `/v1/runners/${enc(spec.name)}`));
      case 'Deployment':
        return void (await client.request('DELETE', `/v1/deployments/${enc(current!.id!)}`));
    }
  }
  const spec = action.desired!;
  const create = action.op === 'create';
  switch (spec.kind) {
    case 'Environment': {
      const changes = environmentVariableChanges(spec, current?.spec as EnvironmentSpec | undefined);
      if (create) {
        await client.request('POST', '/v1/environments', {
          body: { name: spec.name, description: spec.description, variables: changes.set },
        });
        return;
      }
      const body: Record<string, unknown> = {};
      if (action.fields.includes('description')) body.description = spec.description;
      if (action.fields.includes('variables'))
        body.variables = { ...changes.set, ...Object.fromEntries(changes.remove.map((k) => [k, null])) };
      await client.request('PATCH', `/v1/environments/${enc(spec.name)}`, { body });
      return;
    }
    case 'TestCase': {
      if (create) {
        const made = await client.request<{ id: string }>('POST', '/v1/test-cases', { body: testCaseBody(spec) });
        refs.set(testCaseRef(spec), made.id);
      } else {
        await client.request('PUT', `/v1/test-cases/${enc(current!.id!)}`, { body: testCaseBody(spec) });
      }
      return;
    }
    case 'Runner':
      if (create) await client.request('POST', '/v1/runners', { body: runnerBody(spec, refs) });
      else await client.request('PUT', `/v1/runners/${enc(spec.name)}`, { body: runnerBody(spec, refs) });
      return;
    case 'Deployment':
      if (create) await client.request('POST', '/v1/deployments', { body: deploymentBody(spec) });
      else
        await client.request('PATCH', `/v1/deployments/${enc(current!.id!)}`, {
          body: deploymentBody(spec, current!.spec as DeploymentSpec, action.fields),
        });
      return;
  }
}
