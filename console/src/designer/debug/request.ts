/**
 * The bodies of a debug run (`POST /v1/test-cases/debug`, docs/api.md "Debug runs"): the test case
 * as the designer holds it, the environment and the run's variables; "Send" on one API node as a
 * debug run of that node alone; and the refusal's field errors turned into pointers into the test
 * case. Pure: compiled by the root tsconfig too.
 */
import type { FlowNode } from '../../../../src/domain/types';
import { childLists } from '../../../../src/flow/tree';
import { DOC_KEYS, type TestCaseDoc } from '../model/doc';

/**
 * The fields of a test case a debug run takes: the designer's document ({@link TestCaseDoc},
 * model/doc.ts) with only `name` and `flow` required, and the test case's `id` when it has one (the
 * designer's document may carry more, such as `createdAt` and `updatedAt`, which are not sent).
 * `flow` is the list of nodes (docs/flows.md), unchecked here: the server validates it.
 */
export type DebugTestCase = Partial<Omit<TestCaseDoc, 'name' | 'flow'>> & {
  id?: string;
  name: string;
  flow: unknown[];
};

/** The body of `POST /v1/test-cases/debug`. */
export interface DebugRunBody {
  testCase: DebugTestCase;
  environment: string;
  variables?: Record<string, unknown>;
}

/**
 * The keys sent: `id`, then the document's in the order the API documents them, but `dependsOn`: a
 * debug run is one test case alone, with nothing to wait for (docs/parallel.md "Dependencies").
 */
const FIELDS = ['id', ...DOC_KEYS.filter((k) => k !== 'dependsOn')] as const;

/**
 * The body that debugs `doc` in `environment`: the test case's own fields (those of
 * {@link DebugTestCase} it has, nothing else), and `variables` when given and not empty.
 */
export function debugRunBody(
  doc: DebugTestCase,
  environment: string,
  variables?: Record<string, unknown>,
): DebugRunBody {
  const testCase = {} as Record<string, unknown>;
  for (const k of FIELDS) if (doc[k] !== undefined) testCase[k] = doc[k];
  const body: DebugRunBody = { testCase: testCase as unknown as DebugTestCase, environment };
  if (variables && Object.keys(variables).length > 0) body.variables = variables;
  return body;
}

type NodeLike = { id?: unknown; type?: unknown } & Record<string, unknown>;

/**
 * The node of `flow` (at any depth) whose `id` is `nodeId` and its JSON Pointer from the test case
 * (`/flow/1/then/0`), or undefined.
 */
export function findNode(
  flow: readonly unknown[],
  nodeId: string,
  at = '/flow',
): { node: NodeLike; pointer: string } | undefined {
  for (const [i, raw] of flow.entries()) {
    if (!raw || typeof raw !== 'object') continue;
    const n = raw as NodeLike;
    if (n.id === nodeId) return { node: n, pointer: `${at}/${i}` };
    for (const { field, nodes } of childLists(n as unknown as FlowNode)) {
      const found = findNode(nodes, nodeId, `${at}/${i}/${field}`);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The test case that "Send" debugs for node `nodeId` of `doc`: the same test case (its auth
 * profile, data sets, hooks and name, so the environment's variables and auth apply through the
 * engine as in a full run) whose flow is that node alone, switched on (`disabled` dropped). Throws
 * an Error naming the node when it is not in the flow or is not an API node.
 */
export function sendNodeTestCase(doc: DebugTestCase, nodeId: string): DebugTestCase {
  const node = findNode(doc.flow, nodeId)?.node;
  if (!node) throw new Error(`No node "${nodeId}" in the flow.`);
  if (node.type !== 'api')
    throw new Error(`Node "${nodeId}" is not an API node (${String(node.type)}): only API nodes are sent alone.`);
  const { disabled: _disabled, ...enabled } = node;
  return { ...doc, flow: [enabled] };
}

/** A field error of a refused debug run, its pointer made relative to the test case. */
export interface DebugFieldError {
  /** JSON Pointer into the test case (`/flow/0/request/url`), `''` for the test case itself. */
  pointer: string;
  detail: string;
}

/**
 * The field errors of a refused debug run (400/422 problem `errors[]`), those under `/testCase`
 * with the prefix removed (so they point into the designer's document); the others (`/environment`,
 * `/variables/…`) keep their pointer as it is. `sentNode`: the pointer of the node "Send" sent
 * alone ({@link findNode}), which the refusal calls `/flow/0`; its errors are moved there.
 */
export function debugFieldErrors(
  problem: { errors?: { pointer?: string; detail: string }[] } | undefined,
  sentNode?: string,
): DebugFieldError[] {
  return (problem?.errors ?? [])
    .filter((e) => typeof e.pointer === 'string')
    .map((e) => {
      const p = e.pointer!;
      let pointer = p === '/testCase' ? '' : p.startsWith('/testCase/') ? p.slice('/testCase'.length) : p;
      if (sentNode && (pointer === '/flow/0' || pointer.startsWith('/flow/0/')))
        pointer = sentNode + pointer.slice('/flow/0'.length);
      return { pointer, detail: e.detail };
    });
}
