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
      // oauth2-mock-server takes `aud` from the Basic credentials without decoding them, but a client
      // form-encodes its id there (RFC 6749 §2.3.1: `assay-console` is sent as `assay%2Dconsole`).
      if (typeof token.payload.aud === 'string') token.payload.aud = decodeURIComponent(token.payload.aud);
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

/** A cookie a {@link ConsoleBrowser} keeps: its value, path and the raw `Set-Cookie` line it came from. */
export interface JarCookie {
  value: string;
  path: string;
  raw: string;
}

/**
 * A browser for the console's sign-in (docs/teams.md "People and sign-in"), on fetch: follows
 * redirects by hand (between the app and the provider) and keeps cookies by name with their
 * `Path` (`Max-Age=0` deletes), sending each to the paths it covers. Loopback only, so no domains.
 */
export class ConsoleBrowser {
  readonly cookies = new Map<string, JarCookie>();
  /** Every answer's status and Location, in order, of the last {@link ConsoleBrowser.follow}. */
  hops: Array<{ url: string; status: number; location: string | null }> = [];

  constructor(readonly appUrl: string) {}

  /** The `Cookie` header for a request to `url`. */
  cookieHeader(url: string): string {
    const path = new URL(url).pathname;
    return [...this.cookies]
      .filter(([, c]) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  /** One request (no redirect followed); stores the cookies the answer sets. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader(url);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((p) => p.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const attr = (key: string) =>
        attributes.find((a) => a.toLowerCase().startsWith(`${key.toLowerCase()}=`))?.split('=')[1];
      if (attr('Max-Age') === '0') this.cookies.delete(name);
      else this.cookies.set(name, { value: pair!.slice(eq + 1), path: attr('Path') ?? '/', raw: line });
    }
    return res;
  }

  /** GETs `url` and follows redirects (relative ones against the app) until an answer that is not one. */
  async follow(url: string, maxHops = 10): Promise<Response> {
    this.hops = [];
    let next = new URL(url, this.appUrl).href;
    for (let i = 0; i < maxHops; i++) {
      const res = await this.fetch(next);
      const location = res.headers.get('location');
      this.hops.push({ url: next, status: res.status, location });
      if (res.status < 300 || res.status >= 400 || !location) return res;
      await res.arrayBuffer();
      next = new URL(location, this.appUrl).href;
    }
    throw new Error(`more than ${maxHops} redirects from ${url}`);
  }

  /**
   * Signs in through `/auth/login` (`login_hint` chooses the provider's user: {@link OidcProvider.addUser})
   * and returns the final redirect's target path, or throws when no session cookie was set.
   */
  async signIn(loginHint?: string, returnTo = '/'): Promise<string> {
    this.csrfToken = undefined;
    const query = new URLSearchParams({ return: returnTo, ...(loginHint ? { login_hint: loginHint } : {}) });
    await this.follow(`/auth/login?${query}`);
    const last = this.hops[this.hops.length - 1]!;
    if (!this.cookies.has('assay_session')) throw new Error(`no session after sign-in: ${JSON.stringify(this.hops)}`);
    return new URL(last.url).pathname + new URL(last.url).search;
  }

  /** GET /auth/session's answer (status and body). */
  async session(): Promise<{ status: number; body: any }> {
    const res = await this.fetch(`${this.appUrl}/auth/session`);
    return { status: res.status, body: await res.json() };
  }

  /**
   * Calls the API with the session cookie: JSON in and out; `csrf` (default: the session's token,
   * read once from /auth/session) goes in `X-CSRF-Token` unless null; `workspace` in `X-Assay-Workspace`.
   */
  async request(
    method: string,
    path: string,
    body?: unknown,
    options: { csrf?: string | null; workspace?: string; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; headers: Headers; body: any }> {
    const headers: Record<string, string> = { ...options.headers };
    const csrf = options.csrf === undefined ? (this.csrfToken ??= (await this.session()).body.csrfToken) : options.csrf;
    if (csrf) headers['x-csrf-token'] = csrf!;
    if (options.workspace) headers['x-assay-workspace'] = options.workspace;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.fetch(`${this.appUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  /** The session's CSRF token once read (cleared on a new sign-in). */
  csrfToken: string | undefined;
}
