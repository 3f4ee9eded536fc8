/**
 * The OAuth 2.0 token request (RFC 6749) an auth profile of type `oauth2` makes (docs/auth.md):
 *
 * - grants: `client_credentials` (§4.4), `password` (§4.3), `refresh_token` (§6); a form-encoded
 *   POST (`application/x-www-form-urlencoded`, Appendix B) to the token endpoint;
 * - client authentication (§2.3.1): HTTP Basic with the form-encoded id and secret (the default),
 *   or `client_id`/`client_secret` in the body; a client without a secret sends `client_id` in the
 *   body (§3.2.1);
 * - `scope` space-separated (§3.3), `audience` as a body parameter (as Auth0 and others read it);
 * - the answer (§5.1): `access_token`, `token_type`, `expires_in` (seconds), `refresh_token`,
 *   `scope`; an error (§5.2: `error`, `error_description`), another status, a network error or no
 *   answer within the request timeout fail with {@link TokenEndpointError}, whose message names
 *   the status and the endpoint's error text and never a secret.
 *
 * The request goes out through the agent it is given: the worker's address policy agent of API
 * nodes (src/net/address-policy.ts), so the same egress rules apply to token endpoints.
 */
import type { Agent } from 'undici';
import type { OAuth2ProfileConfig } from '../domain/auth-profiles';
import { addressRefusalIn } from '../net/address-policy';
import { guardedRequest, isTimeout, readCapped } from '../net/http';

/** An `oauth2` profile's fields with their templates filled and secrets opened. */
export type FilledOAuth2 = OAuth2ProfileConfig;

/** A token as the cache keeps it (sealed at rest). */
export interface Token {
  accessToken: string;
  tokenType: string;
  /** Epoch ms the token expires; absent when the endpoint gave no `expires_in`. */
  expiresAtMs?: number;
  /** Epoch ms it was obtained. */
  obtainedAtMs: number;
  refreshToken?: string;
  scope?: string;
}

/** A failed token request: `status` of the endpoint's answer, if one came. */
export class TokenEndpointError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TokenEndpointError';
  }
}

/** Largest token endpoint answer read (a token response is a few KiB at most). */
const MAX_TOKEN_RESPONSE_BYTES = 256 * 1024;

/** RFC 6749 Appendix B / §2.3.1: form-encoding of the client id and secret before Basic. */
function formEncode(text: string): string {
  return encodeURIComponent(text).replace(/%20/g, '+');
}

/** The form body and headers of a token request for `cfg` (with `refreshToken` overriding the grant: §6). */
export function tokenRequestOf(
  cfg: FilledOAuth2,
  refreshToken?: string,
): { body: string; headers: Record<string, string> } {
  const form = new URLSearchParams();
  const grant = refreshToken ? 'refresh_token' : cfg.grant;
  form.set('grant_type', grant);
  if (grant === 'refresh_token') form.set('refresh_token', refreshToken ?? cfg.refreshToken ?? '');
  if (grant === 'password') {
    form.set('username', cfg.username ?? '');
    form.set('password', cfg.password ?? '');
  }
  if (cfg.scopes?.length) form.set('scope', cfg.scopes.join(' '));
  if (cfg.audience) form.set('audience', cfg.audience);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
    'user-agent': 'Assay/0.1',
  };
  const secret = cfg.clientSecret ?? '';
  if ((cfg.clientAuthentication ?? 'basic') === 'basic' && secret !== '') {
    headers.authorization = `Basic ${Buffer.from(`${formEncode(cfg.clientId)}:${formEncode(secret)}`).toString('base64')}`;
  } else {
    form.set('client_id', cfg.clientId);
    if (secret !== '') form.set('client_secret', secret);
  }
  return { body: form.toString(), headers };
}

/**
 * Requests a token from `cfg.tokenUrl` (the grant, or `refresh_token` with `refreshToken`) within
 * `timeoutMs`. @throws TokenEndpointError.
 */
export async function requestToken(
  cfg: FilledOAuth2,
  agent: Agent,
  timeoutMs: number,
  options: { refreshToken?: string; signal?: AbortSignal } = {},
): Promise<Token> {
  let url: URL;
  try {
    url = new URL(cfg.tokenUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new TokenEndpointError(`tokenUrl "${cfg.tokenUrl}" is not an absolute http(s) URL`);
  }
  const { body, headers } = tokenRequestOf(cfg, options.refreshToken);
  const started = Date.now();
  let status: number;
  let text: string;
  try {
    const res = await guardedRequest(agent, url, {
      method: 'POST',
      headers,
      body,
      timeoutMs,
      signal: options.signal,
    });
    status = res.statusCode;
    text = (await readCapped(res.body, MAX_TOKEN_RESPONSE_BYTES)).bytes.toString('utf8');
  } catch (err) {
    const refused = addressRefusalIn(err);
    if (refused)
      throw new TokenEndpointError(
        `token endpoint ${url.origin} was not called (ADDRESS_NOT_ALLOWED): ${refused.message}`,
      );
    if (isTimeout(err))
      throw new TokenEndpointError(`token endpoint ${url.origin} did not answer within ${timeoutMs} ms`);
    const e = err as { code?: string; message?: string; cause?: { code?: string } };
    throw new TokenEndpointError(
      `token endpoint ${url.origin} could not be reached: ${e.code ?? e.cause?.code ?? e.message ?? String(err)}`,
    );
  }
  let json: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  if (status < 200 || status >= 300 || !json || typeof json.access_token !== 'string' || json.access_token === '') {
    const error = typeof json?.error === 'string' ? json.error : undefined;
    const description = typeof json?.error_description === 'string' ? json.error_description : undefined;
    const what =
      error !== undefined
        ? `${error}${description ? `: ${description}` : ''}`
        : status >= 200 && status < 300
          ? 'no access_token in the answer'
          : text.trim().slice(0, 200) || 'no error text';
    throw new TokenEndpointError(`token endpoint answered ${status} ${what}`.slice(0, 1000), status);
  }
  const expiresIn = Number(json.expires_in);
  return {
    accessToken: json.access_token,
    tokenType: typeof json.token_type === 'string' && json.token_type ? json.token_type : 'Bearer',
    obtainedAtMs: started,
    ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresAtMs: started + expiresIn * 1000 } : {}),
    ...(typeof json.refresh_token === 'string' && json.refresh_token ? { refreshToken: json.refresh_token } : {}),
    ...(typeof json.scope === 'string' ? { scope: json.scope } : {}),
  };
}

/**
 * Whether `token` should be renewed at `nowMs`: when what remains of its lifetime is less than
 * 30 s or 10 % of that lifetime, whichever is smaller (a one-hour token is renewed 30 s before it
 * expires, a 10 s one 1 s before). A token without an expiry never is (a 401 still renews it).
 */
export function needsRenewal(token: Token, nowMs: number): boolean {
  if (token.expiresAtMs === undefined) return false;
  const lifetime = Math.max(0, token.expiresAtMs - token.obtainedAtMs);
  const margin = Math.min(30_000, lifetime * 0.1);
  return token.expiresAtMs - nowMs < margin;
}
