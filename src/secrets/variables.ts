/**
 * Secret variables (docs/api.md "Environments", "Secret variables"): the shapes a variable takes
 * on the way in, at rest and on the way out, backward compatible with plain `{name: value}`:
 *
 * | where | plain | secret |
 * |---|---|---|
 * | input (environments, run `variables`, incoming webhook `variables`) | `"abc"`, `5`, `true` | `{"value": "abc", "secret": true}` |
 * | at rest (environment rows, a run's `variables` and frozen plan) | the value | `{"secret": true, "sealed": "v1.<keyId>.…"}` (AES-256-GCM, src/secrets/keyring.ts) |
 * | answers | the value (`"***"` for `read` keys) | `{"secret": true, "value": "***"}` |
 *
 * A secret is usable wherever a variable is (templates, scripts' `$context`): runs get the opened
 * value; results, logs, errors, webhook payloads and reports get it masked (src/secrets/mask.ts).
 */
import { KeyRing } from './keyring';
import { rememberSecrets } from './mask';

/** A plain variable value (spec "Run creation input": strings, numbers or booleans). */
export type Scalar = string | number | boolean;

/** A secret as a client sends it. */
export interface SecretInput {
  value: Scalar;
  secret: true;
}

/** A secret as stored. */
export interface StoredSecret {
  secret: true;
  sealed: string;
}

/** A secret as answered. */
export interface MaskedSecret {
  secret: true;
  value: '***';
}

export type VariableInput = Scalar | SecretInput;
export type StoredVariable = Scalar | StoredSecret;

/** What a masked value reads in answers. */
export const MASK = '***';

/** The additional authenticated data of a sealed variable: its name (a value moved to another name does not open). */
export function variableAad(name: string): string {
  return `assay-variable:${name}`;
}

/** `{value, secret: true}` as a client sends it. */
export function isSecretInput(v: unknown): v is SecretInput {
  return typeof v === 'object' && v !== null && (v as { secret?: unknown }).secret === true && 'value' in v;
}

/** `{secret: true, sealed}` as stored. */
export function isStoredSecret(v: unknown): v is StoredSecret {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as { secret?: unknown }).secret === true &&
    typeof (v as { sealed?: unknown }).sealed === 'string'
  );
}

/** `{secret: true, value: "***"}`: a client sending back what it read ("keep the stored value"). */
export function isMaskedSecret(v: unknown): v is MaskedSecret {
  return isSecretInput(v) && v.value === MASK;
}

/**
 * Seals the secrets of `input` for storage; plain values stay. A `{secret: true, value: "***"}`
 * keeps the value stored under that name in `previous` (as it was sealed; sealed again when its key
 * is stale). @throws Error naming the variable when `"***"` has nothing to keep.
 */
export function sealVariables(
  input: Record<string, VariableInput>,
  ring: KeyRing,
  previous: Record<string, StoredVariable> = {},
): Record<string, StoredVariable> {
  const out: Record<string, StoredVariable> = {};
  for (const [name, value] of Object.entries(input)) {
    if (!isSecretInput(value)) {
      out[name] = value;
      continue;
    }
    if (value.value === MASK) {
      const kept = previous[name];
      if (!isStoredSecret(kept)) throw new Error(`${name}: "***" keeps a stored secret, but there is none`);
      out[name] = ring.isStale(kept.sealed)
        ? { secret: true, sealed: ring.seal(ring.open(kept.sealed, variableAad(name)), variableAad(name)) }
        : kept;
      continue;
    }
    out[name] = { secret: true, sealed: ring.seal(JSON.stringify(value.value), variableAad(name)) };
    // This process has seen the value: its own logs mask it from now on.
    rememberSecrets([String(value.value)]);
  }
  return out;
}

/** What a run uses: every value opened, and the secret ones listed (as text) for masking. */
export interface OpenedVariables {
  values: Record<string, Scalar>;
  /** Names of the secret variables. */
  secretNames: string[];
  /** The secret values as text (what a masker looks for). */
  secretValues: string[];
}

/** Opens stored variables; @throws KeyRingError when a secret cannot be opened (its key is gone). */
export function openVariables(stored: Record<string, StoredVariable | VariableInput>, ring: KeyRing): OpenedVariables {
  const out: OpenedVariables = { values: {}, secretNames: [], secretValues: [] };
  for (const [name, v] of Object.entries(stored)) {
    if (isStoredSecret(v)) {
      const value = JSON.parse(ring.open(v.sealed, variableAad(name))) as Scalar;
      out.values[name] = value;
      out.secretNames.push(name);
      out.secretValues.push(String(value));
    } else if (isSecretInput(v)) {
      out.values[name] = v.value;
      out.secretNames.push(name);
      out.secretValues.push(String(v.value));
    } else out.values[name] = v;
  }
  rememberSecrets(out.secretValues);
  return out;
}

/** Stored variables as answered: secrets `{secret: true, value: "***"}`, plain values as they are (or `"***"` with `maskPlain`). */
export function maskVariables(
  stored: Record<string, StoredVariable | VariableInput>,
  maskPlain = false,
): Record<string, Scalar | MaskedSecret> {
  const out: Record<string, Scalar | MaskedSecret> = {};
  for (const [name, v] of Object.entries(stored))
    out[name] = isStoredSecret(v) || isSecretInput(v) ? { secret: true, value: MASK } : maskPlain ? MASK : v;
  return out;
}
