/**
 * The designer's document: the whole test case as `GET /v1/test-cases/{id}` returns it, minus the
 * fields the server manages (id, version, createdAt, updatedAt), which the store keeps aside
 *. Never mutated: every edit makes a new document that shares the
 * untouched parts (model/ops.ts).
 *
 * Addressing: a {@link Path} is the shape src/flow/tree.ts `forEachNode` produces and the API's
 * error pointers use (`#/flow/2/then/0/request/url` ⇄ `['flow', 2, 'then', 0, 'request', 'url']`).
 * Selection and expansion use node ids, which stay the same across moves; paths are computed when
 * an operation needs one ({@link findById}).
 *
 * Pure TypeScript (no DOM, no Preact): compiled by the root tsconfig.json and unit-tested in node.
 */
import type { DataSet, FlowNode, FlowNodeType, ScriptConfig } from '../../../../src/domain/types';
import { childLists, type ChildField } from '../../../../src/flow/tree';
import { CHILD_NODES, NODE_FIELDS } from '../../../../src/validation/flow-schemas';

export type { ChildField, FlowNode, FlowNodeType };

/** A node's `id`: unique in the test case's tree (a Ref node's sub-flow has ids of its own). */
export type NodeId = string;

/** A place in the document: object keys and array indexes, e.g. `['flow', 2, 'then', 0, 'request', 'url']`. */
export type Path = Array<string | number>;

/**
 * The test case the designer edits: every field `PUT /v1/test-cases/{id}` takes, so a save sends
 * the whole of it and loses nothing (docs/api.md "Test cases"). `hooks` absent means none.
 */
export interface TestCaseDoc {
  name: string;
  folder: string;
  tags: string[];
  description: string;
  flow: FlowNode[];
  dataSets: DataSet[];
  hooks?: ScriptConfig;
  /** An auth profile's name, `'none'`, or null (inherit the folder's). */
  authProfile: string | null;
  reusable: boolean;
  /**
   * Ids of test cases that must have passed in the same run before this one starts
   * (docs/parallel.md "Dependencies"); [] for none.
   */
  dependsOn: string[];
}

/** The keys of a {@link TestCaseDoc}, in the order the API documents them. */
export const DOC_KEYS = [
  'name',
  'folder',
  'tags',
  'description',
  'flow',
  'dataSets',
  'hooks',
  'authProfile',
  'reusable',
  'dependsOn',
] as const satisfies ReadonlyArray<keyof TestCaseDoc>;

/** What the server manages beside the document: the test case's id, its version (ETag) and `updatedAt` (ISO 8601). */
export interface ServerFields {
  id?: string;
  version?: string | number;
  updatedAt?: string;
}

/** An empty test case named `name`: what "New test case" opens. */
export function emptyDoc(name = 'New test case', folder = ''): TestCaseDoc {
  return {
    name,
    folder,
    tags: [],
    description: '',
    flow: [],
    dataSets: [],
    authProfile: null,
    reusable: false,
    dependsOn: [],
  };
}

/**
 * Splits a test case as the API answers it (GET, PUT, POST) into the document and the server's
 * fields. Missing fields get the API's defaults (`folder` '', `tags` [], `description` '',
 * `dataSets` [], `authProfile` null, `reusable` false, `dependsOn` []), so an older answer still opens.
 */
export function fromTestCase(json: Record<string, unknown>): { doc: TestCaseDoc; server: ServerFields } {
  const doc: TestCaseDoc = {
    name: typeof json.name === 'string' ? json.name : '',
    folder: typeof json.folder === 'string' ? json.folder : '',
    tags: Array.isArray(json.tags) ? (json.tags as string[]) : [],
    description: typeof json.description === 'string' ? json.description : '',
    flow: Array.isArray(json.flow) ? (json.flow as FlowNode[]) : [],
    dataSets: Array.isArray(json.dataSets) ? (json.dataSets as DataSet[]) : [],
    authProfile: typeof json.authProfile === 'string' ? json.authProfile : null,
    reusable: json.reusable === true,
    dependsOn: Array.isArray(json.dependsOn) ? (json.dependsOn as string[]) : [],
  };
  if (json.hooks && typeof json.hooks === 'object') doc.hooks = json.hooks as ScriptConfig;
  const server: ServerFields = {};
  if (typeof json.id === 'string') server.id = json.id;
  if (typeof json.version === 'string' || typeof json.version === 'number') server.version = json.version;
  if (typeof json.updatedAt === 'string') server.updatedAt = json.updatedAt;
  return { doc, server };
}

