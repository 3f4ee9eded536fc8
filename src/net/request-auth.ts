/**
 * Signing an API node's request with its `auth` (src/domain/types.ts `RequestAuth`;
 * docs/flows.md "Auth"), when it is sent (activities/api-request.ts), after its templates were
 * filled:
 *
 * - `digest`: HTTP Digest, RFC 7616 (MD5, SHA-256, SHA-512-256 and their `-sess` variants; qop
 *   `auth`, `auth-int` or none as in RFC 2069; `userhash`). Needs the server's challenge: the
 *   request goes out unsigned, and a `401` with a `Digest` challenge is answered by sending it
 *   again with {@link digestAuthorization}.
 * - `oauth1`: OAuth 1.0, RFC 5849 §3 (HMAC-SHA1, HMAC-SHA256, HMAC-SHA512, PLAINTEXT), the
 *   protocol parameters in the `Authorization` header or the query. Written here after the RFC,
 *   checked against its examples (test/unit/request-auth.test.ts).
 * - `hawk`: the Hawk scheme, with Mozilla's `hawk` library (the maintained home of `@hapi/hawk`).
 * - `awsv4`: AWS Signature Version 4, with the `aws4` library.
 *
 * Nothing here logs or returns a secret; results show `auth` masked (src/domain/request-auth.ts).
 */
import crypto from 'node:crypto';
import aws4 from 'aws4';
import hawk from 'hawk';
import type { AwsSigV4Auth, DigestAuth, HawkAuth, OAuth1Auth, RequestAuth } from '../domain/types';

/** The request as it goes out, what a signature covers. */
export interface OutgoingRequest {
  method: string;
  /** The URL as sent: `origin` for scheme, host and port. */
  url: URL;
  /** The request target as sent: path and query. */
  target: string;
  /** Headers as sent (names as given). */
  headers: Record<string, string>;
  /** The body as sent: text, or bytes (a request with files, activities/files.ts). */
  body?: string | Buffer;
}

/** What signing adds: headers to set, or a new request target (signature in the query). */
export interface Signed {
  headers: Record<string, string>;
  target?: string;
}

/** The headers and target of `req` signed with `auth` (digest: nothing until challenged). */
export function signRequest(auth: RequestAuth, req: OutgoingRequest): Signed {
  switch (auth.type) {
    case 'digest':
      return { headers: {} };
    case 'oauth1':
      return signOAuth1(auth, req);
    case 'hawk':
      return signHawk(auth, req);
    case 'awsv4':
      return signAwsV4(auth, req);
  }
}

// --- OAuth 1.0 (RFC 5849) -------------------------------------------------------------------------

/** RFC 5849 §3.6: percent-encoding of everything but the unreserved characters, upper-case hex. */
export function oauthEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Decodes an `application/x-www-form-urlencoded` component (`+` is a space); malformed escapes stay as written. */
function formDecode(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** The name/value pairs of a query or form body (RFC 5849 §3.4.1.3.1). */
function formPairs(text: string): Array<[string, string]> {
  if (!text) return [];
  return text
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const i = p.indexOf('=');
      return i < 0 ? [formDecode(p), ''] : [formDecode(p.slice(0, i)), formDecode(p.slice(i + 1))];
    });
}

/** RFC 5849 §3.4.1.2: scheme and host in lower case, the port only when not the default, the path. */
export function oauthBaseUri(url: URL, target: string): string {
  const path = target.split('?')[0] || '/';
  const defaultPort =
    (url.protocol === 'http:' && url.port === '80') || (url.protocol === 'https:' && url.port === '443');
  const port = url.port && !defaultPort ? `:${url.port}` : '';
  return `${url.protocol.toLowerCase()}//${url.hostname.toLowerCase()}${port}${path}`;
}

/**
 * RFC 5849 §3.4.1: the signature base string of a request whose protocol parameters are
 * `oauthParams` (without `oauth_signature` and `realm`). Query parameters and a form body
 * (`application/x-www-form-urlencoded`) are included.
 */
