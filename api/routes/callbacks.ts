/**
 * Callback addresses of Callback nodes (docs/async.md "Callbacks"):
 *
 *   GET | POST | PUT | PATCH | DELETE {webhook_base}/callbacks/{token}   any body → the node's `respond`
 *
 * Public (no API key): the token itself is the credential (src/domain/callback-address.ts: it names
 * the run, the workflow and the node, with an HMAC tag made from the secret key ring). In order:
 *
 * 1. a token that is not one Assay made (malformed, forged, made with a key no longer in the ring),
 *    or whose run no longer exists → 404 `callback-not-found`;
 * 2. more than `ASSAY_RATE_LIMIT_PER_MINUTE` callbacks per run and minute → 429 `rate-limited`;
 * 3. the run has ended → 410 `callback-run-ended` (recorded nowhere);
 * 4. a body over `ASSAY_MAX_BODY_BYTES` (the incoming webhooks' limit) → 413 `payload-too-large`;
 * 5. the node has a `signature` and the callback's is missing or wrong → 401
 *    `callback-signature-invalid` (not signalled: the node keeps waiting);
 * 6. otherwise the workflow is signalled (`callback`; never signal-with-start, a callback never
 *    starts a run) and the caller gets the node's `respond` (default 200
 *    `{"received": true, "callbackId": "cb_…"}`); a workflow that has closed meanwhile → 410.
 *
 * The node's `signature` and `respond` come from the run's frozen plan, read once per run and
 * cached ({@link CallbackNodes}).
 */
import Router from '@koa/router';
import type Koa from 'koa';
import { LRUCache } from 'lru-cache';
import type { ApiDeps, AppContext, AppState } from '../context';
import { Problem } from '../problem';
import { PerMinuteLimit } from '../rate-limit';
import { keyRingFor, type KeyRing } from '../../src/secrets/keyring';
import { verifyCallbackToken } from '../../src/callbacks/keys';
import { signatureProblem } from '../../src/callbacks/signature';
import { findRunWithPlan } from '../../src/store/runs';
import { openPlan } from '../../src/secrets/run-plan';
import { Run } from '../../src/store/entities';
import type { DataSource } from 'typeorm';
import type { CallbackNode, FlowNode, ReceivedCallback, RunPlan } from '../../src/domain/types';
import { callbackId } from '../../src/domain/callback-address';
import { forEachNode } from '../../src/flow/tree';
import { refLabel } from '../../src/flow/ref-node';
import { preview } from '../../src/domain/assertions';

/** Methods a callback may use. */
export const CALLBACK_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Bytes of a callback's body passed to the workflow as they are; a longer body is cut (a preview). */
export const CALLBACK_BODY_KEPT_BYTES = 64 * 1024;

/** What the API needs of a Callback node: its signature (secret resolved) and its answer. */
interface CallbackNodeFacts {
  signature?: { scheme: 'hmac' | 'standard-webhooks'; header?: string; secret?: string; missing?: string };
  respond?: CallbackNode['respond'];
}

/** The Callback node `key` names in `plan` (`<testCaseId>:<Ref chain>:<nodeId>`), or undefined. */
export function findCallbackNode(plan: RunPlan, key: string): CallbackNode | undefined {
  const first = key.indexOf(':');
  const last = key.lastIndexOf(':');
  if (first < 0 || last <= first) return undefined;
  const testCase = plan.testCases.find((tc) => tc.id === key.slice(0, first));
  if (!testCase) return undefined;
  const chainText = key.slice(first + 1, last);
  let nodes: FlowNode[] | undefined = testCase.flow;
  for (const name of chainText ? chainText.split('›') : []) {
    let next: FlowNode[] | undefined;
    forEachNode(nodes ?? [], (n) => {
      if (!next && n.type === 'ref' && refLabel(n) === name && Array.isArray(n.flow)) next = n.flow;
    });
    nodes = next;
  }
  let found: CallbackNode | undefined;
  forEachNode(nodes ?? [], (n) => {
    if (!found && n.type === 'callback' && n.id === key.slice(last + 1)) found = n;
  });
  return found;
}

/** The Callback nodes of runs, from their frozen plans (opened: secret variables readable), cached per run. */
class CallbackNodes {
  private readonly plans = new LRUCache<string, { plan: RunPlan; nodes: Map<string, CallbackNodeFacts | null> }>({
    max: 200,
  });

  constructor(
    private readonly dataSource: DataSource,
    private readonly ring: KeyRing,
  ) {}

  async facts(runId: string, key: string): Promise<CallbackNodeFacts | undefined> {
    let entry = this.plans.get(runId);
    if (!entry) {
      const run = await findRunWithPlan(this.dataSource.manager, runId);
      if (!run?.plan) return undefined;
      entry = { plan: openPlan(run.plan, this.ring).plan, nodes: new Map() };
      this.plans.set(runId, entry);
    }
    if (!entry.nodes.has(key)) {
      const node = findCallbackNode(entry.plan, key);
      entry.nodes.set(key, node ? nodeFacts(node, entry.plan.variables) : null);
    }
    return entry.nodes.get(key) ?? undefined;
  }
}

