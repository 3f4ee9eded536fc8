/**
 * A loopback server that checks what API nodes (and Newman) send, for what go-httpbin does not
 * answer: OAuth 1.0, Hawk and AWS SigV4 signatures, a brotli body, a gzip bomb, the request target
 * as it arrived; and a self-signed HTTPS server. Used by test/integration/runs/api-requests.test.ts
 * and test/integration/cli/postman-requests.test.ts.
 *
 * - `/oauth1/…`: recomputes the RFC 5849 signature from what arrived (header or query parameters,
 *   a form body) with {@link VERIFIER_SECRETS}; 200 `{authenticated: true, …}` or 401 with the reason.
 * - `/hawk/…`: Mozilla's `hawk` library's own server check (the payload hash too when sent).
 * - `/aws/…`: AWS Signature Version 4 checked by an implementation of its algorithm written here
 *   (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html), not aws4's.
 * - `/digest/MD5`, `/digest/SHA-256`: HTTP Digest (RFC 7616, qop `auth`) with a challenge written as
 *   the RFC writes it (every value quoted; go-httpbin's unquoted nonce is refused by Newman).
 * - `/br`: `{"n": 42, "coding": "br"}` brotli-compressed when `Accept-Encoding` lists br (else 406).
 * - `/bomb`: a gzip body of 1 GiB of the letter a (64 members of 16 MiB; 1 MiB on the wire).
 * - `/raw/…`: `{"url": <the request target as received>}`.
 * - `/echo…`: what arrived: `{method, url, headers, body}` (header names lower-cased, several
 *   values of one name joined with `, `; `body` the bytes as UTF-8 text, `""` when none came).
 * - `/upload`: what a body with files arrived as, byte for byte: `{contentType, size, sha256}` of
 *   the whole body (hex SHA-256) and, for `multipart/form-data` (parsed by undici's `formData()`),
 *   `parts: [{name, value}` for text, `{name, filename, contentType, size, sha256}` for files`]`.
 */
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import hawk from 'hawk';
import { oauthBaseString, oauthSignature, parseChallenges } from '../../src/net/request-auth';

/** The credentials the verifier accepts. */
export const VERIFIER_SECRETS = {
  oauth1: {
    consumerKey: 'assay-consumer',
    consumerSecret: 'consumer-secret-9d2',
    token: 'assay-token',
    tokenSecret: 'token-secret-7c1',
  },
  hawk: { id: 'assay-hawk-id', key: 'hawk-key-werxhqb98rpaxn39848', algorithm: 'sha256' as const },
  aws: {
    accessKeyId: 'AKIDASSAYTEST',
    secretAccessKey: 'aws-secret-wJalrXUtnFEMI',
    sessionToken: 'session-token-1234',
  },
  digest: { username: 'user', password: 'digest-pass-5f1' },
};

export interface Verifier {
  url: string;
  close(): Promise<void>;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The `/upload` answer: the body's bytes as they arrived, and its parts when multipart. */
async function describeUpload(req: http.IncomingMessage, raw: Buffer): Promise<unknown> {
  const contentType = String(req.headers['content-type'] ?? '');
  const out: Record<string, unknown> = { method: req.method, contentType, size: raw.length, sha256: sha256(raw) };
  if (/^multipart\/form-data/i.test(contentType)) {
    const form = await new Request('http://upload.invalid/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(raw),
    }).formData();
    const parts: unknown[] = [];
    for (const [name, value] of form as unknown as Iterable<[string, string | File]>) {
      if (typeof value === 'string') parts.push({ name, value });
      else {
        const bytes = new Uint8Array(await value.arrayBuffer());
        parts.push({
          name,
          filename: value.name,
          contentType: value.type,
          size: bytes.length,
          sha256: sha256(Buffer.from(bytes)),
        });
      }
    }
    out.parts = parts;
  }
  return out;
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** `k="v", k2="v2"` of an `OAuth` Authorization header, decoded. */
function oauthHeaderParams(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of header.replace(/^OAuth\s+/i, '').matchAll(/([A-Za-z0-9_.~%-]+)="([^"]*)"/g))
    out[decodeURIComponent(m[1]!)] = decodeURIComponent(m[2]!);
  return out;
}

