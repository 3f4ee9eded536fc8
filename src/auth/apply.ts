/**
 * Applying an auth profile to an API node's request (docs/auth.md), in the activity (and in the
 * direct port of performance runs): the profile's templates are filled from the run's variables
 * (secret variables opened), its sealed literals opened, then
 *
 * - `bearer`: `Authorization: Bearer <token>` (RFC 6750 §2.1);
 * - `basic`: `Authorization: Basic base64(username:password)` (RFC 7617, UTF-8);
 * - `apiKey`: a header, or a query parameter appended to the URL;
 * - `oauth2`: `Authorization: <token_type> <access_token>` with a token of the cache
 *   (src/auth/token-cache.ts), fetched from the token endpoint when there is none (src/auth/oauth2.ts).
 *
 * A header the node sets itself (any letter case) wins over the profile's. What the node's output
 * shows of the request has the credential masked (`Bearer ***`, `Basic ***`, the key `***`), and
 * {@link PreparedAuth.secrets} lists every value to mask in the rest of it (the token, the filled
 * secrets); the token is added to this process's log masker.
 */
import type { DataSource } from 'typeorm';
import type { Agent } from 'undici';
import type { ApiNodeAuthProfile } from '../domain/auth-profiles';
import { fillTemplates, type DynamicSources } from '../domain/templating';
import { AUTH_PROFILE_SECRET_FIELDS } from '../domain/auth-profiles';
import { KeyRingError, type KeyRing } from '../secrets/keyring';
import { rememberSecrets } from '../secrets/mask';
import { requestToken, TokenEndpointError, type FilledOAuth2, type Token } from './oauth2';
import { isTemplateOnly, openProfileFields } from './profile-fields';
import { TokenCache, tokenCacheKey } from './token-cache';

/** What the profile adds to a request. */
export interface AuthAddition {
  /** Headers to set unless the request sets its own. */
  headers: Record<string, string>;
  /** The same headers as the output shows them (credentials `***`). */
  maskedHeaders: Record<string, string>;
  /** Query parameters to append. */
  query: Array<[string, string]>;
}

/** A profile ready for one node execution. */
export interface PreparedAuth {
  addition: AuthAddition;
  /** Values to mask in the node's output: the filled secrets. */
  secrets: string[];
  /**
   * Values that are none of the run's variables — the tokens, the profile's literal secrets, a Basic
   * credential — masked everywhere, the variables a hook set included.
   */
  tokens: string[];
  /** oauth2: gets a new token after the API under test answered 401 (once); the new addition. */
  renew?(): Promise<AuthAddition>;
}

/** A profile that could not be applied: the node fails with this message (`auth profile "api": …`). */
export class AuthProfileError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'AuthProfileError';
  }
}

/** `{{$uuid}}`, `{{$timestamp}}` and the like in a profile's fields: filled anew, from the real clock and randomness. */
const LIVE_DYNAMIC: DynamicSources = {
  uuid: () => crypto.randomUUID(),
  now: () => Date.now(),
  random: () => Math.random(),
};

/** `fields` with every string (and every string of a list) filled from `variables`. */
function filled(fields: Record<string, unknown>, variables: Record<string, unknown>): Record<string, unknown> {
  return fillTemplates(fields, variables as never, LIVE_DYNAMIC);
}

/**
 * The variable names the templates of `fields` read (`{{name}}`), or undefined when one is dynamic
 * (`{{$uuid}}`, `{{$timestamp}}`: filled anew every time).
 */
function templateReads(fields: Record<string, unknown>): string[] | undefined {
  const names = new Set<string>();
  const text = JSON.stringify(fields);
  for (const m of text.matchAll(/\{\{([^{}]+)\}\}/g)) {
    const written = m[1]!;
    const name = written.trim();
    if (name.startsWith('$')) return undefined;
    names.add(name);
    names.add(written);
    names.add(name.split('.')[0]!);
  }
  return [...names];
}

/** Appends `query` to `url` (form-encoded, RFC 3986 query component). */
export function withQuery(url: string, query: Array<[string, string]>): string {
  if (!query.length) return url;
  const hash = url.indexOf('#');
  const base = hash >= 0 ? url.slice(0, hash) : url;
  const extra = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return `${base}${base.includes('?') ? (base.endsWith('?') || base.endsWith('&') ? '' : '&') : '?'}${extra}`;
}

