/**
 * Postman auth as Assay auth profiles (docs/import-postman.md "Auth profiles", docs/auth.md), for the
 * collection importer (cli/importers/postman.ts):
 *
 * - the auth of the collection, of a folder, or of a request (when not `inherit`) of type `bearer`,
 *   `basic`, `apikey` or `oauth2` with the grant `client_credentials` or `password_credentials`
 *   becomes an auth profile (`POST /v1/auth-profiles`) named after where it is written (the
 *   collection, `collection.folder`, `collection.folder.request`), values kept as written (so
 *   `{{variables}}` stay templates the run fills from its environment); identical auth written in
 *   several places gives one profile;
 * - the test case of a top-level folder references its folder's auth (else the collection's) in its
 *   `authProfile`; an API node whose request resolves to another auth references that profile, or
 *   `none` (Postman's `noauth`, or an auth Assay signs on the node itself);
 * - the other OAuth 2.0 grants (authorization code, implicit) need a browser: listed as not
 *   translated (a stored access token is still sent as a header, as before);
 * - Digest, OAuth 1.0, Hawk and AWS SigV4 stay on the node's `request.auth`
 *   (cli/importers/postman-request.ts `translateAuth`).
 */
import { Collection, RequestAuth, type Item, type ItemGroup } from 'postman-collection';
import type {
  ApiKeyProfileConfig,
  BasicProfileConfig,
  BearerProfileConfig,
  OAuth2Grant,
  OAuth2ProfileConfig,
} from '../../src/domain/auth-profiles';

/** One thing the import could not carry over (cli/importers/postman.ts `ImportNote`). */
interface Note {
  at: string;
  message: string;
}

/**
 * The fields of an auth profile of each type (the REST shape of `/v1/auth-profiles`, docs/auth.md,
 * src/domain/auth-profiles.ts); every string may hold `{{variable}}` templates.
 */
export type AuthProfileFields =
  | ({ type: 'bearer' } & BearerProfileConfig)
  | ({ type: 'basic' } & BasicProfileConfig)
  | ({ type: 'apiKey' } & ApiKeyProfileConfig)
  | ({ type: 'oauth2' } & OAuth2ProfileConfig);

/** An auth profile the import creates or updates. */
export interface ImportedAuthProfile {
  /** Its name: letters, digits, `_`, `.`, `-`, 1 to 100 characters, unique within the import. */
  name: string;
  description: string;
  fields: AuthProfileFields;
  /** Where the auth is written first: `collection`, `Folder / Sub`, `Folder / Request`. */
  from: string;
}

/**
 * A name an auth profile may have: `[A-Za-z0-9_.-]`, starting with a letter or digit, at most 100
 * characters, not `none` (which turns authentication off).
 */
export function profileSlug(text: string): string {
  const slug =
    text
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9_.-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+|[-.]+$/g, '')
      .slice(0, 100) || 'postman';
  return slug === 'none' ? 'none-auth' : slug;
}

const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));

/** The auth's parameters as an object (Postman's `[{key, value}]` list, or v2.0's object). */
export function authParameters(auth: RequestAuth): Record<string, unknown> {
  const params = auth.parameters();
  return params ? (params.toObject() as Record<string, unknown>) : {};
}

/** Where an item's effective auth is written: the request itself, a folder, or the collection. */
export interface ResolvedAuth {
  auth: RequestAuth;
  /** `request`, `folder` or `collection`. */
  level: 'request' | 'folder' | 'collection';
  /** Folder names from the collection down (the folder's, or the request's folders and its name). */
  path: string[];
}

const validAuth = (entity: unknown): boolean => {
  const auth = (entity as { auth?: { type?: string } } | undefined)?.auth;
  return Boolean(auth && RequestAuth.isValidType(auth.type as never));
};

/** Folder names of `group` from the collection down (empty for the collection). */
export function groupPath(group: unknown): string[] {
  const names: string[] = [];
  let e = group as { name?: string; parent?(): unknown } | undefined;
  while (e && !Collection.isCollection(e)) {
    names.unshift(text(e.name));
    e = e.parent?.() as typeof e;
  }
  return names;
}

