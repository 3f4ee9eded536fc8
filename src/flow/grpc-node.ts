/**
 * gRPC nodes (docs/async.md "gRPC"): the call resolved from the node's templates here (target,
 * metadata, message; servers as API nodes put them in, src/flow/servers.ts), made through the
 * port (`callGrpc`: an activity, or a plain call in performance runs; activities/grpc.ts), then its
 * assertions evaluated against
 * `{response: {status, statusName, details, body, messages, count, headers, trailers, time, size}, …}`.
 *
 * A non-OK status is not a failure by itself (assert on `response.status`); a call that could not
 * be made (a `.proto` that does not parse, an unknown service or method, a message that does not
 * fit, a target the address policy refuses) fails the node, with the call's `errorCode` as the
 * result's (docs/flows.md "Error codes").
 */
import { fillTemplate, fillTemplates, type DynamicSources, type TemplateVariables } from '../domain/templating';
import type { GrpcNode, NodeResult, RunSettings } from '../domain/types';
import type { GrpcCallInput } from '../domain/grpc-io';
import type { FlowBase } from './flow-base';
import type { NodeContext } from './types';
import { evaluateAssertion } from '../domain/assertions';
import { fillServers, fillServersDeep, joinServerUrl, UnknownServerError } from './servers';

/** Messages kept from a server stream unless the node says otherwise. */
export const DEFAULT_GRPC_MAX_MESSAGES = 100;

/**
 * The call of a gRPC node with its templates filled (`{{server.<name>}}` first when the run has
 * servers). With `server`, the target is that server's base URL (`https://…` is TLS, `http://…`
 * plaintext) and `target` is `/` (or empty). Deadline: `deadlineMs`, else the run's request timeout.
 * @throws UnknownServerError when the node names a server the run lacks
 */
export function resolveGrpcCall(
  node: GrpcNode,
  variables: TemplateVariables,
  dynamic: DynamicSources,
  settings: RunSettings,
  servers?: Readonly<Record<string, string>>,
): GrpcCallInput {
  const withServers = (text: string) => (servers ? fillServers(text, servers, variables) : text);
  const deep = (value: unknown): unknown => fillServersDeep(value, servers, variables);
  let target = withServers(node.target);
  if (node.server !== undefined) {
    const base = servers?.[node.server];
    if (base === undefined) throw new UnknownServerError(node.server, Object.keys(servers ?? {}));
    target = joinServerUrl(base, target === '/' ? '' : target);
  }
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(node.metadata ?? {}))
    metadata[fillTemplate(withServers(name), variables, dynamic)] = fillTemplate(
      withServers(value),
      variables,
      dynamic,
    );
  return {
    label: node.id,
    target: fillTemplate(target, variables, dynamic),
    proto: node.proto,
    ...(node.protoFiles ? { protoFiles: node.protoFiles } : {}),
    service: node.service,
    method: node.method,
    message: node.message === undefined ? {} : fillTemplates(deep(node.message), variables, dynamic),
    metadata,
    deadlineMs: node.deadlineMs ?? settings.requestTimeoutMs,
    maxMessages: node.maxMessages ?? DEFAULT_GRPC_MAX_MESSAGES,
  };
}

/** Runs a gRPC node at `path` (see the module comment; execution-id.ts). */
export async function runGrpcNode(flow: FlowBase, node: GrpcNode, path: string): Promise<NodeResult> {
  const { port } = flow;
  const result = flow.base(node);
  const label = node.name ? `${node.name} (${node.id})` : node.id;
  const what = `${node.service}/${node.method}`;
  if (!port.callGrpc) return flow.fail(result, 'gRPC nodes cannot run here: this runner has no gRPC client');
  let input: GrpcCallInput;
  try {
    input = resolveGrpcCall(node, flow.templateVariables(), port.dynamic, port.settings, port.servers);
  } catch (err) {
    if (!(err instanceof UnknownServerError)) throw err;
    flow.step(`${label}: not called ✗ (${err.message})`);
    return flow.fail(result, err.message);
  }
  const execution = flow.executionId(path);
  if (execution) input.execution = execution;
  const out = await port.callGrpc(input, flow.summary(`${label}: gRPC ${what} at ${input.target}`));
  result.request = { method: 'POST', url: `${out.target}/${out.path}` };
  result.duration = out.timeMs;
  if (out.error !== undefined || out.code === undefined) {
    flow.step(`${label}: gRPC ${what} → ${out.error ?? 'not called'} ✗`);
    return flow.failWithCode(result, out.error ?? `${what} was not called`, out.errorCode);
  }
  result.grpc = {
    code: out.code,
    status: out.status ?? String(out.code),
    ...(out.details !== undefined ? { details: out.details } : {}),
    messages: out.count,
    timeMs: out.timeMs,
  };
  const response = {
    status: out.code,
    statusName: out.status,
    ...(out.details !== undefined ? { details: out.details } : {}),
    // A unary call's body is its message; a stream's, the list of messages.
    body: out.streaming ? out.messages : out.messages[0],
    messages: out.messages,
    count: out.count,
    ...(out.stoppedBy ? { stoppedBy: out.stoppedBy } : {}),
    headers: out.headers,
    trailers: out.trailers,
    time: out.timeMs,
    size: out.size,
  };
  const context: NodeContext = {
    request: { method: 'POST', url: result.request.url, headers: input.metadata, body: input.message },
    response,
    trailers: out.trailers,
  };
  flow.state.nodes[node.id] = context;
  const assertionInput = flow.expressionInput({ response });
  result.assertions = [];
  for (const assertion of node.assertions ?? [])
    flow.recordAssertion(result, assertion, await evaluateAssertion(assertion, assertionInput as never, port.evaluate));
  flow.step(
    `${label}: gRPC ${what} → ${out.status}${out.streaming ? ` · ${out.count} messages` : ''} · ${Math.round(out.timeMs)} ms${result.status === 'failed' ? ' ✗' : ''}`,
  );
  return result;
}
