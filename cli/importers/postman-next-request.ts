/**
 * `pm.execution.setNextRequest(name)` / `postman.setNextRequest(name)` (docs/import-postman.md
 * "setNextRequest"). Newman (postman-runtime's waterfall) runs, after the current request, the
 * request the last such call of its pre-request or test scripts named, anywhere in the collection
 * (looked up by id, then by name: the last request of that name), or ends the iteration when the
 * call passed `null` or a name no request has.
 *
 * Assay's flows have no jump, so a collection that calls it is imported as one test case whose
 * flow honours it with ordinary nodes:
 *
 * ```
 * Context  postman_start: __next = "#<first node id>"
 * Loop     postman_run (while variables.__next names a request; maxIterations)
 *   IF if_<id>: variables.__next in ["#<id>", "<postman id>", "<name>"]
 *     then: Context next_<id>: __next = "#<next node id>" (or "" after the last), API node <id>
 *   … one IF per request, in the collection's order
 * IF       postman_unresolved: __next is left and names no request
 *   then: Script node failing with the name
 * ```
 *
 * A request's scripts change `__next` through the Postman library (`setNextRequest(x)` sets it to
 * `x`, `null` to ""). The IFs run in order within a pass of the loop, so a jump ahead runs in the
 * same pass and a jump back in the next; `maxIterations` bounds the passes (a collection that
 * jumps back for ever stops there, failing the loop). A name no request has ends the loop as
 * Newman ends the iteration, and the Script node after it fails naming it.
 */

/** The loop's bound: passes over the collection (backward jumps), at most. */
export const NEXT_REQUEST_MAX_PASSES = 1000;

/** Whether a script calls setNextRequest. */
export function callsSetNextRequest(code: string): boolean {
  return /\bsetNextRequest\s*\(/.test(code);
}

/** The literal names a script passes to setNextRequest (`setNextRequest('Login')`), for the report. */
export function literalNextRequests(code: string): string[] {
  return [...code.matchAll(/\bsetNextRequest\s*\(\s*(['"`])((?:(?!\1)[^\\]|\\.)*)\1\s*\)/g)].map((m) => {
    try {
      if (m[1] === '`') return m[2]!;
      const body = m[1] === "'" ? m[2]!.replace(/\\'/g, "'").replace(/(^|[^\\])"/g, '$1\\"') : m[2]!;
      return JSON.parse(`"${body}"`) as string;
    } catch {
      return m[2]!;
    }
  });
}

/** One request of the collection, in Newman's run order. */
export interface NextRequestItem<N> {
  node: N & { id: string };
  /** The request's name in the collection. */
  name: string;
  /** Postman's id of the request, when the export has one. */
  postmanId?: string;
}

export type DispatchNode<N> =
  | { type: 'context'; id: string; name?: string; set: Record<string, string> }
  | { type: 'script'; id: string; name?: string; script: { code: string } }
  | { type: 'if'; id: string; name?: string; condition: string; then: Array<DispatchNode<N> | N> }
  | {
      type: 'loop';
      id: string;
      name?: string;
      while: string;
      maxIterations: number;
      body: Array<DispatchNode<N> | N>;
    };

/** JSONata string literal of `text`. */
const lit = (text: string) => JSON.stringify(text);

/** The key `__next` holds by default: `#` and the node id (never taken for a request's name or id by accident). */
const own = (id: string) => `#${id}`;

/**
 * The dispatch flow for `items` (see the module comment). `names`: literal names the scripts pass,
 * checked here: each that no request has is returned in `unresolved`.
 */
export function dispatchFlow<N>(
  items: Array<NextRequestItem<N>>,
  names: string[] = [],
): { flow: Array<DispatchNode<N>>; unresolved: string[] } {
  // Newman's lookup: ids first, then names, the last request of a name winning.
  const byId = new Map<string, number>();
  const byName = new Map<string, number>();
  items.forEach((it, i) => {
    if (it.postmanId) byId.set(it.postmanId, i);
    byName.set(it.name, i);
  });
  const keys: string[][] = items.map((it) => [own(it.node.id)]);
  for (const [id, i] of byId) keys[i]!.push(id);
  for (const [name, i] of byName) if (!byId.has(name)) keys[i]!.push(name);
  const all = keys.flat();
  const body: Array<DispatchNode<N>> = items.map((it, i) => ({
    type: 'if',
    id: `if_${it.node.id}`.slice(0, 64),
    name: `next is ${it.name}`.slice(0, 200),
    condition: `variables.__next in [${keys[i]!.map(lit).join(', ')}]`,
    then: [
      {
        type: 'context',
        id: `next_${it.node.id}`.slice(0, 64),
        set: { __next: lit(i + 1 < items.length ? own(items[i + 1]!.node.id) : '') },
      },
      it.node,
    ],
  }));
  const flow: Array<DispatchNode<N>> = [
    {
      type: 'context',
      id: 'postman_start',
      name: 'setNextRequest: start at the first request',
      set: { __next: lit(items.length ? own(items[0]!.node.id) : '') },
    },
    {
      type: 'loop',
      id: 'postman_run',
      name: 'setNextRequest: requests in the order the scripts choose',
      while: `variables.__next in [${all.map(lit).join(', ')}]`,
      maxIterations: NEXT_REQUEST_MAX_PASSES,
      body,
    },
    {
      type: 'if',
      id: 'postman_unresolved',
      name: 'setNextRequest named no request',
      condition: `$exists(variables.__next) and variables.__next != ""`,
      then: [
        {
          type: 'script',
          id: 'postman_unresolved_name',
          name: 'setNextRequest: no such request',
          script: {
            code: `throw new Error('setNextRequest(' + JSON.stringify($context.get('__next')) + '): no request of that name or id in the collection; the run stopped there, as Newman stops its iteration (docs/import-postman.md)');`,
          },
        },
      ],
    },
  ];
  const unresolved = [...new Set(names)].filter((n) => !byId.has(n) && !byName.has(n));
  return { flow, unresolved };
}
