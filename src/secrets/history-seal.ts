/**
 * Secret values sealed inside Temporal payloads (docs/codec.md "Secrets in histories"): before a
 * payload of a run is encrypted, every occurrence of one of the run's secret values — the same
 * forms {@link SecretMasker} masks: the value, its URI-encoded, JSON-escaped, base64 and base64url
 * forms, and a whole `Basic` credential whose decoded text holds it — is replaced by a token
 *
 *     ***secret:v1.<keyId>.<iv>.<ciphertext>
 *
 * that seals exactly the text it replaced, with a key derived from the ring for that workspace's
 * history secrets alone ({@link historySecretRing}), never the codec's payload key. The worker
 * (and Assay's own Temporal clients) open the tokens again after decrypting, so workflow code sees
 * the values unchanged and replays exactly; the codec server never opens them: a decoded history
 * shows `***` where a secret was, to every caller ({@link maskSealedSecrets}).
 *
 * Only JSON payloads (`json/plain`, what Assay's workflows exchange) are sealed: a string has each
 * occurrence replaced in place; a number equal to a secret value (a numeric secret variable) becomes
 * a token string that opens back into the number. Booleans are not secrets worth the name (and are
 * refused below 4 characters anyway). Secrets shorter than {@link MIN_SECRET_LENGTH} are not looked
 * for, as by the masker.
 */
import type { KeyRing } from './keyring';
import { basicHoldsSecret, escapeRegExp, MIN_SECRET_LENGTH, secretForms } from './mask';

/** What a sealed secret starts with in a decoded history. */
export const SEALED_SECRET_PREFIX = '***secret:';
/** A token: the prefix and a sealed value (`v1.<keyId>.<iv>.<data>`, base64url parts). */
const TOKEN = /\*\*\*secret:(v1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22,})/g;
/** HTTP Basic credentials (RFC 7617), as the masker finds them. */
const BASIC = /\b[Bb][Aa][Ss][Ii][Cc]\s+[A-Za-z0-9+/_-]{4,}={0,2}/;
/** A text fragment (`s`) or a whole number (`n`): the first character of what a token seals. */
type Kind = 's' | 'n';

/** The ring whose keys seal the history secrets of `workspaceId` (derived: the codec's keys do not open them). */
export function historySecretRing(root: KeyRing, workspaceId: string): KeyRing {
  return root.derive(`assay-history-secrets:${workspaceId}`);
}

/** The secrets of one run and what finds them in a payload. */
export class HistorySealer {
  private readonly secrets: string[];
  /** Every form of every secret (longest first), and how each reads inside JSON text. */
  private readonly forms: Array<{ form: string; json: string }>;
  private readonly numbers: Set<string>;
  /** Patterns made of the forms a payload holds (most payloads hold one or two), by which forms. */
  private readonly patterns = new Map<string, RegExp>();

  /** `values`: the run's secret values as text (src/secrets/variables.ts `OpenedVariables.secretValues`). */
  constructor(values: Iterable<string>) {
    const { secrets, forms } = secretForms(values);
    this.secrets = secrets;
    this.forms = forms.map((form) => ({ form, json: JSON.stringify(form).slice(1, -1) }));
    this.numbers = new Set(this.secrets.filter((v) => /^-?\d+(\.\d+)?$/.test(v)));
  }

  /** Whether the run has no secret to seal. */
  get empty(): boolean {
    return this.forms.length === 0;
  }

  /** The secret values (for tests and the process's log masker). */
  get values(): readonly string[] {
    return this.secrets;
  }

  /** The pattern of the forms at `present` (indexes into {@link forms}), Basic credentials first when `basic`. */
  private patternOf(present: number[], basic: boolean): RegExp {
    const key = `${basic ? 'b' : ''}${present.join(',')}`;
    let pattern = this.patterns.get(key);
    if (!pattern) {
      const alternatives = present.map((i) => escapeRegExp(this.forms[i]!.form));
      if (basic) alternatives.unshift(BASIC.source);
      pattern = new RegExp(alternatives.join('|'), 'g');
      if (this.patterns.size >= 256) this.patterns.clear();
      this.patterns.set(key, pattern);
    }
    return pattern;
  }

  /**
   * `text` (a JSON document) with the secrets sealed by `ring`, or undefined when it holds none
   * (the text is then used as it is). The text is searched first (each form as it reads in JSON);
   * only a text that holds one is parsed, and its strings searched for the forms it holds.
   * @throws SyntaxError when it is not JSON and holds a secret.
   */
  sealJson(text: string, ring: KeyRing): string | undefined {
    if (this.forms.length === 0) return undefined;
    const present: number[] = [];
    this.forms.forEach((f, i) => {
      if (text.includes(f.json)) present.push(i);
    });
    const basic = /Basic\s/i.test(text);
    if (present.length === 0 && !basic) return undefined;
    const pattern = this.patternOf(present, basic);
    let changed = false;
    const seal = (kind: Kind, fragment: string): string => {
      changed = true;
      return SEALED_SECRET_PREFIX + ring.seal(kind + fragment);
    };
    const inText = (s: string): string =>
      s.length < MIN_SECRET_LENGTH
        ? s
        : s.replace(pattern, (match: string) => {
            if (/^Basic\s/i.test(match))
              return basicHoldsSecret(match.replace(/^Basic\s+/i, ''), this.secrets) ? seal('s', match) : match;
            return seal('s', match);
          });
    const numbers = this.numbers.size > 0;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return inText(v);
      if (typeof v === 'number') return numbers && this.numbers.has(String(v)) ? seal('n', String(v)) : v;
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object') {
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(v)) out[inText(k)] = walk((v as Record<string, unknown>)[k]);
        return out;
      }
      return v;
    };
    const sealed = walk(JSON.parse(text) as unknown);
    return changed ? JSON.stringify(sealed) : undefined;
  }
}

/** A sealer over no secrets. */
export const NO_HISTORY_SECRETS = new HistorySealer([]);

/** A token in JSON text, with the quotes around it when it is a whole string (not after a backslash: an escaped quote is text). */
const TOKEN_IN_JSON = /((?<!\\)")?\*\*\*secret:(v1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22,})(")?/g;

/**
 * `text` (a JSON document) with every token `ring` opens restored to what it sealed, or undefined
 * when it holds no token. A token that does not open (another workspace's, altered) stays as it is.
 * Works on the text itself (no parse): a text fragment goes back JSON-escaped as JSON.stringify
 * wrote it, a whole-string number token (`"***secret:…"`) back into the bare number.
 */
export function openSealedSecrets(text: string, ring: KeyRing): string | undefined {
  if (!text.includes(SEALED_SECRET_PREFIX)) return undefined;
  return text.replace(
    TOKEN_IN_JSON,
    (whole: string, before: string | undefined, sealed: string, after: string | undefined) => {
      let plain: string;
      try {
        plain = ring.open(sealed);
      } catch {
        return whole;
      }
      const kind = plain[0] as Kind;
      const fragment = plain.slice(1);
      if (kind === 'n') return before && after ? fragment : whole;
      return `${before ?? ''}${JSON.stringify(fragment).slice(1, -1)}${after ?? ''}`;
    },
  );
}

/** `text` with every sealed secret shown as `***` (what the codec server answers). */
export function maskSealedSecrets(text: string): string {
  return text.includes(SEALED_SECRET_PREFIX) ? text.replace(TOKEN, '***') : text;
}