function verifyOAuth1(req: http.IncomingMessage, body: string): string | undefined {
  const { consumerKey, consumerSecret, token, tokenSecret } = VERIFIER_SECRETS.oauth1;
  const target = req.url ?? '/';
  const [pathPart, query = ''] = target.split(/\?(.*)/s) as [string, string?];
  const queryPairs = query.split('&').filter(Boolean);
  const fromHeader = req.headers.authorization?.startsWith('OAuth ')
    ? oauthHeaderParams(req.headers.authorization)
    : {};
  const params: Record<string, string> = { ...fromHeader };
  for (const p of queryPairs) {
    const [k, v = ''] = p.split('=');
    if (k!.startsWith('oauth_')) params[decodeURIComponent(k!)] = decodeURIComponent(v.replace(/\+/g, ' '));
  }
  const signature = params.oauth_signature;
  if (!signature) return 'no oauth_signature';
  if (params.oauth_consumer_key !== consumerKey) return `unknown consumer ${params.oauth_consumer_key}`;
  if (params.oauth_token !== token) return `unknown token ${params.oauth_token}`;
  const method = params.oauth_signature_method as 'HMAC-SHA1' | 'HMAC-SHA256' | 'HMAC-SHA512' | 'PLAINTEXT';
  if (Math.abs(Number(params.oauth_timestamp) - Date.now() / 1000) > 300) return 'stale oauth_timestamp';
  // The base string covers the query as sent (but its oauth_signature) and the header's protocol parameters.
  const signedTarget = `${pathPart}${query ? '?' : ''}${queryPairs.filter((p) => !p.startsWith('oauth_signature=')).join('&')}`;
  const headerParams = Object.fromEntries(
    Object.entries(fromHeader).filter(([k]) => k !== 'realm' && k !== 'oauth_signature'),
  );
  const form = /^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '') ? body : undefined;
  const base = oauthBaseString(
    req.method!,
    new URL(`http://${req.headers.host}${signedTarget}`),
    signedTarget,
    headerParams,
    form,
  );
  const expected = oauthSignature(method, base, consumerSecret, tokenSecret);
  return expected === signature ? undefined : `signature mismatch (base string ${base})`;
}

