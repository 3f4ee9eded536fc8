/**
 * Masking secret values (docs/security.md "Secrets"): every occurrence of a secret's value, and
 * of its common encodings, becomes `***` in what Assay stores or shows about a run (results,
 * script logs, errors, webhook payloads, reports, its own logs):
 *
 * - the value itself, its `encodeURIComponent` form (query strings, form bodies), its JSON string
 *   form (escaped quotes and backslashes), base64 and base64url of it;
 * - HTTP Basic credentials (`Basic <base64 of user:password>`) whose decoded text holds a secret:
 *   the whole credential is masked.
 *
 * Values shorter than {@link MIN_SECRET_LENGTH} characters are not looked for (masking every "1"
 * of a result would destroy it without protecting anything); the API warns when such a secret is
 * stored.
 */

/** Secrets shorter than this are not masked. */
export const MIN_SECRET_LENGTH = 4;
const MASK = '***';

/** `text` as a literal inside a RegExp. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The secrets worth looking for (distinct, at least {@link MIN_SECRET_LENGTH} characters) and every
 * text that betrays one: each value, its `encodeURIComponent`, JSON-escaped, base64 (padded and
 * not) and base64url forms, longest first (so a value is found whole rather than a shorter secret
 * inside it). Shared by this masker and the history sealer (src/secrets/history-seal.ts).
 */
export function secretForms(values: Iterable<string>): { secrets: string[]; forms: string[] } {
  const secrets = [...new Set([...values].filter((v) => typeof v === 'string' && v.length >= MIN_SECRET_LENGTH))];
  const forms = new Set<string>();
  for (const v of secrets) {
    forms.add(v);
    forms.add(encodeURIComponent(v));
    forms.add(JSON.stringify(v).slice(1, -1));
    const b64 = Buffer.from(v, 'utf8').toString('base64');
    forms.add(b64);
    forms.add(b64.replace(/=+$/, ''));
    forms.add(Buffer.from(v, 'utf8').toString('base64url'));
  }
  return {
    secrets,
    forms: [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length),
  };
}

/** Whether the base64 `credentials` of an HTTP Basic header (RFC 7617) decode to text holding one of `secrets`. */
export function basicHoldsSecret(credentials: string, secrets: readonly string[]): boolean {
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  return secrets.some((s) => decoded.includes(s));
}

export class SecretMasker {
  private readonly pattern: RegExp | undefined;
  private readonly secrets: string[];
  /** Every text this masker replaces (each value and its encodings above), longest first. */
  readonly forms: readonly string[];

  /** `values`: the secret values as text (src/secrets/variables.ts `OpenedVariables.secretValues`). */
  constructor(values: Iterable<string>) {
    ({ secrets: this.secrets, forms: this.forms } = secretForms(values));
    this.pattern = this.forms.length ? new RegExp(this.forms.map(escapeRegExp).join('|'), 'g') : undefined;
  }

  /** Whether there is anything to mask. */
  get empty(): boolean {
    return this.pattern === undefined;
  }

  /** `text` with every secret (and encoding) replaced by `***`. */
  maskText(text: string): string {
    if (!this.pattern || !text) return text;
    let out = text.replace(/\b(Basic\s+)([A-Za-z0-9+/_-]{4,}={0,2})/gi, (whole, prefix: string, token: string) =>
      basicHoldsSecret(token, this.secrets) ? `${prefix}${MASK}` : whole,
    );
    out = out.replace(this.pattern, MASK);
    return out;
  }

  /** A deep copy of a JSON value with every string (and object key) masked. */
  maskDeep<T>(value: T): T {
    if (!this.pattern) return value;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.maskText(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object')
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [this.maskText(k), walk(x)]));
      return v;
    };
    return walk(value) as T;
  }
}

/** A masker over no secrets (masks nothing). */
export const NO_SECRETS = new SecretMasker([]);

/** Secret values this process has opened (for its own logs), most recent last; at most 10,000. */
const remembered = new Set<string>();
let processWide: SecretMasker = NO_SECRETS;
const MAX_REMEMBERED = 10_000;

/**
 * Adds secret values this process handles (a run's, when a worker opens its plan) to the masker of
 * its own logs (src/logger.ts), so a secret never reaches a log line either.
 */
export function rememberSecrets(values: Iterable<string>): void {
  let added = false;
  for (const v of values) {
    if (typeof v !== 'string' || v.length < MIN_SECRET_LENGTH || remembered.has(v)) continue;
    remembered.add(v);
    added = true;
  }
  if (!added) return;
  while (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.values().next().value as string);
  processWide = new SecretMasker(remembered);
}

/** The masker of this process's logs: every secret {@link rememberSecrets} was given. */
export function processMasker(): SecretMasker {
  return processWide;
}

/**
 * A log argument with secrets masked: strings, plain objects and arrays deeply; an Error as an
 * Error of the same name with its message and stack masked (pino serialises it as usual).
 */
export function maskLogArgument(masker: SecretMasker, value: unknown, depth = 0): unknown {
  if (masker.empty) return value;
  if (typeof value === 'string') return masker.maskText(value);
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    const copy = new Error(masker.maskText(value.message));
    copy.name = value.name;
    copy.stack = value.stack === undefined ? undefined : masker.maskText(value.stack);
    for (const [k, v] of Object.entries(value))
      (copy as unknown as Record<string, unknown>)[k] = maskLogArgument(masker, v, depth + 1);
    return copy;
  }
  if (Array.isArray(value)) return value.map((v) => maskLogArgument(masker, v, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskLogArgument(masker, v, depth + 1)]));
}
