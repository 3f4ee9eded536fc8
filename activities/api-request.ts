/**
 * The HTTP request of an API node.
 *
 * Network failures (refused, reset, DNS, timeout, invalid URL) are returned as data
 * (`HttpExchange.error`), never thrown: a request that cannot connect fails its test case, not
 * the run. Only a bug would make this activity throw.
 *
 * Requests go through the worker's address policy (src/net/address-policy.ts; sent and read with
 * src/net/http.ts): its keep-alive
 * agent for API nodes judges every connection, redirect hops included, and a refused one comes
 * back as `errorCode: ADDRESS_NOT_ALLOWED` with the address and the rule in `error`.
 *
 * The body is kept up to `maxResponseBytes`: reading stops at the cap (the body stream is
 * destroyed, so a 100 MB answer costs the worker no more than the cap), `truncated` is set and
 * `size` is the bytes received until then. What returns to the workflow thus
 * stays well under Temporal's payload limits.
 */
import type { Agent } from 'undici';
import type { HttpExchange, ResolvedRequest } from '../src/domain/types';
import { ADDRESS_NOT_ALLOWED, addressRefusalIn } from '../src/net/address-policy';
import { guardedRequest, isTimeout, readCapped } from '../src/net/http';
import { startClientSpan, type ClientSpan } from '../src/observability/tracing';

/** Network error codes reported as they are; anything else becomes NETWORK_ERROR. */
const KNOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
]);

function describeError(err: unknown, req: ResolvedRequest): { error: string; errorCode: string } {
  const refused = addressRefusalIn(err);
  if (refused)
    return {
      errorCode: ADDRESS_NOT_ALLOWED,
      error: `${req.method} ${req.url} was not sent (ADDRESS_NOT_ALLOWED): ${refused.message}`,
    };
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (isTimeout(err)) {
    return {
      errorCode: 'TIMEOUT',
      error: `No complete response from ${req.method} ${req.url} within ${req.timeoutMs} ms`,
    };
  }
  if (e.name === 'AbortError' || code === 'UND_ERR_ABORTED') {
    return { errorCode: 'CANCELLED', error: `The request ${req.method} ${req.url} was cancelled` };
  }
  if (code === 'UND_ERR_MAX_REDIRECTIONS' || /redirect/i.test(e.message ?? '')) {
    return { errorCode: 'TOO_MANY_REDIRECTS', error: `Too many redirects from ${req.url}` };
  }
  if (code && KNOWN_CODES.has(code)) {
    return {
      errorCode: code,
      error: `Could not reach ${req.url}: ${code}${e.message && !e.message.includes(code) ? ` (${e.message})` : ''}`,
    };
  }
  return { errorCode: 'NETWORK_ERROR', error: `Request ${req.method} ${req.url} failed: ${e.message ?? String(err)}` };
}

function headerRecord(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function encodeBody(req: ResolvedRequest, headers: Record<string, string>): string | undefined {
  if (req.body === undefined || req.method === 'GET' || req.method === 'HEAD') return undefined;
  const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
  if (typeof req.body === 'string') {
    if (!hasType) headers['content-type'] = 'text/plain; charset=utf-8';
    return req.body;
  }
  if (!hasType) headers['content-type'] = 'application/json';
  return JSON.stringify(req.body);
}

function decodeBody(text: string, contentType: string | undefined, truncated: boolean): unknown {
  if (text === '') return undefined;
  if (truncated) return text;
  const looksJson = contentType ? /[/+]json\b/i.test(contentType) : /^\s*[[{]/.test(text);
  if (!looksJson) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Sends `req` through `agent` (the address policy's agent for API nodes) and reads the response;
 * `signal` (an activity's cancellation, or none) aborts it as `CANCELLED`. `trace`: with traces on
 * and a span active, the request is a client span and carries its W3C `traceparent`
 * (src/observability/tracing.ts `startClientSpan`; a header of that name the test case set wins).
 *
 * @returns status, lower-cased headers, the body (parsed JSON when the response is JSON), its size
 *   in bytes and the elapsed time in ms; or `error`/`errorCode` when no response arrived.
 */
export async function sendHttpRequest(
  req: ResolvedRequest,
  agent: Agent,
  signal?: AbortSignal,
  trace?: boolean,
): Promise<HttpExchange> {
  return { ...(await exchange(req, agent, signal, trace === true)), finishedAtMs: Date.now() };
}

async function exchange(
  req: ResolvedRequest,
  agent: Agent,
  cancellation: AbortSignal | undefined,
  trace: boolean,
): Promise<Omit<HttpExchange, 'finishedAtMs'>> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return {
      headers: {},
      size: 0,
      truncated: false,
      timeMs: 0,
      errorCode: 'INVALID_URL',
      error: `"${req.url}" is not a valid absolute URL`,
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      headers: {},
      size: 0,
      truncated: false,
      timeMs: 0,
      errorCode: 'INVALID_URL',
      error: `Only http and https URLs can be requested, not ${url.protocol}`,
    };
  }

  const headers: Record<string, string> = { 'user-agent': 'Assay/0.1', ...req.headers };
  const body = encodeBody(req, headers);
  const span: ClientSpan | undefined = trace ? startClientSpan(req.method, url, headers) : undefined;
  try {
    const res = await guardedRequest(agent, url, {
      method: req.method,
      headers,
      body,
      timeoutMs: req.timeoutMs,
      signal: cancellation,
      followRedirects: req.followRedirects,
    });
    const responseHeaders = headerRecord(res.headers as Record<string, string | string[] | undefined>);
    // Stop reading at the cap: destroying the body closes the connection, nothing more arrives.
    const { bytes, size, truncated } = await readCapped(res.body, req.maxResponseBytes);
    const text = bytes.toString('utf8');
    span?.end(res.statusCode);
    return {
      status: res.statusCode,
      headers: responseHeaders,
      body: decodeBody(text, responseHeaders['content-type'], truncated),
      // Cut: the bytes received until the cut; whole: what arrived (or Content-Length, for HEAD).
      size: truncated ? size : Math.max(size, Number(responseHeaders['content-length'] ?? 0) || 0),
      truncated,
      timeMs: elapsed(),
    };
  } catch (err) {
    const failure = describeError(err, req);
    span?.end(undefined, failure.errorCode);
    return { headers: {}, size: 0, truncated: false, timeMs: elapsed(), ...failure };
  }
}
