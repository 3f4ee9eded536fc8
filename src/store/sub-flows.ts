/**
 * Sub-flows (Ref nodes, docs/reuse.md "Sub-flows") against the store: what the test case routes
 * check when a flow is saved, what a run freezes into its plan when it starts, and which test cases
 * a deletion would leave dangling.
 *
 * - **Saved** (POST, PUT, PATCH of a test case): a `clone` without `flow` gets a copy of the
 *   referenced test case's flow ({@link fillClones}); every `ref` link must name a test case of the
 *   same workspace (another workspace's answers as a missing one does), must not lead back to the
 *   test case being saved through the stored links (A → A, A → B → A), and the nesting must stay
 *   within {@link MAX_SUB_FLOW_DEPTH} levels ({@link checkReferences}).
 * - **Frozen** (a run's `startRun`): every `ref` node gets the referenced test case's current flow,
 *   resolved the same way down to the last level, and `version` (its `updatedAt`); a reference
 *   deleted (or a cycle or depth made) since fails the run before it sends anything
 *   ({@link freezeSubFlows} throws {@link SubFlowReferenceError}).
 * - **Deleted**: {@link referencingTestCases} lists the test cases whose live links name it (the
 *   route answers 409 `test-case-referenced`). Clones are copies and do not hold their source.
 */
import type { EntityManager } from 'typeorm';
import { TestCase } from './entities';
import type { FlowNode, RefNode, TestCaseDefinition } from '../domain/types';
import { forEachRefNode, MAX_SUB_FLOW_DEPTH } from '../flow/sub-flows';
import { childLists } from '../flow/tree';

export { MAX_SUB_FLOW_DEPTH };

/** A problem with a Ref node of a flow being saved, at the path of the field at fault. */
export interface SubFlowIssue {
  /** `missing`: no such test case in the workspace; `cycle`; `depth`: nesting beyond {@link MAX_SUB_FLOW_DEPTH}. */
  kind: 'missing' | 'cycle' | 'depth';
  path: Array<string | number>;
  message: string;
}

/** Why a run's plan could not be frozen: a referenced test case deleted since it was saved, a cycle or too deep a nesting. */
export class SubFlowReferenceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubFlowReferenceError';
  }
}

type Stored = Pick<TestCase, 'id' | 'name' | 'flow' | 'updatedAt'>;

/** Loads test cases of one workspace by id, once each (null: none such in the workspace). */
function loader(manager: EntityManager, workspaceId: string): (id: string) => Promise<Stored | null> {
  const cache = new Map<string, Promise<Stored | null>>();
  return (id) => {
    let found = cache.get(id);
    if (!found) {
      found = manager
        .getRepository(TestCase)
        .findOne({ where: { id, workspaceId }, select: { id: true, name: true, flow: true, updatedAt: true } });
      cache.set(id, found);
    }
    return found;
  };
}

const quoted = (tc: Pick<TestCase, 'id' | 'name'>) => `"${tc.name}" (${tc.id})`;
const notFound = (id: string) => `no test case "${id}" exists in this workspace`;

/**
 * Fills every `clone` node without a `flow` (anywhere in `flow`, also in copies filled here) with a
 * copy of the referenced test case's stored flow, and its `name` with that test case's name when it
 * has none. Mutates `flow` (the request's own parsed body).
 *
 * @returns the issues (`missing`, at `…testCaseId`) and whether anything was copied.
 */
export async function fillClones(
  manager: EntityManager,
  workspaceId: string,
  flow: FlowNode[],
  prefix: Array<string | number> = ['flow'],
): Promise<{ issues: SubFlowIssue[]; filled: boolean }> {
  const load = loader(manager, workspaceId);
  const issues: SubFlowIssue[] = [];
  let filled = false;
  const pending: Array<{ node: RefNode; path: Array<string | number>; depth: number }> = [];
  forEachRefNode(flow, (at) => at.node.mode === 'clone' && at.node.flow === undefined && pending.push(at), {
    prefix,
    intoClones: true,
  });
  while (pending.length > 0) {
    const { node, path, depth } = pending.shift()!;
    if (depth > MAX_SUB_FLOW_DEPTH) continue; // checkReferences reports the depth
    const source = await load(node.testCaseId);
    if (!source) {
      issues.push({ kind: 'missing', path: [...path, 'testCaseId'], message: notFound(node.testCaseId) });
      continue;
    }
    node.flow = structuredClone(source.flow);
    if (node.name === undefined) node.name = source.name;
    filled = true;
    forEachRefNode(node.flow, (at) => at.node.mode === 'clone' && at.node.flow === undefined && pending.push(at), {
      prefix: [...path, 'flow'],
      intoClones: true,
      depth: depth + 1,
    });
  }
  return { issues, filled };
}

