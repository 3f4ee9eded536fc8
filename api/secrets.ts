/**
 * Stored secrets in answers (docs/security.md "Secrets at rest and in answers").
 *
 * - Outgoing webhook entries' `headers` (receiver tokens) are never returned: every value reads
 *   `"***"`, the names stay. On PATCH a header value of exactly `"***"` means "keep the value
 *   stored for this header": the stored entry is the one at the same position of the same list
 *   (`onComplete`/`onFailure`), the header the one of the same name (case-insensitive).
 * - Environment variable values are masked the same way for `read`-scope keys
 *   (api/routes/environments.ts).
 * - Secret variables (docs/secrets.md) of environments, runs and incoming webhooks:
 *   sent as `{"value": …, "secret": true}`, stored sealed with the key ring, answered as
 *   `{"secret": true, "value": "***"}` to every scope ({@link variableShapeErrors},
 *   {@link sealVariableInputs}, {@link variablesAnswer}).
 * - A deployment's incoming webhook token and signing secret are made here, shown once when made;
 *   only the token's hash is stored ({@link issueWebhookToken}, {@link webhookTokenMatches}).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Deployment, DeploymentWebhooks } from '../src/store/entities';
import type { Scope } from '../src/teams/roles';
import { hashKey } from '../src/api-keys';
import { fieldError, type FieldError } from '../src/problems';
import type { Variables } from '../src/domain/types';
import type { KeyRing } from '../src/secrets/keyring';
import { MIN_SECRET_LENGTH } from '../src/secrets/mask';
import {
  isMaskedSecret,
  isStoredSecret,
  maskVariables,
  sealVariables,
  variableAad,
  type MaskedSecret,
  type Scalar,
  type VariableInput,
} from '../src/secrets/variables';

/** What a masked secret reads in an answer. */
export const MASKED = '***';

const LISTS = ['onComplete', 'onFailure'] as const;

/** A copy of `webhooks` with every header value replaced by {@link MASKED}. */
export function maskWebhookHeaders(webhooks: DeploymentWebhooks): DeploymentWebhooks {
  const out: DeploymentWebhooks = { ...webhooks };
  for (const list of LISTS) {
    const entries = webhooks[list];
    if (!entries) continue;
    out[list] = entries.map((entry) =>
      entry.headers
        ? { ...entry, headers: Object.fromEntries(Object.keys(entry.headers).map((k) => [k, MASKED])) }
        : { ...entry },
    );
  }
  return out;
}

/**
 * Resolves `"***"` header values of `incoming` (what a client sent) to the values of `stored`
 * (what the deployment has now), in place. Returns one field error per `"***"` that has no stored
 * value to keep (`webhooks.<list>[i].headers.<name>`), so the caller can answer 400 and store
 * nothing.
 */