/**
 * The body of `PUT /v1/test-cases/{id}` (or POST) for `doc`: every field, `hooks` null when absent
 * (PUT replaces the record, so a field left out would be cleared: docs/console.md "The designer").
 * `dependsOn` is sent when not empty: absent clears it, as [] would (api/routes/test-cases.ts), and
 * a server without dependencies is not sent a field it refuses.
 */
export function toRequestBody(doc: TestCaseDoc): Record<string, unknown> {
  return {
    name: doc.name,
    folder: doc.folder,
    description: doc.description,
    tags: doc.tags,
    flow: doc.flow,
    dataSets: doc.dataSets,
    hooks: doc.hooks ?? null,
    authProfile: doc.authProfile,
    reusable: doc.reusable,
    ...(doc.dependsOn?.length ? { dependsOn: doc.dependsOn } : {}),
  };
}

/**
 * `#/flow/2/then/0/request/url` (a JSON Pointer, RFC 6901, in its URI fragment form as the API's
 * `errors[].pointer` gives it; a plain `/flow/2` too) → `['flow', 2, 'then', 0, 'request', 'url']`.
 * Segments made only of digits become numbers; `~1` and `~0` are unescaped, `%xx` decoded in the
 * fragment form. `''`, `'#'` and `'/'`… the root: `[]`.
 */