/**
 * The auth a request is sent with, as Postman resolves it (the SDK's `Item.getAuth`): its own
 * unless absent or `inherit`, else the nearest folder's, else the collection's; undefined when
 * none is written anywhere. `noauth` is returned as written (it stops the inheritance).
 */
export function resolveAuth(item: Item, itemName: string): ResolvedAuth | undefined {
  if (validAuth(item.request)) {
    const parents = groupPath((item as unknown as { parent(): unknown }).parent());
    return { auth: item.request.auth as RequestAuth, level: 'request', path: [...parents, itemName] };
  }
  const owner = (
    item as unknown as { findParentContaining(p: string, c: (e: unknown) => boolean): unknown }
  ).findParentContaining('auth', validAuth) as { auth: RequestAuth } | undefined;
  if (!owner) return undefined;
  if (Collection.isCollection(owner)) return { auth: owner.auth as RequestAuth, level: 'collection', path: [] };
  return { auth: owner.auth, level: 'folder', path: groupPath(owner) };
}

/** The auth a folder (or the collection, `group` undefined) passes to its requests, as {@link resolveAuth}. */
export function resolveGroupAuth(collection: Collection, group: ItemGroup<Item> | undefined): ResolvedAuth | undefined {
  if (group) {
    const owner = validAuth(group)
      ? group
      : ((
          group as unknown as { findParentContaining(p: string, c: (e: unknown) => boolean): unknown }
        ).findParentContaining('auth', validAuth) as { auth: RequestAuth } | undefined);
    if (owner && !Collection.isCollection(owner))
      return { auth: (owner as { auth: RequestAuth }).auth, level: 'folder', path: groupPath(owner) };
  }
  return validAuth(collection) ? { auth: collection.auth as RequestAuth, level: 'collection', path: [] } : undefined;
}

/** Postman's OAuth 2.0 `grant_type` values that an auth profile fetches tokens for, to the profile's grant. */
const GRANTS: Record<string, OAuth2Grant> = {
  client_credentials: 'client_credentials',
  password_credentials: 'password',
};

/**
 * The auth profile fields for a Postman auth, or undefined (with a note when something is lost)
 * when it is not one a profile carries: then the caller keeps the import's other handling of it.
 */
export function profileFields(auth: RequestAuth, at: string, notes: Note[]): AuthProfileFields | undefined {
  const p = authParameters(auth);
  switch (auth.type) {
    case 'bearer':
      return text(p.token) ? { type: 'bearer', token: text(p.token) } : undefined;
    // A profile needs both: without them the request keeps the header written as before.
    case 'basic':
      return text(p.username) && text(p.password)
        ? { type: 'basic', username: text(p.username), password: text(p.password) }
        : undefined;
    case 'apikey':
      return text(p.key) && text(p.value)
        ? { type: 'apiKey', name: text(p.key), value: text(p.value), in: p.in === 'query' ? 'query' : 'header' }
        : undefined;
    case 'oauth2':
      return oauth2Fields(p, at, notes);
    default:
      return undefined;
  }
}