export function keepMaskedWebhookHeaders(
  incoming: DeploymentWebhooks | null | undefined,
  stored: DeploymentWebhooks | null | undefined,
): FieldError[] {
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
          errors.push(
            fieldError(
              ['webhooks', list, i, 'headers', name],
              `is "${MASKED}" (keep the stored value) but ${list}[${i}] has no stored header "${name}"; send the value itself`,
            ),
          );
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

/** Variables as a client sends them: plain values, or `{"value": …, "secret": true}`. */
export type VariablesInput = Record<string, VariableInput>;

const SHAPE = 'must be a string, number, boolean or {"value": …, "secret": true}';

function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** The `variables` object of a raw request body, if it has one. */
export function bodyVariables(body: unknown): Record<string, unknown> | undefined {
  const v = body && typeof body === 'object' ? (body as { variables?: unknown }).variables : undefined;
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * Field errors (`variables.<name>`) of the variables of a request body as sent, beyond the JSON
 * Schema (api/routes/shared.ts `variablesSchema` lets any object through to be judged here):
 *
 * - an object must be exactly `{"value": <string, number or boolean>, "secret": true}`;
 * - a secret's value must be at least MIN_SECRET_LENGTH (4) characters as text: shorter ones are
 *   not masked in results (src/secrets/mask.ts), so they are refused rather than leaked.
 *
 * `body` is the raw body (anything: a body that is not an object has no variables to judge);
 * `null` values (a merge patch's removals) and plain values pass. No message repeats a value.
 */
export function variableShapeErrors(body: unknown, at: Array<string | number> = ['variables']): FieldError[] {
  const variables = bodyVariables(body);
  if (!variables) return [];
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(variables)) {
    if (value === null || isScalar(value) || typeof value !== 'object' || Array.isArray(value)) continue; // the schema judges those
    const here = [...at, name];
    const v = value as { value?: unknown; secret?: unknown };
    if (Object.keys(value).sort().join(',') !== 'secret,value' || !isScalar(v.value)) {
      errors.push(fieldError(here, SHAPE));
    } else if (v.secret !== true) {
      errors.push(
        fieldError([...here, 'secret'], 'must be true (send a plain value for a variable that is not secret)'),
      );
    } else if (!isMaskedSecret(value) && String(v.value).length < MIN_SECRET_LENGTH) {
      errors.push(
        fieldError(
          [...here, 'value'],
          `a secret must be at least ${MIN_SECRET_LENGTH} characters (a shorter one could not be masked in results)`,
        ),
      );
    }
  }
  return errors;
}

/**
 * Field errors of the `{"secret": true, "value": "***"}` ("keep the stored secret") entries of
 * `variables` that have nothing to keep: no secret under that name in `stored`, or no `stored` at
 * all (a run keeps nothing: its variables are new each time).
 */
export function keptSecretErrors(
  variables: Record<string, unknown> | null | undefined,
  stored: Variables | undefined,
  at: Array<string | number> = ['variables'],
): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(variables ?? {})) {
    if (!isMaskedSecret(value)) continue;
    if (!stored)
      errors.push(
        fieldError(
          [...at, name],
          `is {"secret": true, "value": "${MASKED}"} (keep the stored secret), but a run has no stored secrets; send the value itself`,
        ),
      );
    else if (!isStoredSecret(stored[name]))
      errors.push(
        fieldError(
          [...at, name],
          `is {"secret": true, "value": "${MASKED}"} (keep the stored secret), but there is no stored secret "${name}"; send the value itself`,
        ),
      );
  }
  return errors;
}

/**
 * Variables for storage: secrets sealed with `ring` (AAD: the variable's name), plain values as
 * they are; a `{"secret": true, "value": "***"}` keeps the sealed value of `stored`. Every stored
 * secret sealed with a key other than the ring's primary is sealed again (a rotation reaches a
 * value on its next write). Call {@link variableShapeErrors} and {@link keptSecretErrors} first.
 */
export function sealVariableInputs(input: VariablesInput, ring: KeyRing, stored: Variables = {}): Variables {
  return resealStale(sealVariables(input, ring, stored), ring);
}

/** `stored` with every secret sealed under an older key sealed again under the primary one. */
export function resealStale(stored: Variables, ring: KeyRing): Variables {
  const out: Variables = {};
  for (const [name, v] of Object.entries(stored)) {
    out[name] =
      isStoredSecret(v) && ring.isStale(v.sealed)
        ? { secret: true, sealed: ring.seal(ring.open(v.sealed, variableAad(name)), variableAad(name)) }
        : v;
  }
  return out;
}

/**
 * Stored variables as answered to a caller of `scope`: secrets `{"secret": true, "value": "***"}`
 * for every scope; plain values as stored, or `"***"` for a `read`-scope key.
 */
export function variablesAnswer(
  stored: Variables | null | undefined,
  scope: Scope,
): Record<string, Scalar | MaskedSecret> {
  return maskVariables(stored ?? {}, scope === 'read');
}
