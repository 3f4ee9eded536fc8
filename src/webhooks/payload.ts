/**
 * Outgoing webhook payloads (spec "Events"): templates, the data they see, the default payload,
 * and the signature.
 *
 * Templates: in every string of a `payload` (keys too) and in header values, `{{expression}}` is a
 * JSONata expression over {@link WebhookData}: `{{deployment.name}}`, `{{result.passed}}`,
 * `{{result.status = 'passed' ? ':white_check_mark:' : ':x:'}}`. A string that is one placeholder
 * and nothing else takes the value's JSON type (`"{{result.summary}}"` becomes the summary object);
 * inside longer text, values are written as text (objects as JSON). A placeholder that yields
 * nothing or fails stays as written, so a mistake is visible to the receiver.
 *
 * Signature: `x-assay-signature: sha256=<lower-case hex HMAC-SHA256 of the exact body bytes>`,
 * keyed with the deployment's signing secret (spec "Authentication" 4; docs/deployments.md); and the
 * Standard Webhooks headers ({@link standardWebhookHeaders}), which bind a timestamp into the
 * signature so receivers can refuse replays.
 */
import type { PerformanceResults } from '../perf/metrics';
import { createHmac } from 'node:crypto';
import { sharedExpressionPool } from '../expression-pool/pool';
import {
  BUDGET_CODE,
  checkExpression,
  evaluateExpression,
  ExpressionError,
  WORKFLOW_LIMITS,
} from '../domain/expressions';
import type { RunSummary, TestCaseResult } from '../domain/types';

/** What payload templates see. Durations are milliseconds, times ISO 8601 UTC. */
export interface WebhookData {
  /** `run.completed` or `run.failed`. */
  event: string;
  deployment: { id: string; name: string; runner: string; environment: string };
  result: {
    runId: string;
    /** The outcome: `passed` when the run completed with result passed, else `failed`. */
    status: 'passed' | 'failed';
    /** The run's status: `completed` or `failed`. */
    runStatus: string;
    result: string | null;
    summary: RunSummary;
    details: { testCases: TestCaseResult[] };
    passed: number;
    failed: number;
    skipped: number;
    total: number;
    duration: number | null;
    timestamp: string;
    detailsUrl: string;
    error: string | null;
    trigger: string;
  };
  /** What the caller of an incoming webhook sent (trigger, version, metadata, other fields), or {}. */
  context: Record<string, unknown>;
  /**
   * A performance run's figures (the results' `performance` object, docs/performance.md), for
   * templates such as `{{performance.p95ResponseTime}}`; absent for functional runs.
   */
  performance?: PerformanceResults;
}

const PLACEHOLDER = /\{\{([\s\S]+?)\}\}/g;
const WHOLE = /^\{\{([\s\S]+?)\}\}$/;

/** Problems with the templates in a value: placeholders that do not parse, with their path. */
export function templateIssues(
  value: unknown,
  path: Array<string | number>,
): Array<{ path: Array<string | number>; message: string }> {
  const issues: Array<{ path: Array<string | number>; message: string }> = [];
  const visit = (v: unknown, at: Array<string | number>) => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(PLACEHOLDER)) {
        const err = checkExpression(m[1]!.trim());
        if (err) issues.push({ path: at, message: `{{${m[1]}}} is not a valid JSONata expression: ${err.message}` });
      }
    } else if (Array.isArray(v)) v.forEach((x, i) => visit(x, [...at, i]));
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        visit(k, [...at, k]);
        visit(x, [...at, k]);
      }
    }
  };
  visit(value, path);
  return issues;
}

/**
 * Evaluates a placeholder: with the small in-process budget first; one that needs more runs on the
 * expression threads (2,000,000 steps, stopped at 3 s), never on the caller's main thread.
 */
async function evaluate(expression: string, data: WebhookData): Promise<unknown> {
  try {
    return await evaluateExpression(expression.trim(), data, {}, WORKFLOW_LIMITS);
  } catch (err) {
    if (!(err instanceof ExpressionError) || err.code !== BUDGET_CODE) return undefined;
  }
  const out = await sharedExpressionPool().evaluate(expression.trim(), data);
  return out.error ? undefined : out.value;
}

async function renderString(text: string, data: WebhookData): Promise<unknown> {
  const whole = WHOLE.exec(text);
  if (whole && !whole[1]!.includes('}}')) {
    const value = await evaluate(whole[1]!, data);
    return value === undefined ? text : value;
  }
  let out = '';
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    out += text.slice(last, m.index);
    const value = await evaluate(m[1]!, data);
    out +=
      value === undefined ? m[0] : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
    last = m.index! + m[0].length;
  }
  return out + text.slice(last);
}

/** Renders a payload template (any JSON value) against `data`. */
export async function renderTemplate(template: unknown, data: WebhookData): Promise<unknown> {
  if (typeof template === 'string') return template.includes('{{') ? renderString(template, data) : template;
  if (Array.isArray(template)) return Promise.all(template.map((v) => renderTemplate(v, data)));
  if (template && typeof template === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(template))
      out[String(await renderTemplate(k, data))] = await renderTemplate(v, data);
    return out;
  }
  return template;
}

/** The payload sent when an entry configures none (docs/deployments.md). */
export function defaultPayload(data: WebhookData): unknown {
  const { details: _details, ...result } = data.result;
  // The time series and per-name breakdown are for plots and reports: the default payload keeps the figures.
  const performance =
    data.performance && (({ series: _s, byName: _n, byTestCase: _t, ...figures }) => figures)(data.performance);
  return {
    event: data.event,
    deployment: data.deployment,
    run: result,
    context: data.context,
    ...(performance ? { performance } : {}),
  };
}

/** `sha256=<hex>` of the exact body bytes under `secret`. */
export function signature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The Standard Webhooks headers of one delivery attempt. */
export interface StandardWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * The Standard Webhooks headers (https://www.standardwebhooks.com, spec v1.0.0 "Signature
 * scheme"): `webhook-id` (the delivery id, the same on every attempt), `webhook-timestamp`
 * (integer Unix seconds of this attempt) and `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">`.
 *
 * Key: the UTF-8 bytes of the deployment's signing secret exactly as shown (`whsec_…` included),
 * the same key as `x-assay-signature`. Our secrets are not base64 of the key as the spec's
 * `whsec_<base64>` format is, so a receiver using a Standard Webhooks library passes the raw key,
 * e.g. `new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' })`, or the spec form
 * `'whsec_' + base64(secret)` (docs/deployments.md).
 *
 * @param secret the deployment's signing secret
 * @param id the delivery id
 * @param body the exact body bytes sent
 * @param now the attempt's time (default: now)
 */
export function standardWebhookHeaders(
  secret: string,
  id: string,
  body: string | Buffer,
  now: Date = new Date(),
): StandardWebhookHeaders {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${id}.${timestamp}.`)
    .update(body)
    .digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
}
