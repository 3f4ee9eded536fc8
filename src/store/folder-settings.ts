/**
 * What folders add to the test cases filed under them when a run freezes its plan (docs/flows.md
 * "Hooks"): a folder applies to every test case at or below its path.
 */
import type { EntityManager } from 'typeorm';
import { Folder } from './entities';
import { normaliseFolder } from '../domain/folders';
import type { TestCaseDefinition } from '../domain/types';

/** Every folder resource of a workspace. */
export function workspaceFolders(manager: EntityManager, workspaceId: string): Promise<Folder[]> {
  return manager.getRepository(Folder).findBy({ workspaceId });
}

/** The folder paths a test case filed in `folder` is under, outermost first: `a/b` → `['a', 'a/b']`. */
export function folderChain(folder: string): string[] {
  const parts = normaliseFolder(folder).split('/').filter(Boolean);
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
}

/**
 * `definition` with its folders' settings: `folderHooks`, the hooks of the folders it is under that
 * have some, outermost first; `folderAuthProfile`, the auth profile of the nearest of them that sets
 * one. Each field only when there is something to put in it (plans stay as they were otherwise).
 */
export function withFolderSettings(definition: TestCaseDefinition, folders: Folder[]): TestCaseDefinition {
  if (folders.length === 0) return definition;
  const byPath = new Map(folders.map((f) => [f.path, f]));
  const chain = folderChain(definition.folder)
    .map((path) => byPath.get(path))
    .filter((f): f is Folder => f !== undefined);
  const folderHooks = chain.flatMap((f) => (f.hooks ? [f.hooks] : []));
  const folderAuthProfile = [...chain].reverse().find((f) => f.authProfile)?.authProfile ?? undefined;
  return {
    ...definition,
    ...(folderHooks.length > 0 ? { folderHooks } : {}),
    ...(folderAuthProfile ? { folderAuthProfile } : {}),
  };
}
