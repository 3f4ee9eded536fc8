/**
 * An API node's request with an auth profile (docs/auth.md; src/auth/apply.ts), for
 * activities/nodes.ts `executeApiNode` (the workflow's activities and the direct port of
 * performance runs):
 *
 * - the profile's credential is added: headers the node sets itself (any letter case) win; an
 *   `apiKey` in the query is appended to the URL;
 * - a `401` from the API under test with an OAuth 2.0 profile renews the token once (the refresh
 *   token when one came, else the grant) and sends the request once more: that answer is the node's;
 * - a profile that cannot be applied (a token endpoint that failed, a secret that does not open)
 *   fails the node with `errorCode` `AUTH_PROFILE_FAILED` and the reason, nothing sent;
 * - what the node returns shows the credential masked (`Authorization: Bearer ***`, an API key
 *   `***`), and every value of {@link ProfileSend.secrets} is masked in the rest of it ({@link maskOutput}).
 */
import type { ApiNodeInput, ApiNodeOutput } from '../src/domain/node-io';
import type { AttemptResult, HttpExchange, ResolvedRequest } from '../src/domain/types';
import { AuthProfileError, withQuery, type AuthAddition, type AuthProfiles } from '../src/auth/apply';
import { SecretMasker } from '../src/secrets/mask';

/** The errorCode of a node whose auth profile could not be applied. */
export const AUTH_PROFILE_FAILED = 'AUTH_PROFILE_FAILED';

/** What {@link sendWithProfile} did. */
export type ProfileSend =
  | { error: HttpExchange; secrets: string[]; tokens: string[] }
  | {
      exchange: HttpExchange;
      attempts: AttemptResult[];
      /** The profile's headers as the output shows them (masked), the node's own left out. */
      shownHeaders: Record<string, string>;
      /** The URL as the output shows it (an API key in the query masked). */
      shownUrl: string;
      secrets: string[];
      tokens: string[];
    };

function failed(message: string): HttpExchange {
  return {
    headers: {},
    size: 0,
    truncated: false,
    timeMs: 0,
    error: message,
    errorCode: AUTH_PROFILE_FAILED,
    finishedAtMs: Date.now(),
  };
}

/** `request` with the profile's `addition` (the node's own headers winning), and the headers shown. */
function applied(
  request: ResolvedRequest,
  addition: AuthAddition,
): { request: ResolvedRequest; shown: Record<string, string>; shownUrl: string } {
  const own = new Set(Object.keys(request.headers).map((h) => h.toLowerCase()));
  const headers = { ...request.headers };
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(addition.headers)) {
    if (own.has(name.toLowerCase())) continue;
    headers[name] = value;
    shown[name] = addition.maskedHeaders[name] ?? '***';
  }
  return {
    request: { ...request, url: withQuery(request.url, addition.query), headers },
    shown,
    shownUrl: withQuery(
      request.url,
      addition.query.map(([k]) => [k, '***']),
    ),
  };
}

/** Sends `request` with `input.authProfile` applied, through `send` (the request with its retries). */
export async function sendWithProfile(
  input: ApiNodeInput,
  request: ResolvedRequest,
  auth: AuthProfiles | undefined,
  send: (request: ResolvedRequest) => Promise<{ exchange: HttpExchange; attempts: AttemptResult[] }>,
): Promise<ProfileSend> {
  const profile = input.authProfile!;
  if (!auth)
    return {
      error: failed(`auth profile "${profile.profile.name}": this worker cannot apply auth profiles`),
      secrets: [],
      tokens: [],
    };
  let prepared;
  try {
    prepared = await auth.prepare(profile, input.variables, request.timeoutMs);
  } catch (err) {
    if (err instanceof AuthProfileError) return { error: failed(err.message), secrets: [], tokens: [] };
    throw err;
  }
  let { request: signed, shown, shownUrl } = applied(request, prepared.addition);
  let { exchange, attempts } = await send(signed);
  if (exchange.status === 401 && prepared.renew && Object.keys(shown).length > 0) {
    // RFC 6750 §3.1: the token was refused (expired or revoked early): one new token, one more request.
    let addition: AuthAddition;
    try {
      addition = await prepared.renew();
    } catch (err) {
      if (err instanceof AuthProfileError)
        return { error: failed(err.message), secrets: prepared.secrets, tokens: prepared.tokens };
      throw err;
    }
    ({ request: signed, shown, shownUrl } = applied(request, addition));
    const again = await send(signed);
    exchange = again.exchange;
    attempts = [...attempts, ...again.attempts.map((a) => ({ ...a, attempt: attempts.length + a.attempt }))];
  }
  return { exchange, attempts, shownHeaders: shown, shownUrl, secrets: prepared.secrets, tokens: prepared.tokens };
}

/**
 * `out` with every value of `sent.secrets` and `sent.tokens` (and their encodings) masked as `***`,
 * but its `variables` only for the tokens: the profile's other secrets may be the run's own
 * (secret) variables, which later nodes still need as they are (they reach results masked by the
 * run's masker, activities/runs.ts).
 */
export function maskOutput(
  out: ApiNodeOutput,
  sent: { secrets: string[]; tokens: string[] },
  before?: Record<string, unknown>,
): ApiNodeOutput {
  const all = [...sent.secrets, ...sent.tokens];
  if (!all.length) return out;
  const { variables, ...rest } = out;
  return {
    ...masked(maskerOf(all), rest),
    // Variables no hook changed (`before`, the node's input) cannot hold a token.
    variables: sent.tokens.length && variables !== before ? masked(maskerOf(sent.tokens), variables) : variables,
  };
}

/** `value` masked; the same object when its JSON holds none of the values (the common case: no copy). */
function masked<T>(entry: MaskEntry, value: T): T {
  return holdsAny(value, entry.forms, 0) ? entry.masker.maskDeep(value) : value;
}

/** Whether a string (or object key) inside `value` contains one of `forms`. */
function holdsAny(value: unknown, forms: readonly string[], depth: number): boolean {
  if (typeof value === 'string') {
    for (const f of forms) if (value.length >= f.length && value.includes(f)) return true;
    return false;
  }
  if (!value || typeof value !== 'object') return false;
  // Deeper than a response body usually is: judge the rest as text.
  if (depth > 24) {
    const json = JSON.stringify(value);
    return forms.some((f) => json.includes(f));
  }
  if (Array.isArray(value)) return value.some((v) => holdsAny(v, forms, depth + 1));
  const record = value as Record<string, unknown>;
  for (const k in record) {
    if (!Object.prototype.hasOwnProperty.call(record, k)) continue;
    if (holdsAny(k, forms, depth + 1) || holdsAny(record[k], forms, depth + 1)) return true;
  }
  return false;
}

/** A masker of some values, and the forms of them it looks for (src/secrets/mask.ts), for a quick check first. */
interface MaskEntry {
  values: string[];
  masker: SecretMasker;
  forms: readonly string[];
}

/** Maskers by their values: every request of a profile masks the same few values (a masker compiles a pattern). */
const maskers: MaskEntry[] = [];
const MAX_MASKERS = 64;

function maskerOf(values: string[]): MaskEntry {
  // The values are the same string objects request after request (the cached token, the profile's
  // filled fields): comparing them is comparing pointers, unlike hashing a joined key.
  const found = maskers.find((m) => m.values.length === values.length && m.values.every((v, i) => v === values[i]));
  if (found) return found;
  const masker = new SecretMasker(values);
  const entry = { values: [...values], masker, forms: masker.forms };
  if (maskers.length >= MAX_MASKERS) maskers.shift();
  maskers.push(entry);
  return entry;
}
