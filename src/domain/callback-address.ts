/**
 * Callback addresses (docs/async.md "Callbacks"): what a Callback node's URL carries and how the API
 * knows it was made by Assay for that run. Pure (HMAC-SHA256 from @noble/hashes, no Node built-ins,
 * no TextEncoder): the workflow computes addresses, the API reads and checks them.
 *
 *   <baseUrl>/callbacks/<token>
 *   token = base64url(JSON [runId, workflowId, key]) "." base64url(tag)
 *   key   = "<testCaseId>:<Ref chain joined by '›'>:<nodeId>"   ({@link callbackKey})
 *   tag   = first 128 bits of HMAC-SHA256(planKey, workflowId + "|" + key)   ({@link callbackTag})
 *
 * `planKey` is the run's callback key (RunPlan `callbacks.key`): base64url(HMAC-SHA256(ring key,
 * "assay-callback:" + runId)) made by `startRun` with the first key of the secret key ring
 * (src/callbacks/keys.ts); the API recomputes it with every key of the ring (rotation), so a token
 * cannot be forged without a ring key, and one run's token says nothing about another's.
 * The same node has the same address in every loop iteration: callbacks queue up there.
 */
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha256';

/** Bytes of the tag kept in a token (128 bits: RFC 2104 §5 allows truncation to half the hash). */
export const CALLBACK_TAG_BYTES = 16;

/** What a token names: the run, the workflow to signal and the Callback node's key. */
export interface CallbackTarget {
  runId: string;
  workflowId: string;
  key: string;
}

/** UTF-8 bytes of `text` (without TextEncoder, which workflow code may lack). */
export function utf8(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

/** Text of UTF-8 `bytes`; undefined when they are not well-formed UTF-8. */
function fromUtf8(bytes: Uint8Array): string | undefined {
  let text = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    let c: number;
    let n: number;
    if (b < 0x80) [c, n] = [b, 0];
    else if (b >= 0xc2 && b < 0xe0) [c, n] = [b & 31, 1];
    else if (b >= 0xe0 && b < 0xf0) [c, n] = [b & 15, 2];
    else if (b >= 0xf0 && b < 0xf5) [c, n] = [b & 7, 3];
    else return undefined;
    if (i + n >= bytes.length + (n ? 0 : 1)) return undefined;
    for (let k = 1; k <= n; k++) {
      const f = bytes[i + k]!;
      if ((f & 0xc0) !== 0x80) return undefined;
      c = (c << 6) | (f & 63);
    }
    i += n + 1;
    text += String.fromCodePoint(c);
  }
  return text;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** base64url without padding (RFC 4648 §5). */
export function base64url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
    if (i + 1 < bytes.length) out += ALPHABET[(n >> 6) & 63]!;
    if (i + 2 < bytes.length) out += ALPHABET[n & 63]!;
  }
  return out;
}

/** Bytes of unpadded base64url text; undefined when it is not base64url. */
export function fromBase64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text) {
    value = (value << 6) | ALPHABET.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >> bits) & 255);
    }
  }
  return Uint8Array.from(out);
}

/** The key of a Callback node within a run: its test case, the Ref chain it runs in, its id. */
export function callbackKey(testCaseId: string, chain: readonly string[], nodeId: string): string {
  return `${testCaseId}:${chain.join('›')}:${nodeId}`;
}

/** The token's tag: base64url of the first {@link CALLBACK_TAG_BYTES} of HMAC-SHA256(planKey, workflowId|key). */
export function callbackTag(planKey: string, workflowId: string, key: string): string {
  return base64url(hmac(sha256, utf8(planKey), utf8(`${workflowId}|${key}`)).subarray(0, CALLBACK_TAG_BYTES));
}

/** The callback id users see (`cb_` and the first 12 characters of the tag: 72 bits). */
export function callbackId(tag: string): string {
  return `cb_${tag.slice(0, 12)}`;
}

/** The token of `target` made with the run's `planKey` (module comment). */
export function callbackToken(target: CallbackTarget, planKey: string): string {
  const payload = base64url(utf8(JSON.stringify([target.runId, target.workflowId, target.key])));
  return `${payload}.${callbackTag(planKey, target.workflowId, target.key)}`;
}

/**
 * The address of `target`: the plan's callback base (RunPlan `callbacks.baseUrl`) and its token
 * made with the plan's key (the workflow port's Callback nodes, and a `testCase`-mode segment's
 * `{{callback.url}}`, activities/test-case.ts).
 */
export function callbackUrl(plan: { baseUrl: string; key: string }, target: CallbackTarget): string {
  return `${plan.baseUrl}/callbacks/${callbackToken(target, plan.key)}`;
}

/** Longest token read (the three fields stay well under it). */
const MAX_TOKEN_CHARS = 2048;

/**
 * What a token names and its tag, or undefined when it is not a token's shape. The tag is NOT
 * checked here (that needs the ring: src/callbacks/keys.ts).
 */
export function readCallbackToken(token: string): (CallbackTarget & { tag: string }) | undefined {
  if (token.length > MAX_TOKEN_CHARS) return undefined;
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  const tag = token.slice(dot + 1);
  const bytes = fromBase64url(token.slice(0, dot));
  if (!bytes || !/^[A-Za-z0-9_-]{22}$/.test(tag)) return undefined;
  const text = fromUtf8(bytes);
  if (text === undefined) return undefined;
  try {
    const fields: unknown = JSON.parse(text);
    if (!Array.isArray(fields) || fields.length !== 3 || !fields.every((f) => typeof f === 'string' && f.length > 0))
      return undefined;
    const [runId, workflowId, key] = fields as [string, string, string];
    return { runId, workflowId, key, tag };
  } catch {
    return undefined;
  }
}