/**
 * Checks the live links (`mode: "ref"`) of a flow being saved, following the stored links of the
 * test cases they name transitively: each must name a test case of the workspace (`missing`), none
 * may lead back to `self` (`cycle`), and no chain may nest more than {@link MAX_SUB_FLOW_DEPTH}
 * levels (`depth`, also for clones inside clones). A dangling link further down (a race with a
 * deletion) is left to the check when a run starts.
 *
 * @param self the test case being saved (absent when it is being created: nothing refers to it yet).
 */
export async function checkReferences(
  manager: EntityManager,
  workspaceId: string,
  self: Pick<TestCase, 'id' | 'name'> | undefined,
  flow: FlowNode[],
  prefix: Array<string | number> = ['flow'],
): Promise<SubFlowIssue[]> {
  const load = loader(manager, workspaceId);
  const issues: SubFlowIssue[] = [];

  /**
   * Levels of sub-flows below a stored test case (0: it has no Ref node), following its links; the
   * names of a chain that reaches `self` when there is one. Stops past the bound.
   */
  const below = async (tc: Stored, chain: Stored[]): Promise<{ levels: number; cycle?: string[] }> => {
    const visits: Array<{ node: RefNode; depth: number }> = [];
    forEachRefNode(tc.flow ?? [], (at) => visits.push(at), { intoClones: true });
    let levels = 0;
    for (const { node, depth } of visits) {
      let total = depth;
      if (node.mode === 'ref') {
        if (self && node.testCaseId === self.id) return { levels, cycle: [...chain, tc].map((t) => t.name) };
        const next = await load(node.testCaseId);
        if (
          next &&
          chain.length + depth <= MAX_SUB_FLOW_DEPTH &&
          !chain.some((t) => t.id === next.id) &&
          next.id !== tc.id
        ) {
          const deeper = await below(next, [...chain, tc]);
          if (deeper.cycle) return deeper;
          total += deeper.levels;
        }
      }
      levels = Math.max(levels, total);
    }
    return { levels };
  };

  const visits: Array<{ node: RefNode; path: Array<string | number>; depth: number }> = [];
  forEachRefNode(flow, (at) => visits.push(at), { prefix, intoClones: true });
  for (const { node, path, depth } of visits) {
    let levels = depth;
    if (node.mode === 'ref') {
      const at = [...path, 'testCaseId'];
      if (self && node.testCaseId === self.id) {
        issues.push({ kind: 'cycle', path: at, message: `refers to this test case itself (${self.name}): a cycle` });
        continue;
      }
      const target = await load(node.testCaseId);
      if (!target) {
        issues.push({ kind: 'missing', path: at, message: notFound(node.testCaseId) });
        continue;
      }
      const deeper = await below(target, []);
      if (deeper.cycle) {
        issues.push({
          kind: 'cycle',
          path: at,
          message: `refers to test case ${quoted(target)}, which leads back to this one: ${[self!.name, ...deeper.cycle, self!.name].join(' › ')} (a cycle)`,
        });
        continue;
      }
      levels += deeper.levels;
    }
    if (levels > MAX_SUB_FLOW_DEPTH)
      issues.push({
        kind: 'depth',
        path: [...path, 'testCaseId'],
        message: `nests sub-flows ${levels > MAX_SUB_FLOW_DEPTH + 1 ? 'more than ' + (MAX_SUB_FLOW_DEPTH + 1) : levels} levels deep through the test cases it refers to; at most ${MAX_SUB_FLOW_DEPTH} are allowed`,
      });
  }
  return issues;
}

