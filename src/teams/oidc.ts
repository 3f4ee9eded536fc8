/**
 * The console's OpenID Connect client (docs/teams.md "Configuring sign-in"): the authorization code
 * flow with PKCE (RFC 7636, method S256), `state` (RFC 6749 §10.12) and `nonce` (OpenID Connect
 * Core 1.0 §3.1.2.1, §15.5.2), through openid-client v6 (which checks the ID token: signature,
 * `iss`, `aud`, `exp`, `nonce`, OpenID Connect Core 1.0 §3.1.3.7).
 *
 * The provider's metadata (`<issuer>/.well-known/openid-configuration`, OpenID Connect Discovery 1.0
 * §4) is read at the first sign-in and kept; a failed read is tried again at the next one. Plain
 * http is allowed only for an issuer on loopback (src/config.ts refuses any other http issuer).
 */
import * as client from 'openid-client';
import type { OidcConfig } from '../config';

/** What a sign-in tells about the person (OpenID Connect Core 1.0 §5.1 standard claims). */
export interface OidcIdentity {
  /** The ID token's `iss`. */
  issuer: string;
  /** The ID token's `sub`: with `issuer`, the only stable identifier (OpenID Connect Core 1.0 §5.7). */
  subject: string;
  /** `email`, lower-cased, or null. */
  email: string | null;
  /** `email_verified === true`. */
  emailVerified: boolean;
  /** `name`, or null. */
  name: string | null;
  /** The groups claim (`ASSAY_OIDC_GROUPS_CLAIM`): an array of strings or one string; [] when absent. */
  groups: string[];
}

/** A sign-in under way: what the callback must find again (kept in the browser, sealed: api/routes/sign-in.ts). */
export interface PendingLogin {
  state: string;
  nonce: string;
  /** The PKCE code verifier (RFC 7636 §4.1). */
  codeVerifier: string;
  /** The same-origin path the browser returns to. */
  returnTo: string;
  /** Epoch ms after which the callback refuses it. */
  expiresAt: number;
}

/** How long a started sign-in may take, ms (10 min). */
export const LOGIN_TTL_MS = 10 * 60_000;

/** True for an http(s) URL whose host is loopback (`127.0.0.1`, `localhost`, `[::1]`). */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
}

/**
 * The groups a claim value holds: an array's strings, or a single string as one group (providers
 * differ: Keycloak and Okta send arrays, some send one string); anything else is none.
 */
export function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return value ? [value] : [];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string' && g !== '');
  return [];
}

/** The OpenID Connect relying party of one configuration. */
export class OidcClient {
  private discovered: Promise<client.Configuration> | undefined;

  constructor(readonly config: OidcConfig) {}

  /**
   * The provider's configuration, discovered once and kept; a failure is not kept (the next call
   * tries again). @throws when discovery fails (network, not JSON, issuer mismatch).
   */
  configuration(): Promise<client.Configuration> {
    if (!this.discovered) {
      const { issuer, clientId, clientSecret } = this.config;
      this.discovered = client
        .discovery(
          new URL(issuer),
          clientId,
          undefined,
          clientSecret ? client.ClientSecretBasic(clientSecret) : client.None(),
          { execute: isLoopbackUrl(issuer) ? [client.allowInsecureRequests] : [], timeout: 10 },
        )
        .catch((err: unknown) => {
          this.discovered = undefined;
          throw err;
        });
    }
    return this.discovered;
  }

  /**
   * Starts a sign-in: the provider's authorization URL (response_type `code`, the configured scopes,
   * `redirect_uri`, `code_challenge` with method S256, `state`, `nonce`, and `login_hint` when
   * given) and what the callback needs to finish it.
   */
  async startLogin(
    returnTo: string,
    loginHint?: string,
    nowMs = Date.now(),
  ): Promise<{ url: URL; pending: PendingLogin }> {
    const configuration = await this.configuration();
    const codeVerifier = client.randomPKCECodeVerifier();
    const pending: PendingLogin = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier,
      returnTo,
      expiresAt: nowMs + LOGIN_TTL_MS,
    };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.config.redirectUrl,
      scope: this.config.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
      ...(loginHint ? { login_hint: loginHint } : {}),
    });
    return { url, pending };
  }

  /**
   * Finishes a sign-in from the callback's query string: exchanges the code at the token endpoint
   * (with the PKCE verifier and the configured `redirect_uri`), checks `state` and the ID token
   * (`nonce` included), and reads the identity from the ID token's claims.
   * @throws when the provider answered an error, the state or nonce does not match, or the token
   *   exchange or the ID token fails its checks.
   */
  async finishLogin(query: string, pending: PendingLogin): Promise<OidcIdentity> {
    const configuration = await this.configuration();
    const currentUrl = new URL(this.config.redirectUrl);
    currentUrl.search = query;
    const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('the token response carries no ID token');
    const email = typeof claims.email === 'string' && claims.email ? claims.email.trim().toLowerCase() : null;
    return {
      issuer: claims.iss,
      subject: claims.sub,
      email,
      emailVerified: email !== null && claims.email_verified === true,
      name: typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim() : null,
      groups: groupsOf(claims[this.config.groupsClaim]),
    };
  }
}
