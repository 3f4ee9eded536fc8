/**
 * Where auth profiles are named (docs/auth.md "Precedence"): API nodes' `authProfile` inside test
 * case flows, test cases' and runners' `authProfile` columns. Used to refuse a name that no profile
 * has when a test case or runner is saved, to answer 409 when a profile still named is deleted,
 * and to freeze the profiles a run uses into its plan.
 */
import { In, type EntityManager } from 'typeorm';
import { AUTH_NONE, type FrozenAuthProfile } from '../domain/auth-profiles';
import { fieldError, type FieldError } from '../problems';
import { AuthProfile, Folder, Runner, TestCase } from './entities';
import type { FlowNode } from '../domain/types';
import { forEachNode } from '../flow/tree';

/** One place a profile is named: the path of the field, the name. */
export interface ProfileRef {
  at: Array<string | number>;
  name: string;
}

/**
 * The `authProfile` of every API, Poll, WebSocket and SSE node of `flow` (nested nodes and Ref nodes' own flows included),
 * with their paths under `at`.
 */
export function profileRefsInFlow(flow: unknown, at: Array<string | number> = ['flow']): ProfileRef[] {
  const refs: ProfileRef[] = [];
  const walk = (nodes: FlowNode[], prefix: Array<string | number>) =>
    forEachNode(
      nodes,
      (node, path) => {
        if ((node.type === 'api' || node.type === 'poll') && typeof node.authProfile === 'string')
          refs.push({ at: [...path, 'authProfile'], name: node.authProfile });
        if ((node.type === 'websocket' || node.type === 'sse') && typeof node.authProfile === 'string')
          refs.push({ at: [...path, 'authProfile'], name: node.authProfile });
        // A clone's copy (or a sub-flow frozen into a plan) holds API nodes of its own.
        if (node.type === 'ref' && Array.isArray(node.flow)) walk(node.flow, [...path, 'flow']);
      },
      prefix,
    );
  if (Array.isArray(flow)) walk(flow as FlowNode[], at);
  return refs;
}

/** Field errors of the refs that name no profile of `workspaceId` (`none` is always allowed). */
export async function missingProfileErrors(
  manager: EntityManager,
  workspaceId: string,
  refs: ProfileRef[],
): Promise<FieldError[]> {
  const names = [...new Set(refs.map((r) => r.name).filter((n) => n !== AUTH_NONE))];
  if (!names.length) return [];
  const found = new Set(
    (await manager.getRepository(AuthProfile).findBy({ workspaceId, name: In(names) })).map((p) => p.name),
  );
  return refs
    .filter((r) => r.name !== AUTH_NONE && !found.has(r.name))
    .map((r) => fieldError(r.at, `names the auth profile "${r.name}", which does not exist (or "none")`));
}

/** The test cases (by their own column or an API node) and runners of `workspaceId` that name the profile `name`. */
export async function profileUsers(
  manager: EntityManager,
  workspaceId: string,
  name: string,
): Promise<{ testCases: Array<{ id: string; name: string }>; runners: string[]; folders: string[] }> {
  const testCases = (
    await manager
      .getRepository(TestCase)
      .createQueryBuilder('tc')
      .select(['tc.id', 'tc.name', 'tc.flow', 'tc.authProfile'])
      .where('tc.workspaceId = :workspaceId', { workspaceId })
      .getMany()
  )
    .filter((tc) => tc.authProfile === name || profileRefsInFlow(tc.flow).some((r) => r.name === name))
    .map((tc) => ({ id: tc.id, name: tc.name }));
  const runners = (await manager.getRepository(Runner).findBy({ workspaceId, authProfile: name })).map((r) => r.name);
  const folders = (await manager.getRepository(Folder).findBy({ workspaceId, authProfile: name })).map((f) => f.path);
  return { testCases, runners, folders };
}

/**
 * The profiles a run's plan uses: those its runner, its test cases, their folders and their API
 * nodes name, frozen by name; `missing` the names that no profile has (deleted since). Empty
 * `profiles` (and no runner profile) when the run names none: its plan stays as before.
 */
export async function profilesForPlan(
  manager: EntityManager,
  workspaceId: string,
  runnerProfile: string | null | undefined,
  testCases: Array<{ authProfile?: string; folderAuthProfile?: string; flow: unknown }>,
): Promise<{ profiles: Record<string, FrozenAuthProfile>; missing: string[]; named: boolean }> {
  const names = new Set<string>();
  if (runnerProfile) names.add(runnerProfile);
  for (const tc of testCases) {
    if (tc.authProfile) names.add(tc.authProfile);
    if (tc.folderAuthProfile) names.add(tc.folderAuthProfile);
    for (const ref of profileRefsInFlow(tc.flow)) names.add(ref.name);
  }
  const named = names.size > 0;
  names.delete(AUTH_NONE);
  const rows = names.size ? await manager.getRepository(AuthProfile).findBy({ workspaceId, name: In([...names]) }) : [];
  const profiles: Record<string, FrozenAuthProfile> = {};
  for (const p of rows) profiles[p.name] = { id: p.id, name: p.name, type: p.type, config: p.config };
  return { profiles, missing: [...names].filter((n) => !profiles[n]).sort(), named };
}
