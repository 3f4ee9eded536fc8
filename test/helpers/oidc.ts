/**
 * A real OpenID Connect provider on loopback for the teams tests (docs/teams.md): oauth2-mock-server
 * (discovery, authorization endpoint with PKCE S256 and nonce, token endpoint, RS256-signed ID
 * tokens). Its authorization endpoint signs nobody in interactively: it redirects at once with a
 * code, and the ID token it then issues carries the claims of the user the test chose, either by the
 * `login_hint` the client passed (OpenID Connect Core 1.0 §3.1.2.1) naming a user added with
 * {@link OidcProvider.addUser}, or else {@link OidcProvider.signInAs}'s user.
 */
import { Events, OAuth2Server } from 'oauth2-mock-server';

/** The claims of a user the provider signs in. */
export interface OidcUser {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  /** The groups claim (claim name `groups`, or another set by {@link OidcProvider.groupsClaim}). */
  groups?: string[];
}

export interface OidcProvider {
  /** The issuer URL (`http://127.0.0.1:<port>`), for `ASSAY_OIDC_ISSUER`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The environment a test app needs to sign in through this provider (ASSAY_OIDC_*). */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Registers a user signed in when the client sends `login_hint=<hint>`. */
  addUser(hint: string, user: OidcUser): void;
  /** The user signed in when no known `login_hint` is sent. */
  signInAs(user: OidcUser): void;
  /** Name of the claim the groups go in (default `groups`). */
  groupsClaim: string;
  /** Every authorization request's query, in order (a test checks PKCE and nonce were sent). */
  authorizations: Array<Record<string, string>>;
  /** Every token request's body, in order. */
  tokenRequests: Array<Record<string, string>>;
  stop(): Promise<void>;
}

/** Starts the provider on a free loopback port. */
export async function startOidcProvider(
  options: { clientId?: string; clientSecret?: string } = {},
): Promise<OidcProvider> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  const users = new Map<string, OidcUser>();
  /** The user each authorization code was issued for. */
  const codes = new Map<string, OidcUser>();
  let current: OidcUser = { sub: 'alice', email: 'alice@example.com', email_verified: true, name: 'Alice' };
  const provider: OidcProvider = {
    issuer: server.issuer.url!.replace(/\/$/, ''),
    clientId: options.clientId ?? 'assay-console',
    clientSecret: options.clientSecret ?? 'assay-console-secret',
    groupsClaim: 'groups',
    authorizations: [],
    tokenRequests: [],
    env(extra = {}) {
      return {
        ASSAY_OIDC_ISSUER: provider.issuer,
        ASSAY_OIDC_CLIENT_ID: provider.clientId,
        ASSAY_OIDC_CLIENT_SECRET: provider.clientSecret,
        ...extra,
      };
    },
    addUser(hint, user) {
      users.set(hint, user);
    },
    signInAs(user) {
      current = user;
    },
    async stop() {
      await server.stop();
    },
  };
  server.service.on(Events.BeforeAuthorizeRedirect, (redirect: { url: URL }, req: { url?: string }) => {
    const query = Object.fromEntries(new URL(req.url ?? '/', provider.issuer).searchParams);
    provider.authorizations.push(query);
    const code = redirect.url.searchParams.get('code');
    const hinted = query.login_hint ? users.get(query.login_hint) : undefined;
    if (code) codes.set(code, hinted ?? current);
  });
  server.service.on(
    Events.BeforeTokenSigning,
    (token: { payload: Record<string, unknown> }, req: { body?: Record<string, string> }) => {
      const body = req.body ?? {};
      const user = body.code ? codes.get(body.code) : undefined;
      if (!user) return;
      const { groups, ...claims } = user;
      Object.assign(token.payload, claims);
      if (groups) token.payload[provider.groupsClaim] = groups;
    },
  );
  server.service.on(Events.BeforeResponse, (_response: unknown, req: { body?: Record<string, string> }) => {
    if (req.body?.grant_type) provider.tokenRequests.push({ ...req.body });
  });
  return provider;
}
