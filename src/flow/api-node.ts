/**
 * API nodes: the request resolved from the node's templates, executed through the port (hooks,
 * retries), then its assertions evaluated against the response.
 */
import { fillTemplate, fillTemplates, type DynamicSources, type TemplateVariables } from '../domain/templating';
import type {
  ApiNode,
  HttpExchange,
  MultipartPart,
  NodeResult,
  RequestAuth,
  RequestSpec,
  ResolvedRequest,
  RunSettings,
} from '../domain/types';
import type { NodeContext } from './types';
import type { FlowBase } from './flow-base';
import { recordScriptChecks, where } from './script-node';
import { maskedAuth } from '../domain/request-auth';
import { fillServers, fillServersDeep, joinServerUrl, UnknownServerError } from './servers';
import { apiNodeAuthProfile, profileInResults } from '../domain/auth-profiles';
import { evaluateAssertion, preview } from '../domain/assertions';
import { MOCK_SCOPE_HEADER } from '../domain/mocks';
import { debugExchange } from './debug';

/**
 * Fills placeholders and defaults of an API node's request (or a Poll node's, src/flow/poll-node.ts). With the run's `servers` (RunPlan
 * `servers`; src/flow/servers.ts), the node's `server` and `{{server.<name>}}` placeholders are
 * put in first; without (plans frozen before servers existed) the request is filled as it always was.
 * @throws UnknownServerError when the request names a server `servers` lacks
 */
export function resolveRequest(
  node: Pick<ApiNode, 'request' | 'server'>,
  variables: TemplateVariables,
  dynamic: DynamicSources,
  settings: RunSettings,
  servers?: Readonly<Record<string, string>>,
): ResolvedRequest {
  const spec = withServers(node, variables, servers);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.headers ?? {})) {
    headers[fillTemplate(name, variables, dynamic)] = fillTemplate(value, variables, dynamic);
  }
  const resolved: ResolvedRequest = {
    method: spec.method,
    url: fillTemplate(spec.url, variables, dynamic),
    headers,
    body: spec.body === undefined ? undefined : fillTemplates(spec.body, variables, dynamic),
    timeoutMs: spec.timeoutMs ?? settings.requestTimeoutMs,
    followRedirects: spec.followRedirects ?? true,
    maxResponseBytes: settings.maxResponseBytes,
  };
  // Files (docs/flows.md "Files"): refs and names filled here; the node activity reads the bytes.
  if (spec.multipart !== undefined) resolved.multipart = fillParts(spec.multipart, variables, dynamic);
  if (spec.file !== undefined) {
    const file = typeof spec.file === 'string' ? { file: spec.file } : spec.file;
    resolved.file = {
      file: fillTemplate(file.file, variables, dynamic),
      ...(file.contentType !== undefined ? { contentType: fillTemplate(file.contentType, variables, dynamic) } : {}),
    };
  }
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

/** Multipart parts with every string's templates filled (names, values, refs, file names, types). */
function fillParts(parts: MultipartPart[], variables: TemplateVariables, dynamic: DynamicSources): MultipartPart[] {
  return parts.map((part) => {
    const out: MultipartPart = { name: '' };
    for (const [field, value] of Object.entries(part))
      if (typeof value === 'string') out[field as keyof MultipartPart] = fillTemplate(value, variables, dynamic);
    return out;
  });
}

/**
 * The request with the workspace its files are read from (`workspaceId`, the run's: RunPlan
 * `workspaceId`, InterpreterPort `workspaceId` or its `mockScope`'s) when it sends files
 * (`multipart` or `file`); the request itself otherwise, so requests without files stay what
 * recorded histories hold. Synchronous: no workflow command.
 */
export function withFilesWorkspace(request: ResolvedRequest, workspaceId: string | undefined): ResolvedRequest {
  if ((request.multipart === undefined && request.file === undefined) || workspaceId === undefined) return request;
  return { ...request, workspaceId };
}

/** A request's files as results show them (NodeResult `request.parts` / `request.file`): `{}` when it sent none. */
export function sentFilesResult(
  ex: HttpExchange | undefined,
): Pick<NonNullable<NodeResult['request']>, 'parts' | 'file'> {
  const sent = ex?.sentFiles;
  if (!sent) return {};
  return { ...(sent.parts ? { parts: sent.parts } : {}), ...(sent.file ? { file: sent.file } : {}) };
}

/**
 * The node's request with its server put in (src/flow/servers.ts): the `server` field's base URL
 * joined to `url`, and `{{server.<name>}}` replaced everywhere templates are filled. The request
 * itself when the plan has no servers and the node names none.
 * @throws UnknownServerError
 */