const sha256 = (data: string | Buffer) => crypto.createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => crypto.createHmac('sha256', key).update(data).digest();
const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** AWS SigV4, header or query (presigned) form; the reason it fails, or undefined. */
function verifySigV4(req: http.IncomingMessage, body: string): string | undefined {
  const { accessKeyId, secretAccessKey, sessionToken } = VERIFIER_SECRETS.aws;
  const [pathPart, query = ''] = (req.url ?? '/').split(/\?(.*)/s) as [string, string?];
  const pairs = query
    .split('&')
    .filter(Boolean)
    .map((p) => {
      const [k, v = ''] = p.split('=');
      return [decodeURIComponent(k!), decodeURIComponent(v)] as [string, string];
    });
  const q = Object.fromEntries(pairs);
  let credential: string, signedHeaders: string, signature: string, amzDate: string;
  const header = req.headers.authorization ?? '';
  const m = /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(header);
  if (m) {
    [credential, signedHeaders, signature] = [m[1]!, m[2]!, m[3]!];
    amzDate = String(req.headers['x-amz-date'] ?? '');
  } else if (q['X-Amz-Signature']) {
    credential = q['X-Amz-Credential']!;
    signedHeaders = q['X-Amz-SignedHeaders']!;
    signature = q['X-Amz-Signature']!;
    amzDate = q['X-Amz-Date']!;
  } else return 'no SigV4 signature';
  const [key, date, region, service, terminal] = credential.split('/');
  if (key !== accessKeyId || terminal !== 'aws4_request') return `unknown credential ${credential}`;
  const token = q['X-Amz-Security-Token'] ?? req.headers['x-amz-security-token'];
  if (token !== undefined && token !== sessionToken) return 'wrong session token';
  const canonicalQuery = pairs
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a, av], [b, bv]) => (a! < b! ? -1 : a! > b! ? 1 : av! < bv! ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const names = signedHeaders.split(';');
  const canonicalHeaders = names
    .map(
      (n) =>
        `${n}:${String(req.headers[n] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const payload = String(req.headers['x-amz-content-sha256'] ?? sha256(body));
  const canonicalRequest = [req.method, pathPart, canonicalQuery, canonicalHeaders, signedHeaders, payload].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date!), region!), service!), 'aws4_request');
  const expected = crypto.createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return expected === signature
    ? undefined
    : `signature mismatch (canonical request ${JSON.stringify(canonicalRequest)})`;
}

const nonces = new Set<string>();

/** RFC 7616 on the server side: 200 for a right answer to a challenge it made, else 401 with a new challenge. */
function verifyDigest(req: http.IncomingMessage, res: http.ServerResponse, algorithm: string): void {
  const hash = algorithm === 'SHA-256' ? 'sha256' : 'md5';
  const H = (s: string) => crypto.createHash(hash).update(s).digest('hex');
  const answer = parseChallenges(req.headers.authorization ?? '').find((c) => c.scheme === 'digest')?.params;
  const { username, password } = VERIFIER_SECRETS.digest;
  if (answer && nonces.has(answer.nonce ?? '') && answer.username === username && answer.uri === req.url) {
    const ha1 = H(`${username}:${answer.realm}:${password}`);
    const ha2 = H(`${req.method}:${answer.uri}`);
    if (answer.response === H(`${ha1}:${answer.nonce}:${answer.nc}:${answer.cnonce}:${answer.qop}:${ha2}`))
      return send(res, 200, { authenticated: true, user: username });
  }
  const nonce = crypto.randomBytes(16).toString('hex');
  nonces.add(nonce);
  res.setHeader(
    'WWW-Authenticate',
    `Digest realm="assay-verifier", qop="auth", algorithm=${algorithm}, nonce="${nonce}", opaque="${crypto.randomBytes(8).toString('hex')}"`,
  );
  send(res, 401, { authenticated: false });
}

let bombBytes: Buffer | undefined;
/** 1 GiB of the letter a as 64 gzip members of 16 MiB (made once). */
function bomb(): Buffer {
  bombBytes ??= Buffer.concat(Array(64).fill(zlib.gzipSync(Buffer.alloc(16 * 1024 * 1024, 'a'), { level: 9 })));
  return bombBytes;
}

/** Starts the verifier on a free loopback port. */
export async function startVerifier(): Promise<Verifier> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const body = raw.toString('utf8');
      const url = req.url ?? '/';
      if (url === '/upload') return send(res, 200, await describeUpload(req, raw));
      if (url.startsWith('/oauth1')) {
        const why = verifyOAuth1(req, body);
        return send(res, why ? 401 : 200, { authenticated: !why, scheme: 'oauth1', reason: why });
      }
      if (url.startsWith('/aws')) {
        const why = verifySigV4(req, body);
        return send(res, why ? 401 : 200, { authenticated: !why, scheme: 'awsv4', reason: why });
      }
      if (url.startsWith('/hawk')) {
        try {
          const { artifacts } = await hawk.server.authenticate(req, (id) =>
            id === VERIFIER_SECRETS.hawk.id ? VERIFIER_SECRETS.hawk : undefined,
          );
          if (artifacts.hash)
            hawk.server.authenticatePayload(
              body,
              VERIFIER_SECRETS.hawk,
              artifacts,
              String(req.headers['content-type'] ?? ''),
            );
          return send(res, 200, { authenticated: true, scheme: 'hawk', payloadHashed: Boolean(artifacts.hash) });
        } catch (err) {
          return send(res, 401, { authenticated: false, scheme: 'hawk', reason: (err as Error).message });
        }
      }
      const digest = /^\/digest\/(MD5|SHA-256)$/.exec(url);
      if (digest) return verifyDigest(req, res, digest[1]!);
      if (url === '/br') {
        if (!/\bbr\b/.test(String(req.headers['accept-encoding'] ?? ''))) return send(res, 406, { error: 'no br' });
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' });
        return res.end(zlib.brotliCompressSync(JSON.stringify({ n: 42, coding: 'br' })));
      }
      if (url === '/bomb') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        return res.end(bomb());
      }
      if (url.startsWith('/raw')) return send(res, 200, { url, method: req.method });
      if (url.startsWith('/echo')) return send(res, 200, { method: req.method, url, headers: req.headers, body });
      send(res, 404, { error: 'no such route' });
    })().catch((err: unknown) => send(res, 500, { error: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * An HTTPS server on loopback with a self-signed certificate made for it now (the `openssl` command:
 * EC P-256, `CN=localhost`, `subjectAltName` 127.0.0.1 and localhost, valid one day), answering
 * every request with `{"secure": true}`.
 */
export async function startSelfSignedHttps(): Promise<Verifier> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-tls-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
  } catch (err) {
    throw new Error(`the openssl command is needed to make a self-signed certificate: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (_req, res) =>
    send(res, 200, { secure: true }),
  );
  fs.rmSync(dir, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
