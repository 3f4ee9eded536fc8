/**
 * Servers (docs/reuse.md "Servers"): named base URLs of an environment (`servers: {users:
 * "https://users.staging.example.com"}`, merged through its `extends` chain and frozen into the
 * run's plan as `RunPlan.servers`), used by API nodes in two ways:
 *
 * - `{{server.users}}/path` in the request's URL, headers, body or auth fields;
 * - the node's `server` field (`"server": "users"`): its `request.url` is then a path, joined to the
 *   base URL with exactly one slash ({@link joinServerUrl}).
 *
 * A base URL may itself hold `{{variable}}` placeholders (`https://{{tenant}}.example.com`): the
 * server is put in first, then the request's templates are filled as usual.
 *
 * Precedence: `{{server.<name>}}` is the server when the plan has one of that name; else a
 * variable that answers `server.<name>` (a variable named `server.<name>`, or an object variable
 * `server` with that field, as templates read them: src/domain/templating.ts) is kept for the
 * template filler; else the node fails saying which server is missing. A plan frozen before
 * servers existed (no `servers`) is left exactly as it ran.
 *
 * A run checks every API node of its test cases when it freezes its plan ({@link missingServers})
 * and fails before sending anything when its environment lacks a server a node names.
 *
 * Pure and deterministic (workflow code).
 */
import type { ApiNode, FlowNode, TestCaseDefinition } from '../domain/types';
import { forEachNode } from './tree';

/** Names of servers: identifiers, so that `{{server.<name>}}` reads well (letters, digits, `_`, `-`). */
export const SERVER_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_-]{0,99}$';
const SERVER_NAME = new RegExp(SERVER_NAME_PATTERN);

/** Servers one environment may define. */
export const MAX_SERVERS = 100;

/** `{{server.<name>}}`, spaces around the name allowed as in every template. */
const SERVER_PLACEHOLDER = /\{\{\s*server\.([^{}\s]+)\s*\}\}/g;

/** True when `name` is a valid server name ({@link SERVER_NAME_PATTERN}). */
export function isServerName(name: string): boolean {
  return SERVER_NAME.test(name);
}

/**
 * Why `url` cannot be a server's base URL, or undefined when it can: an absolute `http://` or
 * `https://` URL with a host, optionally with a path; no query or fragment. `{{variable}}`
 * placeholders are allowed after the scheme (then only the scheme is checked).
 */
