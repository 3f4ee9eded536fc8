/**
 * The keys behind callback addresses (docs/async.md "Callbacks"; the address format is
 * src/domain/callback-address.ts): a run's callback key, made from the secret key ring, and the
 * check of a token's tag against every key of the ring (rotation: docs/security.md "Secrets").
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { KeyRing } from '../secrets/keyring';
import { callbackTag, readCallbackToken, type CallbackTarget } from '../domain/callback-address';

/** A run's callback key (RunPlan `callbacks.key`): base64url(HMAC-SHA256(ring key, "assay-callback:" + runId)). */
export function runCallbackKey(ringKey: Buffer, runId: string): string {
  return createHmac('sha256', ringKey).update(`assay-callback:${runId}`).digest('base64url');
}

/** The callbacks part of a run's plan: addresses under `baseUrl`, tags made with the ring's first key. */
export function planCallbacks(ring: KeyRing, baseUrl: string, runId: string): { baseUrl: string; key: string } {
  return { baseUrl, key: runCallbackKey(ring.keys[0]!.key, runId) };
}

/**
 * What `token` names when its tag was made by a key of the ring for that run, workflow and node;
 * undefined for anything else (malformed, forged, or made with a key no longer in the ring).
 */
export function verifyCallbackToken(ring: KeyRing, token: string): (CallbackTarget & { tag: string }) | undefined {
  const read = readCallbackToken(token);
  if (!read) return undefined;
  const given = Buffer.from(read.tag);
  for (const { key } of ring.keys) {
    const expected = Buffer.from(callbackTag(runCallbackKey(key, read.runId), read.workflowId, read.key));
    if (expected.length === given.length && timingSafeEqual(expected, given)) return read;
  }
  return undefined;
}
