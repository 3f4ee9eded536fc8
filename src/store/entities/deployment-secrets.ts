/**
 * A deployment's secrets at rest (docs/secrets.md "Deployments"): the signing secret of its
 * outgoing webhooks and the header values of its outgoing webhook entries (receiver tokens) are
 * stored sealed with the key ring (src/secrets/keyring.ts, AES-256-GCM), never in plain text.
 *
 * - Signing secret: `ring.seal(secret, "deployment-signing:<deploymentId>")` in `signingSecret`.
 * - Header values: each `ring.seal(value, "deployment-webhook-header:<deploymentId>:<name, lower case>")`
 *   in place of the value inside `webhooks`.
 *
 * Rows written before encryption hold plain values: they are read as they are (a stored value is
 * sealed exactly when it has the sealed form, `KeyRing.isSealed`) and sealed on the deployment's
 * next write; the webhook activity also seals a plain or stale signing secret when it uses it
 * (activities/webhooks.ts). Writing a deployment seals everything again under the primary key,
 * which is how a key rotation reaches these values.
 */
import { KeyRing } from '../../secrets/keyring';
import type { Deployment, DeploymentWebhooks } from './deployment';

/** The additional authenticated data of a deployment's sealed signing secret. */
export function signingSecretAad(deploymentId: string): string {
  return `deployment-signing:${deploymentId}`;
}

/** The additional authenticated data of a sealed outgoing webhook header value. */
export function webhookHeaderAad(deploymentId: string, header: string): string {
  return `deployment-webhook-header:${deploymentId}:${header.toLowerCase()}`;
}

/** `secret` sealed for deployment `deploymentId`'s `signingSecret` column. */
export function sealSigningSecret(ring: KeyRing, deploymentId: string, secret: string): string {
  return ring.seal(secret, signingSecretAad(deploymentId));
}

/**
 * The plain signing secret of `d` (a stored plain one, from before encryption, as it is).
 * @throws KeyRingError when it was sealed with a key the ring no longer holds.
 */
export function openSigningSecret(ring: KeyRing, d: Pick<Deployment, 'id' | 'signingSecret'>): string {
  return KeyRing.isSealed(d.signingSecret) ? ring.open(d.signingSecret, signingSecretAad(d.id)) : d.signingSecret;
}

/** True when `d`'s stored signing secret should be sealed again: plain, or sealed with a key that is not the primary. */
export function signingSecretNeedsSealing(ring: KeyRing, d: Pick<Deployment, 'signingSecret'>): boolean {
  return !KeyRing.isSealed(d.signingSecret) || ring.isStale(d.signingSecret);
}

const LISTS = ['onComplete', 'onFailure'] as const;

/** A copy of `webhooks` with every header value mapped by `fn(value, headerName)`. */
function mapHeaders(webhooks: DeploymentWebhooks, fn: (value: string, name: string) => string): DeploymentWebhooks {
  const out: DeploymentWebhooks = { ...webhooks };
  for (const list of LISTS) {
    const entries = webhooks[list];
    if (!entries) continue;
    out[list] = entries.map((entry) =>
      entry.headers
        ? { ...entry, headers: Object.fromEntries(Object.entries(entry.headers).map(([k, v]) => [k, fn(v, k)])) }
        : { ...entry },
    );
  }
  return out;
}

/** A copy of `webhooks` (plain header values) with every header value sealed for deployment `deploymentId`. */
export function sealWebhookHeaders(
  ring: KeyRing,
  deploymentId: string,
  webhooks: DeploymentWebhooks | null,
): DeploymentWebhooks | null {
  return webhooks && mapHeaders(webhooks, (value, name) => ring.seal(value, webhookHeaderAad(deploymentId, name)));
}

/**
 * A copy of `webhooks` as stored with every header value opened (plain values from before
 * encryption as they are). @throws KeyRingError when a value was sealed with a key the ring no
 * longer holds.
 */
export function openWebhookHeaders(
  ring: KeyRing,
  deploymentId: string,
  webhooks: DeploymentWebhooks | null,
): DeploymentWebhooks | null {
  return (
    webhooks &&
    mapHeaders(webhooks, (value, name) =>
      KeyRing.isSealed(value) ? ring.open(value, webhookHeaderAad(deploymentId, name)) : value,
    )
  );
}