/** What applies profiles in one process: the key ring, the agent token requests go through, the token cache. */
export class AuthProfiles {
  readonly cache: TokenCache;
  /**
   * A profile's fields opened, by the frozen profile object (a performance run passes the same one
   * every time), with the variables its templates read and the fields last filled from them.
   */
  private readonly opened = new WeakMap<
    object,
    {
      fields: Record<string, unknown>;
      reads: string[] | undefined;
      last?: { key: string; filled: Record<string, unknown> };
    }
  >();
  /** Cache keys by the filled fields' JSON (hashing once per distinct configuration, not per request). */
  private readonly keys = new Map<string, string>();
  /** Cache keys by the filled fields object (the same object while the variables its templates read stay the same). */
  private readonly keyOf = new WeakMap<object, string>();
  /** What {@link prepare} made last for a filled fields object, and the token it used (oauth2): reused while that token is the cache's. */
  private readonly preparedFor = new WeakMap<object, { prepared: PreparedAuth; key?: string; token?: Token }>();

  constructor(
    private readonly ring: KeyRing,
    private readonly agent: Agent,
    dataSource?: () => Promise<DataSource | undefined>,
  ) {
    this.cache = new TokenCache(ring, dataSource);
  }

  /**
   * Prepares `p` for a request, with the run's `variables` (opened) and the request's `timeoutMs`
   * (the token request's too). @throws AuthProfileError naming the profile.
   */
  async prepare(
    p: ApiNodeAuthProfile,
    variables: Record<string, unknown>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PreparedAuth> {
    const name = p.profile.name;
    let fields: Record<string, unknown>;
    try {
      let opened = this.opened.get(p.profile);
      if (!opened) {
        const open = openProfileFields(p.profile, this.ring);
        opened = { fields: open, reads: templateReads(open) };
        this.opened.set(p.profile, opened);
      }
      // The same values of the variables its templates read: the same filled fields (virtual users
      // of a performance run differ in __VU and __ITER only).
      const key = opened.reads ? JSON.stringify(opened.reads.map((r) => variables[r] ?? null)) : undefined;
      if (key !== undefined && opened.last?.key === key) fields = opened.last.filled;
      else {
        fields = filled(opened.fields, variables);
        if (key !== undefined) opened.last = { key, filled: fields };
      }
    } catch (err) {
      if (err instanceof KeyRingError)
        throw new AuthProfileError(`auth profile "${name}": a secret cannot be opened: ${err.message}`);
      throw err;
    }
    const made = this.preparedFor.get(fields);
    if (made && (made.key === undefined || this.cache.peek(made.key) === made.token)) return made.prepared;
    const prepared = await this.prepareFields(p, fields, timeoutMs, signal);
    this.preparedFor.set(fields, prepared);
    return prepared.prepared;
  }

  private async prepareFields(
    p: ApiNodeAuthProfile,
    fields: Record<string, unknown>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ prepared: PreparedAuth; key?: string; token?: Token }> {
    const secrets = AUTH_PROFILE_SECRET_FIELDS.map((f) => fields[f]).filter(
      (v): v is string => typeof v === 'string' && v !== '',
    );
    rememberSecrets(secrets);
    const str = (k: string) => String(fields[k] ?? '');
    // Literal secrets of the profile (not filled from a variable): never a run variable's value.
    const literal = AUTH_PROFILE_SECRET_FIELDS.filter(
      (f) => typeof p.profile.config[f] === 'string' && !isTemplateOnly(p.profile.config[f] as string),
    )
      .map((f) => fields[f])
      .filter((v): v is string => typeof v === 'string' && v !== '');
    switch (p.profile.type) {
      case 'bearer':
        return {
          prepared: {
            addition: {
              headers: { Authorization: `Bearer ${str('token')}` },
              maskedHeaders: { Authorization: 'Bearer ***' },
              query: [],
            },
            secrets,
            tokens: literal,
          },
        };
      case 'basic': {
        const credential = Buffer.from(`${str('username')}:${str('password')}`, 'utf8').toString('base64');
        return {
          prepared: {
            addition: {
              headers: { Authorization: `Basic ${credential}` },
              maskedHeaders: { Authorization: 'Basic ***' },
              query: [],
            },
            secrets: [...secrets, credential],
            tokens: [...literal, credential],
          },
        };
      }
      case 'apiKey':
        return {
          prepared:
            fields.in === 'query'
              ? {
                  addition: { headers: {}, maskedHeaders: {}, query: [[str('name'), str('value')]] },
                  secrets,
                  tokens: literal,
                }
              : {
                  addition: {
                    headers: { [str('name')]: str('value') },
                    maskedHeaders: { [str('name')]: '***' },
                    query: [],
                  },
                  secrets,
                  tokens: literal,
                },
        };
      case 'oauth2':
        return this.prepareOAuth2(p, fields as unknown as FilledOAuth2, secrets, literal, timeoutMs, signal);
    }
  }

  /**
   * A token fetched now from an oauth2 profile's endpoint, the cache left alone (the API's "fetch a
   * token now": it tries the profile's configuration). @throws AuthProfileError.
   */
  async fetchToken(p: ApiNodeAuthProfile, variables: Record<string, unknown>, timeoutMs: number): Promise<Token> {
    let fields: Record<string, unknown>;
    try {
      fields = filled(openProfileFields(p.profile, this.ring), variables);
    } catch (err) {
      if (err instanceof KeyRingError)
        throw new AuthProfileError(`auth profile "${p.profile.name}": a secret cannot be opened: ${err.message}`);
      throw err;
    }
    try {
      const token = await requestToken(fields as unknown as FilledOAuth2, this.agent, timeoutMs);
      rememberSecrets([token.accessToken, ...(token.refreshToken ? [token.refreshToken] : [])]);
      return token;
    } catch (err) {
      if (err instanceof TokenEndpointError)
        throw new AuthProfileError(`auth profile "${p.profile.name}": ${err.message}`, err.status);
      throw err;
    }
  }

  private async prepareOAuth2(
    p: ApiNodeAuthProfile,
    cfg: FilledOAuth2,
    secrets: string[],
    literal: string[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ prepared: PreparedAuth; key: string; token: Token }> {
    const owner = { workspaceId: p.workspaceId, profileId: p.profile.id };
    const tokens: string[] = [...literal];
    let key = this.keyOf.get(cfg);
    if (key === undefined) {
      const id = JSON.stringify([owner.workspaceId, owner.profileId, p.environment, cfg]);
      key = this.keys.get(id);
      if (key === undefined) {
        key = tokenCacheKey(owner, p.environment, cfg);
        if (this.keys.size >= 1000) this.keys.clear();
        this.keys.set(id, key);
      }
      this.keyOf.set(cfg, key);
    }
    const fetch = async (refreshToken?: string): Promise<Token> => {
      try {
        return await requestToken(cfg, this.agent, timeoutMs, { refreshToken, signal });
      } catch (err) {
        if (err instanceof TokenEndpointError)
          throw new AuthProfileError(`auth profile "${p.profile.name}": ${err.message}`, err.status);
        throw err;
      }
    };
    const additionOf = (token: Token): AuthAddition => {
      rememberSecrets([token.accessToken, ...(token.refreshToken ? [token.refreshToken] : [])]);
      tokens.push(token.accessToken, ...(token.refreshToken ? [token.refreshToken] : []));
      const type = /^bearer$/i.test(token.tokenType) ? 'Bearer' : token.tokenType;
      return {
        headers: { Authorization: `${type} ${token.accessToken}` },
        maskedHeaders: { Authorization: `${type} ***` },
        query: [],
      };
    };
    const token = (await this.cache.get(key, owner, fetch, { leaseMs: timeoutMs })).token;
    const cacheKey = key;
    return {
      key,
      token,
      prepared: {
        addition: additionOf(token),
        secrets,
        tokens,
        // A new token in place of the one the API refused (another request may have renewed it already).
        renew: async () =>
          additionOf(
            (await this.cache.get(cacheKey, owner, fetch, { leaseMs: timeoutMs, rejected: token.accessToken })).token,
          ),
      },
    };
  }
}

const shared = new WeakMap<object, AuthProfiles>();

/**
 * The process's {@link AuthProfiles} for a store (one token cache for every activity, run and
 * virtual user of the process that uses `dataSource`); `key` identifies it when there is no store
 * at hand yet (a load thread opens its own connection lazily).
 */
export function sharedAuthProfiles(
  key: object,
  ring: KeyRing,
  agent: Agent,
  dataSource?: () => Promise<DataSource | undefined>,
): AuthProfiles {
  let found = shared.get(key);
  if (!found) {
    found = new AuthProfiles(ring, agent, dataSource);
    shared.set(key, found);
  }
  return found;
}