/** Postman's oauth2 parameters (`grant_type`, `accessTokenUrl`, `clientId`, …) as a profile's. */
function oauth2Fields(p: Record<string, unknown>, at: string, notes: Note[]): AuthProfileFields | undefined {
  // Postman's own default grant is the authorization code (an export may leave the default out).
  const postmanGrant = text(p.grant_type) || 'authorization_code';
  const grant = GRANTS[postmanGrant];
  if (!grant) {
    notes.push({
      at,
      message: `OAuth 2.0 grant "${postmanGrant}" is not translated to an auth profile: it needs a browser (profiles fetch tokens with client_credentials, password and refresh_token)${p.accessToken ? '; the stored access token is sent as a header instead, and is not refreshed' : ''}`,
    });
    return undefined;
  }
  let tokenUrl = text(p.accessTokenUrl);
  // Without a scheme (Postman sends such a URL over http, as the importer does for requests).
  if (tokenUrl && !/^[a-z][a-z0-9+.-]*:\/\//i.test(tokenUrl) && !/^\s*\{\{/.test(tokenUrl))
    tokenUrl = `http://${tokenUrl}`;
  const clientId = text(p.clientId);
  if (!tokenUrl || !clientId) {
    notes.push({
      at,
      message: `OAuth 2.0 ${postmanGrant} without ${tokenUrl ? 'a client id' : 'an access token URL'} is not translated`,
    });
    return undefined;
  }
  if (p.addTokenTo === 'queryParams')
    notes.push({
      at,
      message: 'OAuth 2.0 "add token to: query params" is not translated: the profile sends the token as a header',
    });
  const prefix = text(p.headerPrefix);
  if (prefix && prefix.toLowerCase() !== 'bearer')
    notes.push({ at, message: `OAuth 2.0 header prefix "${prefix}" is not translated: the profile sends "Bearer"` });
  let audience: string | undefined;
  const extra: string[] = [];
  for (const param of listOf(p.tokenRequestParams)) {
    const { key, value, enabled, send_as } = param as Record<string, unknown>;
    if (enabled === false || !key) continue;
    if (key === 'audience' && (send_as ?? 'request_body') === 'request_body') audience = text(value);
    else extra.push(text(key));
  }
  if (extra.length)
    notes.push({
      at,
      message: `OAuth 2.0 token request parameters (${extra.join(', ')}) are not translated (a profile sends scope and audience)`,
    });
  const scopes = text(p.scope).split(/\s+/).filter(Boolean);
  const secret = text(p.clientSecret);
  return {
    type: 'oauth2',
    grant,
    tokenUrl,
    clientId,
    ...(secret ? { clientSecret: secret } : {}),
    ...(scopes.length ? { scopes } : {}),
    ...(audience ? { audience } : {}),
    // Postman's "Send as Basic Auth header" (its default) or "Send client credentials in body".
    clientAuthentication: p.client_authentication === 'body' ? 'body' : 'basic',
    ...(grant === 'password' ? { username: text(p.username), password: text(p.password) } : {}),
  };
}

/** A list parameter: an array, or its JSON text (an export typing it `string`). */
function listOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/**
 * The auth profiles an import makes: one per distinct auth (type and values), named after the
 * first place it is written, names unique.
 */
export class ProfileRegistry {
  readonly profiles: ImportedAuthProfile[] = [];
  /** Each auth object's answer, so that one written once is noted once however many requests inherit it. */
  private readonly seen = new Map<RequestAuth, string | undefined>();
  constructor(private readonly collectionName: string) {}

  /**
   * The profile name for `resolved` (created on first use), or undefined when its auth is not one
   * a profile carries (`notes` then say what is lost, where it matters).
   */
  nameFor(resolved: ResolvedAuth, notes: Note[]): string | undefined {
    if (this.seen.has(resolved.auth)) return this.seen.get(resolved.auth);
    const name = this.create(resolved, notes);
    this.seen.set(resolved.auth, name);
    return name;
  }

  private create(resolved: ResolvedAuth, notes: Note[]): string | undefined {
    const at = resolved.level === 'collection' ? this.collectionName : resolved.path.join(' / ');
    const fields = profileFields(resolved.auth, at, notes);
    if (!fields) return undefined;
    const key = JSON.stringify(fields);
    const same = this.profiles.find((p) => JSON.stringify(p.fields) === key);
    if (same) return same.name;
    const base = profileSlug([this.collectionName, ...resolved.path].map(profileSlug).join('.')).slice(0, 96);
    let name = base;
    for (let n = 2; this.profiles.some((p) => p.name === name); n++) name = `${base}-${n}`;
    const where =
      resolved.level === 'collection'
        ? `the collection "${this.collectionName}"`
        : `the ${resolved.level} "${resolved.path.join(' / ')}"`;
    this.profiles.push({
      name,
      description: `Imported from Postman: the ${resolved.auth.type} auth of ${where}`.slice(0, 500),
      fields,
      from: resolved.level === 'collection' ? 'collection' : resolved.path.join(' / '),
    });
    return name;
  }
}
