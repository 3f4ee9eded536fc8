/**
 * The `Idempotency-Key` request header on every call that starts a run (`POST /v1/runs`, incoming
 * webhooks, `POST /v1/deployments/{id}/runs`), after the IETF draft "The Idempotency-Key HTTP
 * Header Field" (draft-ietf-httpapi-idempotency-key-header):
 *
 * - the value is 1 to 255 visible ASCII characters; a Structured Fields string (`"abc"`, as the
 *   draft writes it) and a bare token (`abc`, as most clients send it) name the same key;
 * - a key is remembered per workspace for {@link IDEMPOTENCY_WINDOW_MS} (24 h) on the run it created:
 *   the same key with the same request returns that run again (same status code, header
 *   `Idempotent-Replayed: true`), never a second run;
 * - the same key with a different request (another endpoint, body or deployment) is refused with
 *   422 `idempotency-key-reused` (draft §2.7);
 * - a call that failed without creating a run (validation, 503) keeps no key, so a retry may succeed.
 *
 * Concurrent calls with one key are serialised by the store's unique index on (workspace, key).
 */
import { createHash } from 'node:crypto';
import type { AppContext } from './context';
import { Problem } from './problem';

/** How long a key keeps returning the run it created (draft §2.3: "at least 24 hours" is common). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** A request's key and the fingerprint of what it asks for. */
export interface IdempotencyRequest {
  key: string;
  /** SHA-256 hex of the request's target and canonical body. */
  fingerprint: string;
}

/** JSON with object keys sorted, so the same body in another key order has the same fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Reads `Idempotency-Key` from the request.
 *
 * @param target names what is being started (e.g. `POST /v1/runs`, `webhook dep_…`) so that one key
 *   sent to two endpoints counts as two different requests.
 * @param body the parsed request body (its canonical JSON is fingerprinted).
 * @returns undefined when the header is absent.
 * @throws Problem `invalid-header` (400) when it is empty, too long or not visible ASCII.
 */
export function readIdempotencyKey(ctx: AppContext, target: string, body: unknown): IdempotencyRequest | undefined {
  const raw = ctx.get('Idempotency-Key');
  if (raw === '' && ctx.headers['idempotency-key'] === undefined) return undefined;
  const unquoted = /^"(.*)"$/.exec(raw.trim());
  const key = unquoted ? unquoted[1]!.replace(/\\(["\\])/g, '$1') : raw.trim();
  if (key.length === 0 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new Problem('invalid-header', 'Header Idempotency-Key must be 1 to 255 visible ASCII characters (e.g. a UUID).', {
      errors: [{ field: 'Idempotency-Key', pointer: 'header:Idempotency-Key', detail: 'must be 1 to 255 visible ASCII characters' }],
    });
  }
  const fingerprint = createHash('sha256').update(`${target}\n${canonical(body ?? {})}`).digest('hex');
  return { key, fingerprint };
}