/** A node's signature with its secret resolved: literal text, or `{{name}}` of the plan's variables. */
function nodeFacts(node: CallbackNode, variables: Record<string, unknown>): CallbackNodeFacts {
  const facts: CallbackNodeFacts = node.respond ? { respond: node.respond } : {};
  const sig = node.signature;
  if (!sig) return facts;
  const ref = /^\{\{\s*([^{}]+?)\s*\}\}$/.exec(sig.secret);
  const value = ref ? variables[ref[1]!] : sig.secret;
  facts.signature = {
    scheme: sig.scheme,
    ...(sig.header ? { header: sig.header } : {}),
    ...(typeof value === 'string' && value
      ? { secret: value }
      : { missing: `the signing secret variable "${ref?.[1]}" is not set in the run` }),
  };
  return facts;
}

/** The body, at most `max` bytes (413 beyond). */
async function readBody(ctx: AppContext, max: number): Promise<Buffer> {
  const tooLarge = () =>
    new Problem('payload-too-large', `The callback's body exceeds ${max} bytes (ASSAY_MAX_BODY_BYTES).`, {
      limit: max,
    });
  if (Number(ctx.get('Content-Length') || 0) > max) throw tooLarge();
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > max) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The callback as the node sees it: JSON bodies parsed, others as text; a body over {@link CALLBACK_BODY_KEPT_BYTES} cut. */
function receivedCallback(ctx: AppContext, raw: Buffer): ReceivedCallback {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.headers))
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(ctx.query)) if (value !== undefined) query[name] = value;
  let body: unknown;
  if (raw.length) {
    const text = raw.toString('utf8');
    body = text;
    if (/\bjson\b/i.test(ctx.get('Content-Type'))) {
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON after all: the text */
      }
    }
    if (raw.length > CALLBACK_BODY_KEPT_BYTES) body = preview(body, 16_000);
  }
  return {
    method: ctx.method,
    path: '',
    query,
    headers,
    ...(body !== undefined ? { body } : {}),
    receivedAt: new Date().toISOString(),
  };
}

/** The handler of a callback address (module comment). */
export function receiveCallback(deps: Pick<ApiDeps, 'config' | 'dataSource' | 'workflows'>): Koa.Middleware<AppState> {
  const ring = keyRingFor(deps.config.secretKeys, deps.config.dataDir);
  const limit = new PerMinuteLimit(deps.config.api.rateLimitPerMinute);
  const nodes = new CallbackNodes(deps.dataSource, ring);
  const notFound = () =>
    new Problem('callback-not-found', 'No Callback node waits at this address: the address is not one Assay made.');
  const ended = (runId: string) =>
    new Problem('callback-run-ended', `Run ${runId} has ended: nothing waits for this callback any more.`, { runId });
  return async (ctx) => {
    const target = verifyCallbackToken(ring, String(ctx.params.token ?? ''));
    if (!target) throw notFound();
    const { runId, workflowId, key } = target;
    const run = await deps.dataSource
      .getRepository(Run)
      .findOne({ where: { id: runId }, select: { id: true, status: true, workflowId: true } });
    // The run's own workflow, or one of its loop segments (workflows/workflow-port.ts `runLoopSegment`).
    if (!run || (run.workflowId !== workflowId && !workflowId.startsWith(`run-${runId}-loop-`))) throw notFound();
    await limit.consume(runId, (retryAfter) => `Too many callbacks to this run; retry in ${retryAfter} s.`);
    if (run.status === 'completed' || run.status === 'failed') throw ended(runId);
    const raw = await readBody(ctx, deps.config.api.maxBodyBytes);
    const facts = await nodes.facts(runId, key);
    if (!facts) throw notFound();
    if (facts.signature) {
      const problem = facts.signature.missing ?? signatureProblem(facts.signature, ctx.headers, raw);
      if (problem) throw new Problem('callback-signature-invalid', `The callback was not counted: ${problem}.`);
    }
    const id = callbackId(target.tag);
    const delivered = await deps.workflows.signalCallback(run, workflowId, {
      key,
      callback: receivedCallback(ctx, raw),
    });
    if (delivered === 'closed') throw ended(runId);
    const respond = facts.respond;
    ctx.status = respond?.status ?? 200;
    for (const [name, value] of Object.entries(respond?.headers ?? {})) ctx.set(name, value);
    const body = respond && 'body' in respond ? respond.body : { received: true, callbackId: id };
    if (body !== undefined && ctx.status !== 204 && ctx.status !== 304) {
      const typed = Object.keys(respond?.headers ?? {}).some((h) => h.toLowerCase() === 'content-type');
      ctx.body = typeof body === 'string' ? body : JSON.stringify(body);
      if (!typed) ctx.type = typeof body === 'string' ? 'text/plain' : 'application/json';
    }
  };
}

/** The router of callback addresses (module comment). */
export function callbacksRouter(deps: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  const handler = receiveCallback(deps);
  for (const method of CALLBACK_METHODS) router[method]('/callbacks/:token', handler);
  return router;
}