/**
 * The test cases a run freezes, with every `ref` node's `flow` (the referenced test case's stored
 * flow, resolved the same way, down to the last level), `version` (its `updatedAt`, ISO 8601) and
 * `name` (the referenced test case's, when the node has none) filled in; `clone` nodes keep their
 * copy, with the links inside it resolved. Test cases without Ref nodes come back as they are.
 *
 * @throws SubFlowReferenceError naming the test case, the node and the reference when a referenced
 *   test case no longer exists, a chain leads back into itself or nests beyond {@link MAX_SUB_FLOW_DEPTH}.
 */
export async function freezeSubFlows(
  manager: EntityManager,
  workspaceId: string,
  testCases: TestCaseDefinition[],
): Promise<TestCaseDefinition[]> {
  const load = loader(manager, workspaceId);
  const resolve = async (flow: FlowNode[], depth: number, chain: Array<{ id: string; name: string }>) => {
    const out: FlowNode[] = [];
    for (const node of flow) {
      let copy: FlowNode = node;
      const lists = childLists(node);
      if (lists.length > 0) {
        const record: Record<string, unknown> = { ...node };
        for (const { field, nodes } of lists) record[field] = await resolve(nodes, depth, chain);
        copy = record as unknown as FlowNode;
      }
      if (copy.type === 'ref') {
        const where = `${chain.map((c) => c.name).join(' › ')}: Ref node "${copy.id}"`;
        if (depth + 1 > MAX_SUB_FLOW_DEPTH)
          throw new SubFlowReferenceError(`${where} nests sub-flows deeper than ${MAX_SUB_FLOW_DEPTH} levels`);
        if (copy.mode === 'ref') {
          const target = await load(copy.testCaseId);
          if (!target)
            throw new SubFlowReferenceError(
              `${where} refers to test case "${copy.testCaseId}", which no longer exists; nothing was sent`,
            );
          if (chain.some((c) => c.id === target.id))
            throw new SubFlowReferenceError(
              `${where} refers to test case ${quoted(target)}, which is already running it (a cycle)`,
            );
          copy = {
            ...copy,
            name: copy.name ?? target.name,
            version: target.updatedAt.toISOString(),
            flow: await resolve(target.flow ?? [], depth + 1, [...chain, { id: target.id, name: target.name }]),
          };
        } else if (Array.isArray(copy.flow)) {
          // A copy is no link: its source may appear below it without a cycle.
          const level = { id: '', name: copy.name ?? copy.testCaseId };
          copy = { ...copy, flow: await resolve(copy.flow, depth + 1, [...chain, level]) };
        }
      }
      out.push(copy);
    }
    return out;
  };
  const frozen: TestCaseDefinition[] = [];
  for (const tc of testCases) {
    let has = false;
    forEachRefNode(tc.flow, () => (has = true));
    frozen.push(has ? { ...tc, flow: await resolve(tc.flow, 0, [{ id: tc.id, name: tc.name }]) } : tc);
  }
  return frozen;
}

/** A test case whose live links name another, and the Ref nodes that do (their ids). */
export interface ReferencingTestCase {
  id: string;
  name: string;
  folder: string;
  nodes: string[];
}

/**
 * The test cases of the workspace whose live links (`mode: "ref"`, also inside clones' copies)
 * name `testCaseId`, in name order; the test case itself left out.
 */
export async function referencingTestCases(
  manager: EntityManager,
  workspaceId: string,
  testCaseId: string,
): Promise<ReferencingTestCase[]> {
  const rows = await manager.getRepository(TestCase).find({
    where: { workspaceId },
    select: { id: true, name: true, folder: true, flow: true },
    order: { name: 'ASC' },
  });
  const found: ReferencingTestCase[] = [];
  for (const row of rows) {
    if (row.id === testCaseId) continue;
    const nodes: string[] = [];
    forEachRefNode(
      row.flow ?? [],
      ({ node }) => node.mode === 'ref' && node.testCaseId === testCaseId && nodes.push(node.id),
      {
        intoClones: true,
      },
    );
    if (nodes.length > 0) found.push({ id: row.id, name: row.name, folder: row.folder, nodes });
  }
  return found;
}
