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
 *
 * Only a fingerprint (SHA-256) of the request is stored, never the body. A secret variable in the
 * body (`{"value": …, "secret": true}`, docs/secrets.md) enters it as an HMAC-SHA256 of its value
 * under a key derived from the key ring (HKDF), not as the value: a plain hash of a short or
 * guessable secret could be reversed by trying candidates, a keyed one cannot without the ring.
 * The fingerprint under each key of the ring is computed, so a key rotated within the 24 h window
 * still matches.
 */
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import type { KeyRing } from '../src/secrets/keyring';
import { isSecretInput } from '../src/secrets/variables';
import type { AppContext } from './context';
import { Problem } from './problem';

/** How long a key keeps returning the run it created (draft §2.3: "at least 24 hours" is common). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** A request's key and the fingerprint of what it asks for. */
export interface IdempotencyRequest {
  key: string;
  /** SHA-256 hex of the request's target and canonical body (secrets keyed with the ring's primary key); stored. */
  fingerprint: string;
  /** The same under the ring's other keys (present only when the body holds a secret and the ring has several keys). */
  alternates?: string[];
}

/** The key secrets are fingerprinted with, derived from ring key `key` (so the ring's key itself is never used twice). */
function fingerprintKey(key: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'assay idempotency fingerprint', 32));
}

/**
 * JSON with object keys sorted, so the same body in another key order has the same fingerprint;
 * a secret `{"value": v, "secret": true}` is written `{"secret":true,"hmac":"<hex>"}` (HMAC of v's
 * JSON under `secretKey`). @throws Error for a secret without `secretKey` (a caller forgot the ring).
 */
function canonical(value: unknown, secretKey?: Buffer): string {
  if (isSecretInput(value)) {
    if (!secretKey) throw new Error('readIdempotencyKey: a body with secrets needs the key ring');
    return `{"secret":true,"hmac":"${createHmac('sha256', secretKey).update(JSON.stringify(value.value)).digest('hex')}"}`;
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, secretKey)).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k], secretKey)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** True when `value` holds a secret `{"value": …, "secret": true}` anywhere. */
function holdsSecret(value: unknown): boolean {
  if (isSecretInput(value)) return true;
  if (Array.isArray(value)) return value.some(holdsSecret);
  return !!value && typeof value === 'object' && Object.values(value).some(holdsSecret);
}

/** True when the stored fingerprint of an earlier call is that of `request` (under any key of the ring). */
export function sameRequest(storedFingerprint: string | null, request: IdempotencyRequest): boolean {
  return (
    storedFingerprint === request.fingerprint ||
    (!!storedFingerprint && !!request.alternates?.includes(storedFingerprint))
  );
}

/**
 * Reads `Idempotency-Key` from the request.
 *
 * @param target names what is being started (e.g. `POST /v1/runs`, `webhook dep_…`) so that one key
 *   sent to two endpoints counts as two different requests.
 * @param body the parsed request body (its canonical JSON is fingerprinted).
 * @param ring the key ring, needed when the body may hold secret variables (they are fingerprinted
 *   as keyed HMACs, module comment).
 * @returns undefined when the header is absent.
 * @throws Problem `invalid-header` (400) when it is empty, too long or not visible ASCII.
 */
export function readIdempotencyKey(
  ctx: AppContext,
  target: string,
  body: unknown,
  ring?: KeyRing,
): IdempotencyRequest | undefined {
  const raw = ctx.get('Idempotency-Key');
  if (raw === '' && ctx.headers['idempotency-key'] === undefined) return undefined;
  const unquoted = /^"(.*)"$/.exec(raw.trim());
  const key = unquoted ? unquoted[1]!.replace(/\\(["\\])/g, '$1') : raw.trim();
  if (key.length === 0 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new Problem(
      'invalid-header',
      'Header Idempotency-Key must be 1 to 255 visible ASCII characters (e.g. a UUID).',
      {
        errors: [
          {
            field: 'Idempotency-Key',
            pointer: 'header:Idempotency-Key',
            detail: 'must be 1 to 255 visible ASCII characters',
          },
        ],
      },
    );
  }
  const digest = (secretKey?: Buffer) =>
    createHash('sha256')
      .update(`${target}\n${canonical(body ?? {}, secretKey)}`)
      .digest('hex');
  if (!ring || !holdsSecret(body)) return { key, fingerprint: digest() };
  const [fingerprint, ...alternates] = ring.keys.map((k) => digest(fingerprintKey(k.key)));
  return { key, fingerprint: fingerprint!, ...(alternates.length ? { alternates } : {}) };
}