function withServers(
  node: Pick<ApiNode, 'request' | 'server'>,
  variables: TemplateVariables,
  servers: Readonly<Record<string, string>> | undefined,
): RequestSpec {
  const spec = node.request;
  if (servers === undefined) {
    if (node.server === undefined) return spec;
    throw new UnknownServerError(node.server, []);
  }
  const fill = (text: string) => fillServers(text, servers, variables);
  const deep = (value: unknown): unknown => fillServersDeep(value, servers, variables);
  let url = fill(spec.url);
  if (node.server !== undefined) {
    const base = servers[node.server];
    if (base === undefined) throw new UnknownServerError(node.server, Object.keys(servers));
    url = joinServerUrl(base, url);
  }
  const out: RequestSpec = { ...spec, url };
  if (spec.headers) out.headers = Object.fromEntries(Object.entries(spec.headers).map(([k, v]) => [fill(k), fill(v)]));
  if (spec.body !== undefined) out.body = deep(spec.body);
  if (spec.auth) out.auth = deep(spec.auth) as RequestAuth;
  if (spec.multipart) out.multipart = deep(spec.multipart) as MultipartPart[];
  if (spec.file !== undefined) out.file = deep(spec.file) as RequestSpec['file'];
  return out;
}

/**
 * The request with `X-Assay-Mock-Scope: <scope>` added when its URL's path starts with
 * `/mock/<workspaceId>/` (the run's workspace's mocks, on whatever host and port serve them) and it
 * sets no such header itself (docs/mocks.md "State"); the request itself otherwise. Synchronous:
 * no workflow command.
 */
