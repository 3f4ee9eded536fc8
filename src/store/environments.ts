/**
 * Environments that inherit (docs/reuse.md "Environments that inherit"): an environment may name
 * another of its workspace in `extends`; it then holds its parent's variables (secrets included)
 * and servers, overridden by its own, and the parent those of its own parent, and so on up to
 * {@link MAX_EXTENDS_DEPTH} environments.
 *
 * - Saving checks the chain ({@link extendsProblem}): the parent exists, no cycle (an environment
 *   extending itself, or A → B → A), and no chain longer than the bound, also for the environments
 *   that extend the one saved.
 * - A run freezes the merged view into its plan ({@link resolvedEnvironment}, used by
 *   activities/runs.ts `startRun` and api/run-starter.ts), the root's values first, each child's
 *   over them; secrets stay sealed as stored.
 * - The API shows which values came from which ancestor ({@link mergeEnvironmentChain}'s origins).
 */
import type { EntityManager } from 'typeorm';
import type { Variables } from '../domain/types';
import { Environment } from './entities';

/**
 * Environments one chain may hold at most, the environment itself included (an environment, its
 * parent, … up to the root): 10.
 */
export const MAX_EXTENDS_DEPTH = 10;

/** What an environment contributes to a merge. */
export type ChainLink = Pick<Environment, 'name' | 'variables'> & { servers?: Record<string, string> | null };

/** The merged view of a chain, and where each value came from. */
export interface MergedEnvironment {
  /** Variables, the root's first, each child's over them (secrets as stored: sealed). */
  variables: Variables;
  /** Servers, merged the same way. */
  servers: Record<string, string>;
  /** For each variable, the name of the environment whose value won. */
  variableFrom: Record<string, string>;
  /** For each server, the name of the environment whose value won. */
  serverFrom: Record<string, string>;
}

/** Merges `chain` (root first, the environment itself last): a child overrides its parent. Pure. */
export function mergeEnvironmentChain(chain: ChainLink[]): MergedEnvironment {
  const out: MergedEnvironment = { variables: {}, servers: {}, variableFrom: {}, serverFrom: {} };
  for (const env of chain) {
    for (const [name, value] of Object.entries(env.variables ?? {})) {
      out.variables[name] = value;
      out.variableFrom[name] = env.name;
    }
    for (const [name, url] of Object.entries(env.servers ?? {})) {
      out.servers[name] = url;
      out.serverFrom[name] = env.name;
    }
  }
  return out;
}

/**
 * Why environment `name` may not extend `parent`, or undefined when it may. `links` maps every
 * environment of the workspace to the name it extends (or null), the one saved included under
 * `name` with its new parent (and absent under a former name). Checks: the parent exists, no cycle,
 * and every chain through `name` (its ancestors, itself, its longest line of descendants) holds at
 * most {@link MAX_EXTENDS_DEPTH} environments. Pure.
 */
export function extendsProblem(
  links: ReadonlyMap<string, string | null>,
  name: string,
  parent: string | null,
): string | undefined {
  if (parent === null) return descendantsProblem(links, name, 1);
  if (parent === name) return `"${name}" cannot extend itself`;
  if (!links.has(parent)) return `no environment named "${parent}" in this workspace`;
  const path = [name, parent];
  let at: string | null = links.get(parent) ?? null;
  while (at !== null) {
    path.push(at);
    if (at === name) return `would make a cycle: ${path.join(' → ')}`;
    if (path.length > MAX_EXTENDS_DEPTH + 1) break;
    at = links.get(at) ?? null;
  }
  const above = path.length - 1;
  if (above + 1 > MAX_EXTENDS_DEPTH)
    return `makes a chain of more than ${MAX_EXTENDS_DEPTH} environments (${path.slice(0, MAX_EXTENDS_DEPTH + 1).join(' → ')}…)`;
  return descendantsProblem(links, name, above + 1);
}

/** The problem when `name` (at `depth` in its chain, 1 for a root) has descendants past the bound. */
function descendantsProblem(
  links: ReadonlyMap<string, string | null>,
  name: string,
  depth: number,
): string | undefined {
  const children = new Map<string, string[]>();
  for (const [child, parent] of links) {
    if (parent === null) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  // The longest line below `name`, guarded against cycles other saves could not have made.
  const longest = (at: string, seen: Set<string>): string[] => {
    let best: string[] = [];
    for (const child of children.get(at) ?? []) {
      if (seen.has(child)) continue;
      const line = [child, ...longest(child, new Set([...seen, child]))];
      if (line.length > best.length) best = line;
    }
    return best;
  };
  const below = longest(name, new Set([name]));
  if (depth + below.length <= MAX_EXTENDS_DEPTH) return undefined;
  return `makes a chain of more than ${MAX_EXTENDS_DEPTH} environments (${[...below].reverse().join(' → ')} → ${name}…)`;
}

/** Every environment of the workspace → the name it extends (or null). */
export async function extendsLinks(manager: EntityManager, workspaceId: string): Promise<Map<string, string | null>> {
  const rows = await manager
    .getRepository(Environment)
    .find({ select: { name: true, extends: true }, where: { workspaceId } });
  return new Map(rows.map((r) => [r.name, r.extends ?? null]));
}

/** Names of the environments of the workspace that extend `name`, sorted. */
export async function childrenOf(manager: EntityManager, workspaceId: string, name: string): Promise<string[]> {
  const rows = await manager
    .getRepository(Environment)
    .find({ select: { name: true }, where: { workspaceId, extends: name }, order: { name: 'ASC' } });
  return rows.map((r) => r.name);
}

/** A chain that cannot be followed when a run starts (a parent deleted or renamed meanwhile, a cycle). */
export class EnvironmentChainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvironmentChainError';
  }
}

/**
 * `environment`'s chain, root first, the environment itself last.
 * @throws EnvironmentChainError when a parent is missing, the chain loops or is longer than
 *   {@link MAX_EXTENDS_DEPTH}
 */
export async function environmentChain(manager: EntityManager, environment: Environment): Promise<Environment[]> {
  const chain = [environment];
  const repo = manager.getRepository(Environment);
  let parent = environment.extends ?? null;
  while (parent !== null) {
    if (chain.some((e) => e.name === parent))
      throw new EnvironmentChainError(
        `Environment "${environment.name}" extends a cycle: ${[...chain.map((e) => e.name), parent].join(' → ')}`,
      );
    if (chain.length >= MAX_EXTENDS_DEPTH)
      throw new EnvironmentChainError(
        `Environment "${environment.name}" extends a chain of more than ${MAX_EXTENDS_DEPTH} environments`,
      );
    const next = await repo.findOneBy({ workspaceId: environment.workspaceId, name: parent });
    if (!next)
      throw new EnvironmentChainError(
        `Environment "${chain[chain.length - 1]!.name}" extends "${parent}", which no longer exists`,
      );
    chain.push(next);
    parent = next.extends ?? null;
  }
  return chain.reverse();
}

/**
 * The merged view of `environment` through its `extends` chain (what a run freezes).
 * @throws EnvironmentChainError (see {@link environmentChain})
 */
export async function resolvedEnvironment(
  manager: EntityManager,
  environment: Environment,
): Promise<MergedEnvironment> {
  if (!environment.extends) return mergeEnvironmentChain([environment]);
  return mergeEnvironmentChain(await environmentChain(manager, environment));
}
