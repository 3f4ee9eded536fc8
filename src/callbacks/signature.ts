/**
 * Signatures of callbacks (docs/async.md "Callbacks"), checked by the API before a callback is
 * signalled to its run:
 *
 * - `hmac`: the header (default `X-Assay-Signature`) is `sha256=<hex HMAC-SHA256 of the raw body>`,
 *   the way Assay's own outgoing webhooks sign (src/webhooks/payload.ts `signature`; GitHub's
 *   `X-Hub-Signature-256` is the same form);
 * - `standard-webhooks` (https://www.standardwebhooks.com, spec "Verifying webhook authenticity"):
 *   `webhook-signature` holds space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`
 *   entries, one of which must match; the timestamp must be within 5 minutes of now. The key is the
 *   base64 after `whsec_` when the secret has that prefix (the spec's form), else the secret's UTF-8
 *   bytes (what Assay's outgoing webhooks use).
 *
 * Comparisons are constant-time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Largest distance between a Standard Webhooks timestamp and now (the spec's recommended tolerance). */
export const STANDARD_WEBHOOKS_TOLERANCE_S = 5 * 60;

const equal = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** The key bytes of a Standard Webhooks secret (module comment). */
function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

/**
 * Why the callback's signature is not valid, in words (`the X-Assay-Signature header is missing`),
 * or undefined when it is.
 * @param nowMs the clock (Standard Webhooks timestamps)
 */
export function signatureProblem(
  signature: { scheme: 'hmac' | 'standard-webhooks'; secret?: string; header?: string },
  headers: IncomingHttpHeaders,
  body: Buffer,
  nowMs = Date.now(),
): string | undefined {
  const secret = signature.secret ?? '';
  if (signature.scheme === 'hmac') {
    const name = signature.header ?? 'X-Assay-Signature';
    const given = header(headers, name);
    if (!given) return `the ${name} header is missing`;
    const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    return equal(given.trim().toLowerCase(), expected) ? undefined : `the ${name} header does not match the body`;
  }
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const given = header(headers, 'webhook-signature');
  if (!id || !timestamp || !given) return 'webhook-id, webhook-timestamp and webhook-signature are required';
  const seconds = Number(timestamp);
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowMs / 1000 - seconds) > STANDARD_WEBHOOKS_TOLERANCE_S)
    return `webhook-timestamp is more than ${STANDARD_WEBHOOKS_TOLERANCE_S / 60} minutes from now`;
  const expected = createHmac('sha256', standardKey(secret))
    .update(`${id}.${timestamp}.`)
    .update(body)
    .digest('base64');
  const matches = given.split(' ').some((entry) => entry.startsWith('v1,') && equal(entry.slice(3), expected));
  return matches ? undefined : 'webhook-signature does not match the body';
}