export function withMockScope(
  request: ResolvedRequest,
  mockScope: { workspaceId: string; scope: string } | undefined,
): ResolvedRequest {
  if (!mockScope) return request;
  const at = request.url.indexOf(`/mock/${mockScope.workspaceId}/`);
  if (at < 0) return request;
  // Only in the path: after the authority (`scheme://host[:port]`), before any query.
  const authority = request.url.indexOf('://');
  const pathStart = authority < 0 ? 0 : request.url.indexOf('/', authority + 3);
  const query = request.url.search(/[?#]/);
  if (at !== pathStart || (query >= 0 && query < at)) return request;
  if (Object.keys(request.headers).some((name) => name.toLowerCase() === MOCK_SCOPE_HEADER)) return request;
  return { ...request, headers: { ...request.headers, [MOCK_SCOPE_HEADER]: mockScope.scope } };
}

/** The request settings copied as they are into the resolved request (docs/flows.md "Request settings"). */
const REQUEST_SETTINGS = [
  'maxRedirects',
  'followOriginalHttpMethod',
  'followAuthorizationHeader',
  'strictSSL',
  'disableUrlEncoding',
  'alwaysSendBody',
  'refererOnRedirect',
] as const satisfies ReadonlyArray<keyof RequestSpec & keyof ResolvedRequest>;

/** The response as expressions see it (`response`, `nodes.<id>.response`) from the exchange an activity observed. */
export function responseContext(ex: HttpExchange): NodeContext['response'] & { contentEncoding?: string } {
  return {
    status: ex.status,
    headers: ex.headers,
    body: ex.body,
    time: ex.timeMs,
    size: ex.size,
    ...(ex.contentEncoding ? { contentEncoding: ex.contentEncoding } : {}),
  };
}

/** The response as a node's result keeps it (NodeResult `response`: no headers or body). */
export function responseResult(ex: HttpExchange): NonNullable<NodeResult['response']> {
  return {
    status: ex.status,
    timeMs: ex.timeMs,
    size: ex.size,
    truncated: ex.truncated,
    ...(ex.contentEncoding ? { contentEncoding: ex.contentEncoding, encodedSize: ex.encodedSize } : {}),
    ...(ex.redirects ? { redirects: ex.redirects } : {}),
  };
}

/**
 * Sets an API node's `extract` variables from its response, in order (a later one sees an earlier
 * one), as a Context node sets its own: `undefined` removes the variable; the result lists them in
 * `variablesSet` (previews). Answers the failed result at the first expression that cannot be
 * evaluated or whose value is over `PAYLOAD_LIMITS.valueBytes`, else undefined.
 */
async function extractVariables(
  flow: FlowBase,
  node: ApiNode,
  result: NodeResult,
  response: unknown,
): Promise<NodeResult | undefined> {
  if (!node.extract) return undefined;
  const set: Record<string, unknown> = {};
  for (const [name, expression] of Object.entries(node.extract)) {
    try {
      const value = await flow.port.evaluate(expression, flow.expressionInput({ response }));
      const problem = flow.variableValueProblem(value, `extract.${name}`);
      if (problem) return flow.fail(result, problem);
      set[name] = value;
      if (value === undefined) {
        const { [name]: _gone, ...rest } = flow.state.variables;
        flow.state.variables = rest;
      } else flow.state.variables = { ...flow.state.variables, [name]: value };
    } catch (err) {
      return flow.fail(result, `extract.${name}: ${(err as Error).message}`);
    }
  }
  result.variablesSet = Object.fromEntries(Object.entries(set).map(([k, v]) => [k, preview(v, 500)]));
  return undefined;
}

/**
 * Runs an API node at `path` (src/flow/execution-id.ts): failed on a network-level error (nothing
 * to assert on; the exchange's `errorCode` becomes the result's, docs/flows.md "Error codes"), on
 * a failed assertion (every assertion is evaluated and counted), or on a failed hook (with its
 * line).
 */
export async function runApiNode(flow: FlowBase, node: ApiNode, path: string): Promise<NodeResult> {
  const { port } = flow;
  const result = flow.base(node);
  const label = node.name ? `${node.name} (${node.id})` : node.id;
  let request: ResolvedRequest;
  try {
    request = withFilesWorkspace(
      withMockScope(
        resolveRequest(node, flow.templateVariables(), port.dynamic, port.settings, port.servers),
        port.mockScope,
      ),
      port.workspaceId ?? port.mockScope?.workspaceId,
    );
  } catch (err) {
    if (!(err instanceof UnknownServerError)) throw err;
    // Nothing is sent: a request to a server the environment lacks would go to a URL that means nothing.
    flow.step(`${label}: not sent ✗ (${err.message})`);
    return flow.fail(result, err.message);
  }
  const outerHooks = flow.testCase.outerHooks;
  const authProfile = apiNodeAuthProfile(node.authProfile, flow.testCase.auth);
  const execution = flow.executionId(path);
  const out = await port.executeApiNode(
    {
      ...flow.scope(),
      label: node.id,
      request,
      script: node.script,
      ...(outerHooks ? { outerHooks } : {}),
      retry: node.retry,
      variables: flow.state.variables,
      nodes: node.script || outerHooks ? flow.state.nodes : undefined,
      deadlineMs: port.deadlineMs,
      ...(authProfile ? { authProfile } : {}),
      ...(execution ? { execution } : {}),
    },
    flow.summary(`${label}: ${request.method} ${request.url}`),
  );
  flow.state.variables = out.variables;
  result.request = {
    method: out.request.method,
    url: out.request.url,
    ...(request.auth ? { auth: maskedAuth(request.auth) } : {}),
    ...(authProfile ? { auth: profileInResults(authProfile) } : {}),
    ...sentFilesResult(out.exchange),
  };
  if (out.logs.length) result.logs = out.logs;
  if (out.attempts.length > 1) result.attempts = out.attempts;
  const ex = out.exchange;
  // A debug run: the request as sent and the response as the flow sees it (src/flow/debug.ts).
  if (flow.capturing) result.debug = debugExchange(out.request, ex);
  if (ex) {
    const response = responseContext(ex);
    flow.state.nodes[node.id] = { request: out.request, response };
    result.duration = out.attempts.reduce((ms, a) => ms + a.timeMs + (a.delayMs ?? 0), 0);
    result.response = responseResult(ex);
    if (ex.error) {
      flow.failWithCode(result, ex.error, ex.errorCode);
      // An imported Postman request's tests, run without a response as Newman runs them.
      recordScriptChecks(flow, result, node.id, out.tests);
      return result;
    }
    const failed = await extractVariables(flow, node, result, response);
    if (failed) return failed;
    const input = flow.expressionInput({ response });
    result.assertions = [];
    for (const assertion of node.assertions ?? [])
      flow.recordAssertion(result, assertion, await evaluateAssertion(assertion, input as never, port.evaluate));
  }
  recordScriptChecks(flow, result, node.id, out.tests);
  flow.step(
    `${label}: ${request.method} ${request.url} → ${ex ? (ex.error ? ex.error : `${ex.status} · ${Math.round(ex.timeMs)} ms`) : 'not sent'}${result.status === 'failed' ? ' ✗' : ''}`,
  );
  if (out.scriptError) {
    result.line = out.scriptError.line;
    const whose = out.scriptError.level ? `${out.scriptError.level} ` : '';
    return flow.fail(
      result,
      `${whose}${out.scriptError.hook} failed${where(out.scriptError)}: ${out.scriptError.message}`,
    );
  }
  return result;
}