export function serverUrlProblem(url: string): string | undefined {
  if (!/^https?:\/\/[^/?#]/i.test(url))
    return 'must be an absolute http:// or https:// URL (e.g. "https://users.example.com")';
  if (url.length > 2000) return 'must be at most 2000 characters long';
  if (/[?#]/.test(url.replace(/\{\{[^{}]*\}\}/g, '')))
    return 'must not hold a query or fragment (put them in the request)';
  if (url.includes('{{')) return undefined;
  try {
    new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  return undefined;
}

/**
 * `base` and `path` joined with exactly one slash: `https://h/api/` + `/users` → `https://h/api/users`.
 * An empty path answers the base as written; a path that starts with `?` or `#` is appended as it is.
 */
export function joinServerUrl(base: string, path: string): string {
  if (path === '') return base;
  if (path.startsWith('?') || path.startsWith('#')) return base.replace(/\/+$/, '') + path;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** A server a request names that the run's environment does not define. */
export class UnknownServerError extends Error {
  constructor(
    readonly server: string,
    readonly known: string[],
  ) {
    super(
      `Server "${server}" is not defined by the run's environment (${known.length ? `its servers: ${known.join(', ')}` : 'it defines no servers'}); add it to the environment's "servers"`,
    );
    this.name = 'UnknownServerError';
  }
}

const own = (o: unknown, k: string): boolean =>
  o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k);

/** True when the template variables answer `{{server.<name>}}` themselves (see the module comment). */
function variableAnswers(variables: Record<string, unknown>, name: string): boolean {
  return own(variables, `server.${name}`) || own(variables.server, name);
}

/**
 * `text` with each `{{server.<name>}}` replaced by the base URL of that server of `servers`.
 * @throws UnknownServerError for a name neither `servers` nor `variables` answer
 */
export function fillServers(
  text: string,
  servers: Readonly<Record<string, string>>,
  variables: Record<string, unknown>,
): string {
  if (!text.includes('{{')) return text;
  return text.replace(SERVER_PLACEHOLDER, (whole, name: string) => {
    if (own(servers, name)) return servers[name]!;
    if (variableAnswers(variables, name)) return whole;
    throw new UnknownServerError(name, Object.keys(servers));
  });
}

/**
 * `value` (a request body, auth fields, a message) with {@link fillServers} applied to every string
 * in it, object keys included; other values as they are. Without `servers` (a plan frozen before
 * servers existed) it is `value` itself.
 * @throws UnknownServerError
 */
export function fillServersDeep(
  value: unknown,
  servers: Readonly<Record<string, string>> | undefined,
  variables: Record<string, unknown>,
): unknown {
  if (servers === undefined) return value;
  const deep = (v: unknown): unknown => {
    if (typeof v === 'string') return fillServers(v, servers, variables);
    if (Array.isArray(v)) return v.map(deep);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [fillServers(k, servers, variables), deep(x)]));
    return v;
  };
  return deep(value);
}

/** Every server name `text` refers to with `{{server.<name>}}`. */
function placeholderNames(text: string): string[] {
  return [...text.matchAll(SERVER_PLACEHOLDER)].map((m) => m[1]!);
}

/** The strings of a JSON value (object keys included). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      strings(v, out);
    }
  return out;
}

/** The node types that send to a server: their `server` field and the templates of what they send. */
export type ServerNode = Extract<FlowNode, { type: 'api' | 'poll' | 'websocket' | 'sse' | 'grpc' }>;

/** Whether `node` sends to a server ({@link ServerNode}). */
export function sendsToServer(node: FlowNode): node is ServerNode {
  return ['api', 'poll', 'websocket', 'sse', 'grpc'].includes(node.type);
}

/**
 * The servers a node names ({@link ServerNode}): its `server` field, then `{{server.<name>}}` in
 * what it sends (an API or Poll node's request; a WebSocket or SSE node's URL, headers, body and
 * messages; a gRPC node's target, message and metadata), each once.
 */
export function nodeServers(node: Pick<ApiNode, 'server' | 'request'> | ServerNode): string[] {
  const names = new Set<string>();
  if (node.server !== undefined) names.add(node.server);
  const sent: Record<string, unknown> =
    'request' in node
      ? (node.request as unknown as Record<string, unknown>)
      : 'target' in node
        ? { url: node.target, body: node.message ?? null, headers: node.metadata ?? {} }
        : {
            url: node.url,
            headers: node.headers ?? {},
            body: 'body' in node ? (node.body ?? null) : null,
            send: 'send' in node ? (node.send ?? []) : [],
          };
  const texts = [
    sent.url,
    ...strings(sent.headers ?? {}),
    ...strings(sent.body ?? null),
    ...strings(sent.auth ?? {}),
    ...strings(sent.send ?? []),
  ];
  for (const text of texts) if (typeof text === 'string') for (const name of placeholderNames(text)) names.add(name);
  return [...names];
}

/** A server a node of a test case names that the run's environment lacks. */
export interface MissingServer {
  testCase: string;
  testCaseId: string;
  node: string;
  nodeName?: string;
  server: string;
}

/**
 * Every (test case, API or Poll node, server) where a node names a server that neither `servers` nor the
 * run's `variables` answer (see the module comment), nested nodes and Ref nodes' sub-flows included, in flow order.
 */
export function missingServers(
  testCases: Array<Pick<TestCaseDefinition, 'id' | 'name' | 'flow'>>,
  servers: Readonly<Record<string, string>>,
  variables: Record<string, unknown>,
): MissingServer[] {
  const missing: MissingServer[] = [];
  for (const tc of testCases) {
    // A Ref node's sub-flow (frozen into the plan) is walked as well: its requests use the same servers.
    const walk = (flow: FlowNode[]) =>
      forEachNode(flow, (node: FlowNode) => {
        if (node.type === 'ref') walk(node.flow ?? []);
        if (!sendsToServer(node)) return;
        for (const server of nodeServers(node)) {
          if (own(servers, server)) continue;
          // The `server` field names a server only; a template may also be answered by a variable.
          if (node.server !== server && variableAnswers(variables, server)) continue;
          missing.push({
            testCase: tc.name,
            testCaseId: tc.id,
            node: node.id,
            ...(node.name ? { nodeName: node.name } : {}),
            server,
          });
        }
      });
    walk(tc.flow ?? []);
  }
  return missing;
}

/**
 * One sentence about `missing` (not empty) for people: the first one in full, then how many more.
 * `environment` names the run's environment and `servers` what it defines.
 */
export function missingServersMessage(
  missing: MissingServer[],
  environment: string,
  servers: Readonly<Record<string, string>>,
): string {
  const first = missing[0]!;
  const node = first.nodeName ? `"${first.nodeName}" (${first.node})` : `"${first.node}"`;
  const known = Object.keys(servers);
  const defined = known.length ? `its servers: ${known.join(', ')}` : 'it defines no servers';
  const more = missing.length > 1 ? `; ${missing.length - 1} more node(s) name missing servers` : '';
  return `Test case "${first.testCase}", node ${node} names server "${first.server}", which environment "${environment}" does not define (${defined})${more}`;
}
