/**
 * API nodes: the request resolved from the node's templates, executed through the port (hooks,
 * retries), then its assertions evaluated against the response.
 */
import { evaluateAssertion, preview } from '../domain/assertions';
import { fillTemplate, fillTemplates, type DynamicSources, type TemplateVariables } from '../domain/templating';
import type { ApiNode, NodeResult, RequestAuth, RequestSpec, ResolvedRequest, RunSettings } from '../domain/types';
import type { FlowBase } from './flow-base';
import { recordScriptChecks, where } from './script-node';
import { maskedAuth } from '../domain/request-auth';

/** Fills placeholders and defaults of an API node's request. */
export function resolveRequest(
  node: ApiNode,
  variables: TemplateVariables,
  dynamic: DynamicSources,
  settings: RunSettings,
): ResolvedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(node.request.headers ?? {})) {
    headers[fillTemplate(name, variables, dynamic)] = fillTemplate(value, variables, dynamic);
  }
  const spec = node.request;
  const resolved: ResolvedRequest = {
    method: spec.method,
    url: fillTemplate(spec.url, variables, dynamic),
    headers,
    body: spec.body === undefined ? undefined : fillTemplates(spec.body, variables, dynamic),
    timeoutMs: spec.timeoutMs ?? settings.requestTimeoutMs,
    followRedirects: spec.followRedirects ?? true,
    maxResponseBytes: settings.maxResponseBytes,
  };
  // The later settings only when set: a request without them is what recorded histories hold.
  for (const name of REQUEST_SETTINGS)
    if (spec[name] !== undefined) (resolved as unknown as Record<string, unknown>)[name] = spec[name];
  if (spec.auth) {
    const auth: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(spec.auth))
      auth[name] = typeof value === 'string' && name !== 'type' ? fillTemplate(value, variables, dynamic) : value;
    resolved.auth = auth as unknown as RequestAuth;
  }
  return resolved;
}

/** The request settings copied as they are into the resolved request (docs/flows.md "Request settings"). */
const REQUEST_SETTINGS = [
  'maxRedirects',
  'followOriginalHttpMethod',
  'followAuthorizationHeader',
  'strictSSL',
  'disableUrlEncoding',
  'alwaysSendBody',
] as const satisfies ReadonlyArray<keyof RequestSpec & keyof ResolvedRequest>;

/**
 * Runs an API node: failed on a network-level error (nothing to assert on), on a failed assertion
 * (every assertion is evaluated and counted), or on a failed hook (with its line).
 */
export async function runApiNode(flow: FlowBase, node: ApiNode): Promise<NodeResult> {
  const { port } = flow;
  const result = flow.base(node);
  const request = resolveRequest(node, flow.templateVariables(), port.dynamic, port.settings);
  const label = node.name ? `${node.name} (${node.id})` : node.id;
  const out = await port.executeApiNode(
    {
      ...flow.scope(),
      label: node.id,
      request,
      script: node.script,
      retry: node.retry,
      variables: flow.state.variables,
      nodes: node.script ? flow.state.nodes : undefined,
      deadlineMs: port.deadlineMs,
    },
    flow.summary(`${label}: ${request.method} ${request.url}`),
  );
  flow.state.variables = out.variables;
  result.request = {
    method: out.request.method,
    url: out.request.url,
    ...(request.auth ? { auth: maskedAuth(request.auth) } : {}),
  };
  if (out.logs.length) result.logs = out.logs;
  if (out.attempts.length > 1) result.attempts = out.attempts;
  const ex = out.exchange;
  if (ex) {
    const response = {
      status: ex.status,
      headers: ex.headers,
      body: ex.body,
      time: ex.timeMs,
      size: ex.size,
      ...(ex.contentEncoding ? { contentEncoding: ex.contentEncoding } : {}),
    };
    flow.state.nodes[node.id] = { request: out.request, response };
    result.duration = out.attempts.reduce((ms, a) => ms + a.timeMs + (a.delayMs ?? 0), 0);
    result.response = {
      status: ex.status,
      timeMs: ex.timeMs,
      size: ex.size,
      truncated: ex.truncated,
      ...(ex.contentEncoding ? { contentEncoding: ex.contentEncoding, encodedSize: ex.encodedSize } : {}),
      ...(ex.redirects ? { redirects: ex.redirects } : {}),
    };
    if (ex.error) return flow.fail(result, ex.error);
    const input = flow.expressionInput({ response });
    result.assertions = [];
    for (const assertion of node.assertions ?? []) {
      const outcome = await evaluateAssertion(assertion, input as never, port.evaluate);
      result.assertions.push(outcome);
      flow.state.assertions += 1;
      if (outcome.passed) flow.state.passedAssertions += 1;
      else {
        result.status = 'failed';
        flow.addFailure({
          node: node.id,
          assertion: assertion.name ?? assertion.target,
          operator: assertion.operator,
          expected: preview(assertion.expected, 500),
          actual: outcome.actual,
          message: outcome.message ?? 'assertion failed',
        });
      }
    }
  }
  recordScriptChecks(flow, result, node.id, out.tests);
  flow.step(
    `${label}: ${request.method} ${request.url} → ${ex ? (ex.error ? ex.error : `${ex.status} · ${Math.round(ex.timeMs)} ms`) : 'not sent'}${result.status === 'failed' ? ' ✗' : ''}`,
  );
  if (out.scriptError) {
    result.line = out.scriptError.line;
    return flow.fail(result, `${out.scriptError.hook} failed${where(out.scriptError)}: ${out.scriptError.message}`);
  }
  return result;
}
