/**
 * Stored secrets in answers (issue 10 item 2; docs/security.md "Secrets at rest and in answers").
 *
 * - Outgoing webhook entries' `headers` (receiver tokens) are never returned: every value reads
 *   `"***"`, the names stay. On PATCH a header value of exactly `"***"` means "keep the value
 *   stored for this header": the stored entry is the one at the same position of the same list
 *   (`onComplete`/`onFailure`), the header the one of the same name (case-insensitive).
 * - Environment variable values are masked the same way for `read`-scope keys
 *   (api/routes/environments.ts).
 * - A deployment's incoming webhook token and signing secret are made here, shown once when made;
 *   only the token's hash is stored ({@link issueWebhookToken}, {@link webhookTokenMatches}).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Deployment, DeploymentWebhooks } from '../src/store/entities';
import { hashKey } from '../src/keys';
import { fieldError, type FieldError } from '../src/problems';

/** What a masked secret reads in an answer. */
export const MASKED = '***';

const LISTS = ['onComplete', 'onFailure'] as const;

/** A copy of `webhooks` with every header value replaced by {@link MASKED}. */
export function maskWebhookHeaders(webhooks: DeploymentWebhooks): DeploymentWebhooks {
  const out: DeploymentWebhooks = { ...webhooks };
  for (const list of LISTS) {
    const entries = webhooks[list];
    if (!entries) continue;
    out[list] = entries.map((entry) => (entry.headers ? { ...entry, headers: Object.fromEntries(Object.keys(entry.headers).map((k) => [k, MASKED])) } : { ...entry }));
  }
  return out;
}

/**
 * Resolves `"***"` header values of `incoming` (what a client sent) to the values of `stored`
 * (what the deployment has now), in place. Returns one field error per `"***"` that has no stored
 * value to keep (`webhooks.<list>[i].headers.<name>`), so the caller can answer 400 and store
 * nothing.
 */
export function keepMaskedWebhookHeaders(incoming: DeploymentWebhooks | null | undefined, stored: DeploymentWebhooks | null | undefined): FieldError[] {
  const errors: FieldError[] = [];
  if (!incoming) return errors;
  for (const list of LISTS) {
    (incoming[list] ?? []).forEach((entry, i) => {
      if (!entry.headers) return;
      const before = stored?.[list]?.[i]?.headers ?? {};
      for (const [name, value] of Object.entries(entry.headers)) {
        if (value !== MASKED) continue;
        const match = Object.keys(before).find((k) => k.toLowerCase() === name.toLowerCase());
        if (match === undefined) {
          errors.push(fieldError(['webhooks', list, i, 'headers', name], `is "${MASKED}" (keep the stored value) but ${list}[${i}] has no stored header "${name}"; send the value itself`));
        } else {
          entry.headers[name] = before[match]!;
        }
      }
    });
  }
  return errors;
}

/** A new secret: `<prefix>_` and 32 random bytes in base64url (`whk` webhook tokens, `whsec` signing secrets). */
export function newSecret(prefix: 'whk' | 'whsec'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * Gives `d` a new incoming webhook address (`webhookId`, 24 random bytes in base64url) and token;
 * stores only the token's hash on `d` (not saved here).
 * @returns the token, to show once.
 */
export function issueWebhookToken(d: Pick<Deployment, 'webhookId' | 'webhookTokenHash'>): string {
  const token = newSecret('whk');
  d.webhookId = randomBytes(24).toString('base64url');
  d.webhookTokenHash = hashKey(token);
  return token;
}

/** True when `token` is `d`'s webhook token (its hash compared in constant time). */
export function webhookTokenMatches(d: Pick<Deployment, 'webhookTokenHash'>, token: string): boolean {
  if (!d.webhookTokenHash) return false;
  const x = Buffer.from(hashKey(token), 'hex');
  const y = Buffer.from(d.webhookTokenHash, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