export function pointerToPath(pointer: string): Path {
  let text = pointer;
  if (text.startsWith('#')) {
    text = text.slice(1);
    try {
      text = decodeURIComponent(text);
    } catch {
      // Not percent-encoded after all: read it as written.
    }
  }
  if (text === '' || text === '/') return [];
  return text
    .replace(/^\//, '')
    .split('/')
    .map((segment) => {
      const s = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^(0|[1-9][0-9]*)$/.test(s) ? Number(s) : s;
    });
}

/** `['flow', 2, 'then', 0]` → `#/flow/2/then/0` (the inverse of {@link pointerToPath}; `~` and `/` escaped). */
export function pathToPointer(path: Path): string {
  return '#' + path.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** The child-list fields a node type may have, in the order they run (IF `then`, `else`): from the flow schemas ({@link CHILD_NODES}). */
export function childFieldsOf(type: FlowNodeType): ChildField[] {
  const fields = NODE_FIELDS[type]?.properties ?? {};
  return Object.keys(fields).filter((k) => fields[k] === CHILD_NODES) as ChildField[];
}

/** True for node types that hold child lists (IF, Loop, Iteration, Parallel). */
export function isContainerType(type: FlowNodeType): boolean {
  return childFieldsOf(type).length > 0;
}

/** The child list `field` of `node` (an absent list, such as an IF without `else`, as `[]`). */
export function childList(node: FlowNode, field: ChildField): FlowNode[] {
  return childLists(node).find((l) => l.field === field)?.nodes ?? [];
}

/** True when the node is switched off (`disabled: true`, a common node field: the engine skips it). */
export function isDisabled(node: FlowNode): boolean {
  return (node as { disabled?: unknown }).disabled === true;
}

/** A node found in a tree, and its path (from `['flow', …]`). */
export interface Found {
  node: FlowNode;
  path: Path;
}

/**
 * The node whose id is `id`, depth first through every child list, with its path from `prefix`
 * (`['flow', 2, 'then', 0]`); undefined when no node has it.
 */
export function findById(flow: FlowNode[], id: NodeId, prefix: Path = ['flow']): Found | undefined {
  for (let i = 0; i < flow.length; i++) {
    const node = flow[i]!;
    if (node.id === id) return { node, path: [...prefix, i] };
    for (const { field, nodes } of childLists(node)) {
      const found = findById(nodes, id, [...prefix, i, field]);
      if (found) return found;
    }
  }
  return undefined;
}

/** The node at a node path `['flow', 2, 'then', 0]`; undefined when the path leads nowhere. */
export function nodeAt(flow: FlowNode[], path: Path): FlowNode | undefined {
  if (path[0] !== 'flow') return undefined;
  let list: FlowNode[] | undefined = flow;
  let node: FlowNode | undefined;
  for (let k = 1; k < path.length; k += 2) {
    const index = path[k];
    if (typeof index !== 'number' || !list) return undefined;
    node = list[index];
    if (!node) return undefined;
    const field = path[k + 1];
    if (field === undefined) return node;
    list = childLists(node).find((l) => l.field === field)?.nodes;
  }
  return undefined;
}

/** Every node id in the tree (not inside Ref sub-flows, whose ids are their own). */
export function nodeIds(flow: FlowNode[]): Set<NodeId> {
  const ids = new Set<NodeId>();
  const walk = (list: FlowNode[]) => {
    for (const node of list) {
      if (typeof node.id === 'string' && node.id) ids.add(node.id);
      for (const { nodes } of childLists(node)) walk(nodes);
    }
  };
  walk(flow);
  return ids;
}

/**
 * A node id not in use: `base` made into an identifier (letters, digits and `_`; a leading digit
 * gets `n`; trailing digits dropped) followed by the first free number from 1, e.g. `api1`,
 * `api2`; `if1`. Ids match the schema's pattern `^[A-Za-z_][A-Za-z0-9_-]{0,63}$` and read well in
 * `nodes.<id>` (no `-`, which JSONata reads as minus). `used` (a flow, or a set of ids) is not changed.
 */
export function newNodeId(used: FlowNode[] | ReadonlySet<string>, base: string): NodeId {
  const taken = Array.isArray(used) ? nodeIds(used) : (used as ReadonlySet<string>);
  let stem = base
    .replace(/[^A-Za-z0-9_]/g, '')
    .replace(/[0-9]+$/, '')
    .slice(0, 50);
  if (!stem) stem = 'n';
  if (/^[0-9]/.test(stem)) stem = `n${stem}`;
  for (let n = 1; ; n++) if (!taken.has(`${stem}${n}`)) return `${stem}${n}`;
}

/** Where a list of nodes is: the top-level flow (`parent` null) or a child list of a container. */
export interface ListRef {
  parent: NodeId | null;
  field: ChildField | 'flow';
}

/** The path of a list (`['flow']`, `['flow', 2, 'then']`) as a {@link ListRef}; undefined when it names no container. */
export function listRefOf(flow: FlowNode[], listPath: Path): ListRef | undefined {
  if (listPath.length === 1 && listPath[0] === 'flow') return { parent: null, field: 'flow' };
  const field = listPath[listPath.length - 1];
  const node = nodeAt(flow, listPath.slice(0, -1));
  if (!node || typeof field !== 'string' || !childFieldsOf(node.type).includes(field as ChildField)) return undefined;
  return { parent: node.id, field: field as ChildField };
}

/** The path of a list named by a {@link ListRef}; undefined when its container is gone. */
export function listPathOf(flow: FlowNode[], ref: ListRef): Path | undefined {
  if (ref.parent === null) return ['flow'];
  const found = findById(flow, ref.parent);
  return found ? [...found.path, ref.field] : undefined;
}

/** The list that holds node `id`, its index in it, and the list's path; undefined when absent. */
export function locate(flow: FlowNode[], id: NodeId): { list: ListRef; listPath: Path; index: number } | undefined {
  const found = findById(flow, id);
  if (!found) return undefined;
  const listPath = found.path.slice(0, -1);
  const index = found.path[found.path.length - 1] as number;
  const parentPath = listPath.slice(0, -1);
  const parent = parentPath.length > 1 ? nodeAt(flow, parentPath) : undefined;
  const list: ListRef = parent
    ? { parent: parent.id, field: listPath[listPath.length - 1] as ChildField }
    : { parent: null, field: 'flow' };
  return { list, listPath, index };
}

/** True when node `inner` is `outer` or lies anywhere inside `outer`'s child lists. */
export function isInside(flow: FlowNode[], outer: NodeId, inner: NodeId): boolean {
  const found = findById(flow, outer);
  if (!found) return false;
  return found.node.id === inner || findById([found.node], inner) !== undefined;
}