export function oauthBaseString(
  method: string,
  url: URL,
  target: string,
  oauthParams: Record<string, string>,
  formBody?: string,
): string {
  const query = target.includes('?') ? target.slice(target.indexOf('?') + 1) : '';
  const pairs: Array<[string, string]> = [
    ...formPairs(query),
    ...Object.entries(oauthParams),
    ...(formBody ? formPairs(formBody) : []),
  ];
  const normalised = pairs
    .map(([k, v]) => [oauthEncode(k), oauthEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return [method.toUpperCase(), oauthEncode(oauthBaseUri(url, target)), oauthEncode(normalised)].join('&');
}

/** RFC 5849 §3.4.2 – §3.4.4: the signature of `baseString` with the two secrets. */
export function oauthSignature(
  signatureMethod: NonNullable<OAuth1Auth['signatureMethod']>,
  baseString: string,
  consumerSecret: string,
  tokenSecret: string,
): string {
  const key = `${oauthEncode(consumerSecret)}&${oauthEncode(tokenSecret)}`;
  if (signatureMethod === 'PLAINTEXT') return key;
  const algorithm = { 'HMAC-SHA1': 'sha1', 'HMAC-SHA256': 'sha256', 'HMAC-SHA512': 'sha512' }[signatureMethod];
  return crypto.createHmac(algorithm, key).update(baseString).digest('base64');
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((h) => h.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

function signOAuth1(auth: OAuth1Auth, req: OutgoingRequest): Signed {
  const signatureMethod = auth.signatureMethod ?? 'HMAC-SHA1';
  const params: Record<string, string> = { oauth_consumer_key: auth.consumerKey };
  if (auth.token) params.oauth_token = auth.token;
  params.oauth_signature_method = signatureMethod;
  params.oauth_timestamp = auth.timestamp || String(Math.floor(Date.now() / 1000));
  params.oauth_nonce = auth.nonce || crypto.randomBytes(16).toString('hex');
  if (auth.includeVersion !== false) params.oauth_version = '1.0';
  if (auth.callback) params.oauth_callback = auth.callback;
  if (auth.verifier) params.oauth_verifier = auth.verifier;
  const form = /^application\/x-www-form-urlencoded\b/i.test(headerValue(req.headers, 'content-type') ?? '')
    ? req.body?.toString()
    : undefined;
  const base = oauthBaseString(req.method, req.url, req.target, params, form);
  params.oauth_signature = oauthSignature(signatureMethod, base, auth.consumerSecret ?? '', auth.tokenSecret ?? '');
  if (auth.placement === 'query') {
    const added = Object.entries(params)
      .map(([k, v]) => `${oauthEncode(k)}=${oauthEncode(v)}`)
      .join('&');
    return { headers: {}, target: `${req.target}${req.target.includes('?') ? '&' : '?'}${added}` };
  }
  const fields = [
    ...(auth.realm !== undefined ? [`realm="${oauthEncode(auth.realm)}"`] : []),
    ...Object.entries(params).map(([k, v]) => `${oauthEncode(k)}="${oauthEncode(v)}"`),
  ];
  return { headers: { Authorization: `OAuth ${fields.join(', ')}` } };
}

// --- Hawk ------------------------------------------------------------------------------------------

function signHawk(auth: HawkAuth, req: OutgoingRequest): Signed {
  const q = req.target.indexOf('?');
  const { header } = hawk.client.header(
    {
      protocol: req.url.protocol,
      hostname: req.url.hostname,
      port: req.url.port,
      pathname: q < 0 ? req.target : req.target.slice(0, q),
      search: q < 0 ? '' : req.target.slice(q),
    },
    req.method,
    {
      credentials: { id: auth.id, key: auth.key, algorithm: auth.algorithm ?? 'sha256' },
      ...(auth.ext ? { ext: auth.ext } : {}),
      ...(auth.app ? { app: auth.app } : {}),
      ...(auth.dlg ? { dlg: auth.dlg } : {}),
      ...(auth.timestamp ? { timestamp: Number(auth.timestamp) } : {}),
      ...(auth.nonce ? { nonce: auth.nonce } : {}),
      ...(auth.includePayloadHash
        ? { payload: req.body ?? '', contentType: headerValue(req.headers, 'content-type') ?? '' }
        : {}),
    },
  );
  return { headers: { Authorization: header } };
}

// --- AWS Signature Version 4 ----------------------------------------------------------------------

function signAwsV4(auth: AwsSigV4Auth, req: OutgoingRequest): Signed {
  // aws4 signs the headers it is given (its own added): the request's, with its Host as sent.
  const headers: Record<string, string> = { ...req.headers };
  const signed = aws4.sign(
    {
      host: req.url.host,
      path: req.target,
      method: req.method,
      headers,
      body: req.body,
      region: auth.region || 'us-east-1',
      ...(auth.service ? { service: auth.service } : {}),
      ...(auth.placement === 'query' ? { signQuery: true } : {}),
    },
    {
      accessKeyId: auth.accessKeyId,
      secretAccessKey: auth.secretAccessKey,
      ...(auth.sessionToken ? { sessionToken: auth.sessionToken } : {}),
    },
  );
  const added: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers ?? {})) {
    if (name.toLowerCase() === 'host') continue;
    if (req.headers[name] === value) continue;
    added[name] = String(value);
  }
  return auth.placement === 'query' ? { headers: added, target: signed.path } : { headers: added };
}

// --- Digest (RFC 7616) ----------------------------------------------------------------------------

/** One challenge of a `WWW-Authenticate` field: its scheme and parameters (names in lower case). */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** Parses a `WWW-Authenticate` value into its challenges (RFC 9110 §11.6.1; quoted strings unescaped). */
export function parseChallenges(header: string): Challenge[] {
  const out: Challenge[] = [];
  const re = /\s*(?:([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*)))?)\s*(,)?/gy;
  let current: Challenge | undefined;
  let m: RegExpExecArray | null;
  while (re.lastIndex < header.length && (m = re.exec(header))) {
    if (m[0] === '') break;
    const [, name, quoted, token] = m;
    if (!name) continue;
    if (quoted === undefined && token === undefined) {
      // A bare token: a new scheme (or token68 data, which Digest does not use).
      current = { scheme: name.toLowerCase(), params: {} };
      out.push(current);
      // `Scheme param=…`: the scheme is followed by a space, then its first parameter.
      continue;
    }
    if (!current) continue;
    current.params[name.toLowerCase()] = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : token!;
  }
  return out;
}

const DIGEST_HASHES: Record<string, string> = { MD5: 'md5', 'SHA-256': 'sha256', 'SHA-512-256': 'sha512-256' };

function hashOf(algorithm: string): string | undefined {
  return DIGEST_HASHES[algorithm.toUpperCase().replace(/-SESS$/, '')];
}

/** The first Digest challenge of `header` whose algorithm this module knows. */
export function digestChallenge(header: string | undefined): Challenge | undefined {
  if (!header) return undefined;
  return parseChallenges(header).find(
    (c) => c.scheme === 'digest' && c.params.nonce !== undefined && hashOf(c.params.algorithm ?? 'MD5') !== undefined,
  );
}

/**
 * The `Authorization` value answering a Digest `challenge` (RFC 7616 §3.4) for `req`. `cnonce` and
 * `nc` may be fixed (tests); by default a random cnonce and the first use (`00000001`).
 */
export function digestAuthorization(
  auth: DigestAuth,
  challenge: Challenge,
  req: Pick<OutgoingRequest, 'method' | 'target' | 'body'>,
  cnonce: string = crypto.randomBytes(16).toString('hex'),
  nc = '00000001',
): string {
  const p = challenge.params;
  const algorithm = p.algorithm ?? 'MD5';
  const H = (text: string | Buffer) =>
    crypto
      .createHash(hashOf(algorithm)!)
      .update(typeof text === 'string' ? Buffer.from(text, 'utf8') : text)
      .digest('hex');
  const realm = p.realm ?? '';
  const nonce = p.nonce ?? '';
  const offered = (p.qop ?? '').split(',').map((q) => q.trim().toLowerCase());
  const qop = offered.includes('auth') ? 'auth' : offered.includes('auth-int') ? 'auth-int' : undefined;
  let ha1 = H(`${auth.username}:${realm}:${auth.password}`);
  if (/-sess$/i.test(algorithm)) ha1 = H(`${ha1}:${nonce}:${cnonce}`);
  const ha2 =
    qop === 'auth-int' ? H(`${req.method}:${req.target}:${H(req.body ?? '')}`) : H(`${req.method}:${req.target}`);
  const response = qop ? H(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : H(`${ha1}:${nonce}:${ha2}`);
  const userhash = p.userhash?.toLowerCase() === 'true';
  const quote = (s: string) => `"${s.replace(/(["\\])/g, '\\$1')}"`;
  const fields = [
    `username=${quote(userhash ? H(`${auth.username}:${realm}`) : auth.username)}`,
    `realm=${quote(realm)}`,
    `nonce=${quote(nonce)}`,
    `uri=${quote(req.target)}`,
    `algorithm=${algorithm}`,
    ...(qop ? [`qop=${qop}`, `nc=${nc}`, `cnonce=${quote(cnonce)}`] : []),
    `response=${quote(response)}`,
    ...(p.opaque !== undefined ? [`opaque=${quote(p.opaque)}`] : []),
    ...(userhash ? ['userhash=true'] : []),
  ];
  return `Digest ${fields.join(', ')}`;
}
