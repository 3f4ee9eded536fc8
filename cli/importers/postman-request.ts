/**
 * The request settings and auth of a Postman request as an API node has them (docs/import-postman.md
 * "Requests: settings and auth"), for the collection importer (cli/importers/postman.ts):
 *
 * - `protocolProfileBehavior`, inherited from folders and the collection as Newman resolves it
 *   (the SDK's `getProtocolProfileBehaviorResolved`): `followRedirects`, `maxRedirects`,
 *   `followOriginalHttpMethod`, `followAuthorizationHeader`, `strictSSL`, `disableUrlEncoding`,
 *   `disableBodyPruning` (the node's `alwaysSendBody`), `removeRefererHeaderOnRedirect` (Newman
 *   sends `Referer` on redirects unless it is true: the node's `refererOnRedirect`, written on every
 *   request that follows redirects); the rest is listed as not imported.
 * - Newman's `--timeout-request` (the only request timeout a Newman run has) as every node's
 *   `timeoutMs`.
 * - auth types Assay signs itself (src/domain/types.ts `RequestAuth`): `digest`, `oauth1`, `hawk`,
 *   `awsv4`, with `{{variables}}` kept for the run to fill; `ntlm` and the others are listed.
 * - the method: any RFC 9110 token is sent, CONNECT is not.
 * - body pruning: a body Newman would not send (GET, HEAD, COPY, PURGE, UNLOCK without
 *   `disableBodyPruning`) gets no Content-Type from the import either, as Newman adds none.
 */
import type { Item, RequestAuth as PostmanAuth } from 'postman-collection';
import { BODYLESS_METHODS, METHOD_TOKEN_PATTERN, type RequestAuth, type RequestSpec } from '../../src/domain/types';

/** One thing the import could not carry over (cli/importers/postman.ts `ImportNote`). */
interface Note {
  at: string;
  message: string;
}

/** The settings of an API node's request the import writes (absent: the default, as in Newman). */
export type RequestSettings = Pick<
  RequestSpec,
  | 'timeoutMs'
  | 'followRedirects'
  | 'maxRedirects'
  | 'followOriginalHttpMethod'
  | 'followAuthorizationHeader'
  | 'strictSSL'
  | 'disableUrlEncoding'
  | 'alwaysSendBody'
  | 'refererOnRedirect'
>;

/** `protocolProfileBehavior` keys carried over, to the request field they become. */
const BEHAVIOURS: Record<string, keyof RequestSettings> = {
  followRedirects: 'followRedirects',
  followOriginalHttpMethod: 'followOriginalHttpMethod',
  followAuthorizationHeader: 'followAuthorizationHeader',
  strictSSL: 'strictSSL',
  disableUrlEncoding: 'disableUrlEncoding',
  disableBodyPruning: 'alwaysSendBody',
};

/** Keys read apart from {@link BEHAVIOURS}. */
const READ_APART = new Set(['removeRefererHeaderOnRedirect']);

/** Largest `maxRedirects` an API node takes (src/validation/flow-schemas.ts). */
const MAX_REDIRECTS = 50;

/**
 * The request settings of `item` (its `protocolProfileBehavior`, inherited, and Newman's
 * `--timeout-request` as `timeoutMs`); what cannot be carried over goes to `notes`.
 */
export function requestSettings(item: Item, at: string, notes: Note[], timeoutRequestMs?: number): RequestSettings {
  const out: RequestSettings = {};
  if (timeoutRequestMs !== undefined && timeoutRequestMs > 0) out.timeoutMs = Math.min(600_000, timeoutRequestMs);
  const resolved = (
    item as unknown as { getProtocolProfileBehaviorResolved?(): Record<string, unknown> }
  ).getProtocolProfileBehaviorResolved?.();
  for (const [key, value] of Object.entries(resolved ?? {})) {
    if (value === undefined || value === null) continue;
    const field = BEHAVIOURS[key];
    if (field && typeof value === 'boolean') (out as Record<string, unknown>)[field] = value;
    else if (key === 'maxRedirects' && typeof value === 'number' && Number.isInteger(value) && value >= 0) {
      out.maxRedirects = Math.min(value, MAX_REDIRECTS);
      if (value > MAX_REDIRECTS)
        notes.push({
          at,
          message: `maxRedirects ${value} is above Assay's largest, ${MAX_REDIRECTS}; imported as ${MAX_REDIRECTS}`,
        });
    } else if (!READ_APART.has(key))
      notes.push({ at, message: `protocolProfileBehavior.${key} is not imported (Assay has no such request setting)` });
  }
  // postman-request (lib/redirect.js) sets `Referer: <previous URL>` on every redirect it follows
  // unless removeRefererHeaderOnRedirect is true; Newman passes no default, so it is sent.
  if (out.followRedirects !== false && resolved?.removeRefererHeaderOnRedirect !== true) out.refererOnRedirect = true;
  return out;
}

/** Why `method` cannot be an API node's, or undefined when it can (any RFC 9110 token but CONNECT). */
export function methodRefusal(method: string): string | undefined {
  if (!new RegExp(METHOD_TOKEN_PATTERN).test(method))
    return `method "${method}" is not an HTTP method token (RFC 9110 §5.6.2); the request is left out`;
  if (method.toUpperCase() === 'CONNECT')
    return 'method CONNECT opens a tunnel to a proxy, which an API node cannot send; the request is left out';
  return undefined;
}

