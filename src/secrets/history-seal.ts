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
import { MIN_SECRET_LENGTH } from './mask';

/** What a sealed secret starts with in a decoded history. */
export const SEALED_SECRET_PREFIX = '***secret:';
/** A token: the prefix and a sealed value (`v1.<keyId>.<iv>.<data>`, base64url parts). */
const TOKEN = /\*\*\*secret:(v1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22,})/g;
const WHOLE_TOKEN = /^\*\*\*secret:(v1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22,})$/;
/** HTTP Basic credentials (RFC 7617), as the masker finds them. */
const BASIC = /\b[Bb][Aa][Ss][Ii][Cc]\s+[A-Za-z0-9+/_-]{4,}={0,2}/;
/** A text fragment (`s`) or a whole number (`n`): the first character of what a token seals. */
type Kind = 's' | 'n';

/** The ring whose keys seal the history secrets of `workspaceId` (derived: the codec's keys do not open them). */
export function historySecretRing(root: KeyRing, workspaceId: string): KeyRing {
  return root.derive(`assay-history-secrets:${workspaceId}`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The secrets of one run and what finds them in a payload. */
export class HistorySealer {
  private readonly secrets: string[];
  private readonly pattern: RegExp | undefined;
  private readonly numbers: Set<string>;
  /** The forms as they read inside JSON text (what the prefilter looks for). */
  private readonly jsonForms: string[];

  /** `values`: the run's secret values as text (src/secrets/variables.ts `OpenedVariables.secretValues`). */
  constructor(values: Iterable<string>) {
    this.secrets = [...new Set([...values].filter((v) => typeof v === 'string' && v.length >= MIN_SECRET_LENGTH))];
    const forms = new Set<string>();
    for (const v of this.secrets) {
      forms.add(v);
      forms.add(encodeURIComponent(v));
      forms.add(JSON.stringify(v).slice(1, -1));
      const b64 = Buffer.from(v, 'utf8').toString('base64');
      forms.add(b64);
      forms.add(b64.replace(/=+$/, ''));
      forms.add(Buffer.from(v, 'utf8').toString('base64url'));
    }
    const sorted = [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
    // Basic credentials first (as one match), then the forms, longest first: one pass over a string.
    this.pattern = sorted.length ? new RegExp(`${BASIC.source}|${sorted.map(escapeRegExp).join('|')}`, 'g') : undefined;
    this.numbers = new Set(this.secrets.filter((v) => /^-?\d+(\.\d+)?$/.test(v)));
    this.jsonForms = [...new Set(sorted.map((f) => JSON.stringify(f).slice(1, -1)))];
  }

  /** Whether the run has no secret to seal. */
  get empty(): boolean {
    return this.pattern === undefined;
  }

  /** The secret values (for tests and the process's log masker). */
  get values(): readonly string[] {
    return this.secrets;
  }

  /**
   * `text` (a JSON document) with the secrets sealed by `ring`, or undefined when it holds none
   * (the text is then used as it is). @throws SyntaxError when it is not JSON and holds a secret.
   */
  sealJson(text: string, ring: KeyRing): string | undefined {
    if (!this.pattern) return undefined;
    if (!this.jsonForms.some((f) => text.includes(f)) && !/Basic\s/i.test(text)) return undefined;
    let changed = false;
    const seal = (kind: Kind, fragment: string): string => {
      changed = true;
      return SEALED_SECRET_PREFIX + ring.seal(kind + fragment);
    };
    const inText = (s: string): string =>
      s.replace(this.pattern!, (match: string) => {
        if (/^Basic\s/i.test(match)) {
          const credentials = match.replace(/^Basic\s+/i, '');
          let decoded: string;
          try {
            decoded = Buffer.from(credentials, 'base64').toString('utf8');
          } catch {
            return match;
          }
          return this.secrets.some((secret) => decoded.includes(secret)) ? seal('s', match) : match;
        }
        return seal('s', match);
      });
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return inText(v);
      if (typeof v === 'number') return this.numbers.has(String(v)) ? seal('n', String(v)) : v;
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object')
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [inText(k), walk(x)]));
      return v;
    };
    const sealed = walk(JSON.parse(text) as unknown);
    return changed ? JSON.stringify(sealed) : undefined;
  }
}

/** A sealer over no secrets. */
export const NO_HISTORY_SECRETS = new HistorySealer([]);

/**
 * `text` (a JSON document) with every token `ring` opens restored to what it sealed, or undefined
 * when it holds no token. A token that does not open (another workspace's, altered) stays as it is.
 */
export function openSealedSecrets(text: string, ring: KeyRing): string | undefined {
  if (!text.includes(SEALED_SECRET_PREFIX)) return undefined;
  const open = (sealed: string): { kind: Kind; text: string } | undefined => {
    try {
      const plain = ring.open(sealed);
      return { kind: plain[0] as Kind, text: plain.slice(1) };
    } catch {
      return undefined;
    }
  };
  const inText = (s: string): string =>
    s.includes(SEALED_SECRET_PREFIX)
      ? s.replace(TOKEN, (whole, sealed: string) => {
          const opened = open(sealed);
          return opened?.kind === 's' ? opened.text : whole;
        })
      : s;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const whole = WHOLE_TOKEN.exec(v);
      if (whole) {
        const opened = open(whole[1]!);
        if (opened?.kind === 'n') return Number(opened.text);
      }
      return inText(v);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [inText(k), walk(x)]));
    return v;
  };
  return JSON.stringify(walk(JSON.parse(text) as unknown));
}

/** `text` with every sealed secret shown as `***` (what the codec server answers). */
export function maskSealedSecrets(text: string): string {
  return text.includes(SEALED_SECRET_PREFIX) ? text.replace(TOKEN, '***') : text;
}