/**
 * The Content-Type the import added for a body (`addedContentType`) is dropped when Newman would
 * not send that body (the method prunes it and `alwaysSendBody` is not set): Newman adds a
 * Content-Type only for a body it sends. A Content-Type written in the request stays.
 */
export function pruneContentType(
  method: string,
  settings: RequestSettings,
  headers: Record<string, string>,
  writtenHeaders: string[],
): void {
  if (!BODYLESS_METHODS.includes(method.toUpperCase()) || settings.alwaysSendBody) return;
  if (writtenHeaders.some((h) => h.toLowerCase() === 'content-type')) return;
  for (const key of Object.keys(headers)) if (key.toLowerCase() === 'content-type') delete headers[key];
}

const text = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
const flag = (v: unknown): boolean => v === true || v === 'true';
/** Only the fields with a value (Postman exports empty strings for unset ones). */
function present<T extends Record<string, unknown>>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== '' && v !== undefined)) as T;
}

/**
 * The API node's `auth` for a Postman auth of a type Assay signs itself (`digest`, `oauth1`,
 * `hawk`, `awsv4`), with `params` (the auth's parameters as an object); undefined, with a note,
 * for the others and for options it cannot honour.
 */
export function translateAuth(
  auth: PostmanAuth,
  params: Record<string, unknown>,
  at: string,
  notes: Note[],
): RequestAuth | undefined {
  switch (auth.type) {
    case 'digest':
      if (flag(params.disableRetryRequest))
        notes.push({
          at,
          message: 'Digest auth: "disableRetryRequest" is not imported; Assay always answers the 401 challenge',
        });
      return { type: 'digest', username: text(params.username), password: text(params.password) };
    case 'oauth1': {
      const method = text(params.signatureMethod) || 'HMAC-SHA1';
      if (!['HMAC-SHA1', 'HMAC-SHA256', 'HMAC-SHA512', 'PLAINTEXT'].includes(method)) {
        notes.push({
          at,
          message: `OAuth 1.0 with ${method} is not imported (Assay signs with HMAC-SHA1, HMAC-SHA256, HMAC-SHA512 and PLAINTEXT)`,
        });
        return undefined;
      }
      if (flag(params.includeBodyHash))
        notes.push({ at, message: 'OAuth 1.0: "includeBodyHash" (oauth_body_hash) is not imported' });
      if (flag(params.addEmptyParamsToSign))
        notes.push({ at, message: 'OAuth 1.0: "addEmptyParamsToSign" is not imported; empty parameters are left out' });
      return present({
        type: 'oauth1' as const,
        consumerKey: text(params.consumerKey),
        consumerSecret: text(params.consumerSecret),
        token: text(params.token),
        tokenSecret: text(params.tokenSecret),
        signatureMethod: method as 'HMAC-SHA1',
        // Newman: the header when addParamsToHeader, else the query (for a form body, the body; Assay uses the query).
        placement: flag(params.addParamsToHeader) ? ('header' as const) : ('query' as const),
        realm: text(params.realm),
        callback: text(params.callback),
        verifier: text(params.verifier),
        timestamp: text(params.timestamp),
        nonce: text(params.nonce),
        ...(text(params.version) === '' ? { includeVersion: false } : {}),
      });
    }
    case 'hawk': {
      const algorithm = text(params.algorithm) || 'sha256';
      if (algorithm !== 'sha256' && algorithm !== 'sha1') {
        notes.push({ at, message: `Hawk with algorithm ${algorithm} is not imported (sha256 and sha1 are)` });
        return undefined;
      }
      if (text(params.user))
        notes.push({ at, message: 'Hawk: "user" is not imported (the Hawk header has no user field)' });
      return present({
        type: 'hawk' as const,
        id: text(params.authId),
        key: text(params.authKey),
        algorithm: algorithm as 'sha256' | 'sha1',
        ext: text(params.extraData),
        app: text(params.app),
        dlg: text(params.delegation),
        timestamp: text(params.timestamp),
        nonce: text(params.nonce),
        ...(flag(params.includePayloadHash) ? { includePayloadHash: true } : {}),
      });
    }
    case 'awsv4':
      return present({
        type: 'awsv4' as const,
        accessKeyId: text(params.accessKey),
        secretAccessKey: text(params.secretKey),
        sessionToken: text(params.sessionToken),
        region: text(params.region),
        service: text(params.service),
        ...(flag(params.addAuthDataToQuery) ? { placement: 'query' as const } : {}),
      });
    case 'ntlm':
      notes.push({
        at,
        message:
          'NTLM auth is not imported: NTLM authenticates a connection, not a request (a three-message handshake over one kept-alive connection), which API nodes do not hold, and no well-kept Node library implements it',
      });
      return undefined;
    default:
      notes.push({
        at,
        message: `auth type "${auth.type}" is not imported (bearer, basic, apikey, oauth2 access tokens, digest, oauth1, hawk and awsv4 are)`,
      });
      return undefined;
  }
}
