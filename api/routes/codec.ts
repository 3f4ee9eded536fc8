/**
 * The codec server (docs/codec.md): `POST /codec/decode` and `POST /codec/encode`,
 * the Temporal codec server protocol the Web UI and `temporal` CLI speak, so that someone holding an
 * API key reads the encrypted payloads of Assay's workflows (src/temporal/codec.ts) in plain form.
 *
 * Protocol (docs.temporal.io "Codec Server"): the body is `{"payloads": [Payload, …]}` in proto3
 * JSON, i.e. `{"metadata": {name: base64}, "data": base64}`; the answer is the same shape with the
 * payloads run through the codec, in the same order. `decode` leaves payloads that are not
 * encrypted unchanged. The `X-Namespace` header the callers send is accepted and not needed (one
 * key ring serves every namespace).
 *
 * Who reads what (src/temporal/codec.ts `decodeFor`): a key of a workspace (any scope: each can
 * read the workspace's runs through /v1) decodes that workspace's payloads; another workspace's
 * come back as the JSON string "[encrypted: another workspace]", payloads of no workspace (written
 * before per-workspace keys) as a string naming the operator credential. The operator credential
 * (`ASSAY_CODEC_OPERATOR_TOKEN`, as a Bearer token or a codec session) decodes every payload.
 * Secret values sealed inside payloads read `***` to everyone. `encode` encrypts with the
 * caller's workspace key (the operator's: the ring key).
 *
 * Authentication: `Authorization: Bearer <API key or operator token>` (the CLI sends its `--codec-auth`
 * value as that header). The Web UI cannot send an Assay key (its "Pass access token" sends its own
 * sign-in token); it can send cookies ("Include cross-origin credentials"): a browser signs in once
 * at `GET /codec/session` (a form; `POST /codec/session` with `key`, JSON or form-encoded, sets
 * the `assay_codec` cookie: the key's id and an expiry 12 hours ahead sealed with the key ring,
 * HttpOnly, `Path=/codec`, `SameSite=None; Secure`; `DELETE /codec/session` clears it), and a call
 * without `Authorization` is authenticated by that cookie while its key is not revoked nor expired (and, for a user's key, while the user has a role in its workspace). 401 `unauthorized` otherwise, counted by the same failed-authentication limit as /v1.
 *
 * CORS (the Web UI calls from the browser): requests whose `Origin` is the Web UI's
 * (`TEMPORAL_UI_URL`, and its `localhost`/`127.0.0.1` twin: the dev server's UI answers on both) or
 * listed in `ASSAY_CODEC_CORS_ORIGINS` get `Access-Control-Allow-Origin: <that origin>` and
 * `Access-Control-Allow-Credentials: true`; their `OPTIONS` preflight is answered 204 with the
 * allowed method (POST) and headers (`Authorization, Content-Type, X-Namespace`). Other origins
 * get no CORS headers, so a browser keeps their pages from reading answers.
 */
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import { ValueError, type Payload } from '@temporalio/common';
import type { AssayConfig } from '../../src/config';
import { fieldError, type FieldError } from '../../src/problems';
import { findKey, keyExpired } from '../../src/api-keys';
import { keyRingFor } from '../../src/secrets/keyring';
import { ApiKey } from '../../src/store/entities';
import { payloadCodec, type CodecReader, type EncryptionCodec } from '../../src/temporal/codec';
import { authenticate, resolveKeyCaller, type AuthFailureLimiter } from '../auth';
import { jsonBodies, parsedBody } from '../body';
import type { ApiDeps, AppContext, AppState } from '../context';
import { invalid, Problem } from '../problem';

/** The paths this module answers (case-insensitive like the routers). */
const CODEC_PATH = /^\/codec(\/|$)/i;
/** Headers a codec caller may send (the Web UI sends the last one). */
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Namespace';
/**
 * Request bodies up to this size (or ASSAY_MAX_BODY_BYTES when larger): a Temporal payload may be
 * 2 MiB (the server's default blob limit), 2.7 MiB once base64-encoded in JSON.
 */
export const CODEC_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The payload of the protocol: proto3 JSON, bytes as base64. */
export interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
}

/** The origins allowed to call the codec from a browser (see the module comment). */
export function codecOrigins(config: Pick<AssayConfig, 'temporal'>): Set<string> {
  const origins = new Set(config.temporal.codecCorsOrigins);
  try {
    const ui = new URL(config.temporal.uiUrl);
    origins.add(ui.origin);
    const twin = ui.hostname === 'localhost' ? '127.0.0.1' : ui.hostname === '127.0.0.1' ? 'localhost' : undefined;
    if (twin) {
      ui.hostname = twin;
      origins.add(ui.origin);
    }
  } catch {
    /* not a URL: no UI origin */
  }
  return origins;
}

/** CORS for /codec/*: allowed origins get their headers; an `OPTIONS` preflight is answered here. */
export function codecCors(config: Pick<AssayConfig, 'temporal'>): Middleware<AppState> {
  const allowed = codecOrigins(config);
  return async (ctx, next) => {
    if (!CODEC_PATH.test(ctx.path)) return next();
    const origin = ctx.get('Origin');
    ctx.vary('Origin');
    const fromAllowed = origin !== '' && allowed.has(origin);
    if (fromAllowed) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
    }
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') {
      if (fromAllowed) {
        ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
        ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        ctx.set('Access-Control-Max-Age', '600');
      }
      ctx.status = 204;
      return;
    }
    await next();
  };
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Reads the request's payloads; @throws 400 `validation-failed` naming the field at fault. */
export function payloadsFromBody(body: unknown): Payload[] {
  const errors: FieldError[] = [];
  const list = (body as { payloads?: unknown } | undefined)?.payloads;
  if (typeof body !== 'object' || body === null || !Array.isArray(list))
    throw invalid([
      fieldError(['payloads'], 'must be an array of payloads ({"metadata": {name: base64}, "data": base64})'),
    ]);
  const payloads = list.map((raw: unknown, i): Payload => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      errors.push(fieldError(['payloads', i], 'must be an object with `metadata` and `data`'));
      return {};
    }
    const { metadata, data } = raw as JsonPayload;
    const out: Payload = { metadata: {} };
    if (metadata !== undefined && metadata !== null) {
      if (typeof metadata !== 'object' || Array.isArray(metadata))
        errors.push(fieldError(['payloads', i, 'metadata'], 'must be an object of base64 strings'));
      else {
        for (const [name, value] of Object.entries(metadata)) {
          if (typeof value !== 'string' || !BASE64.test(value))
            errors.push(fieldError(['payloads', i, 'metadata', name], 'must be a base64 string'));
          else out.metadata![name] = Buffer.from(value, 'base64');
        }
      }
    }
    if (data !== undefined && data !== null) {
      if (typeof data !== 'string' || !BASE64.test(data))
        errors.push(fieldError(['payloads', i, 'data'], 'must be a base64 string'));
      else out.data = Buffer.from(data, 'base64');
    }
    return out;
  });
  if (errors.length) throw invalid(errors);
  return payloads;
}

/** A payload as proto3 JSON. */
export function payloadToJson(payload: Payload): JsonPayload {
  const json: JsonPayload = {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([name, value]) => [name, Buffer.from(value).toString('base64')]),
    ),
  };
  if (payload.data && payload.data.length > 0) json.data = Buffer.from(payload.data).toString('base64');
  return json;
}

/** Who the request reads as: the operator, else the caller's workspace. */
function readerOf(ctx: AppContext): CodecReader {
  return ctx.state.codecOperator ? { operator: true } : { workspaceId: ctx.state.caller.workspaceId };
}

/** Runs one direction of the codec over the body's payloads; a codec error is a 400 naming the payload. */
function codecHandler(codec: EncryptionCodec, direction: 'encode' | 'decode'): Middleware<AppState> {
  return (ctx: AppContext) => {
    const payloads = payloadsFromBody(parsedBody(ctx));
    const reader = readerOf(ctx);
    const out: Payload[] = [];
    for (const [i, payload] of payloads.entries()) {
      try {
        out.push(...(direction === 'decode' ? codec.decodeFor([payload], reader) : codec.encodeFor([payload], reader)));
      } catch (err) {
        if (err instanceof ValueError) throw invalid([fieldError(['payloads', i], err.message)], err.message);
        throw err;
      }
    }
    // Decoded payloads are what the encryption protects: no cache keeps them.
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { payloads: out.map(payloadToJson) };
  };
}

/**
 * The cookie a browser signed in at `/codec/session` sends: `{key id, expiry}` sealed with the key
 * ring (AES-256-GCM, bound to this use), never the API key itself. HttpOnly, for `/codec` only.
 */
export const CODEC_COOKIE = 'assay_codec';
/** How long a browser stays signed in for the codec (seconds; checked on every call, not only by the browser). */
export const CODEC_SESSION_SECONDS = 12 * 60 * 60;
const SESSION_AAD = 'codec-session';
const KEY_SHAPE = /^[A-Za-z0-9._~-]{8,200}$/;

/** The `assay_codec` cookie of the request, if any. */
function sessionCookie(ctx: AppContext): string | undefined {
  for (const part of ctx.get('Cookie').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === CODEC_COOKIE) return rest.join('=') || undefined;
  }
  return undefined;
}

/** Whether `text` is the operator credential (compared in constant time, as SHA-256 digests). */
function isOperatorToken(config: Pick<AssayConfig, 'temporal'>, text: string): boolean {
  const token = config.temporal.codecOperatorToken;
  if (!token) return false;
  const digest = (t: string): Buffer => createHash('sha256').update(t, 'utf8').digest();
  return timingSafeEqual(digest(token), digest(text));
}

/**
 * Authentication of a codec call: the operator token as a Bearer token; else `Authorization` as on
 * /v1; without it, a valid session cookie (unexpired, sealed by this ring; a key's session while
 * its key is usable (not revoked nor expired; a user's key while the user has a role), an operator's while the token is the same) names the caller.
 */
function codecAuthentication(
  deps: Pick<ApiDeps, 'config' | 'dataSource'>,
  failures?: AuthFailureLimiter,
): Middleware<AppState> {
  const byHeader = authenticate(deps.dataSource, failures);
  const ring = keyRingFor(deps.config.secretKeys, deps.config.dataDir);
  return async (ctx, next) => {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'))?.[1];
    if (bearer && isOperatorToken(deps.config, bearer)) {
      ctx.state.codecOperator = true;
      return next();
    }
    const cookie = ctx.get('Authorization') === '' ? sessionCookie(ctx) : undefined;
    if (cookie) {
      let session: { k?: unknown; o?: unknown; e?: unknown } | undefined;
      try {
        session = JSON.parse(ring.open(cookie, SESSION_AAD)) as { k?: unknown; o?: unknown; e?: unknown };
      } catch {
        session = undefined;
      }
      if (
        session &&
        typeof session.o === 'string' &&
        typeof session.e === 'number' &&
        session.e > Date.now() &&
        deps.config.temporal.codecOperatorToken &&
        session.o === operatorTag(deps.config.temporal.codecOperatorToken)
      ) {
        ctx.state.codecOperator = true;
        return next();
      }
      const key =
        session && typeof session.k === 'string' && typeof session.e === 'number' && session.e > Date.now()
          ? await deps.dataSource.manager.getRepository(ApiKey).findOneBy({ id: session.k })
          : null;
      const caller =
        key && !key.revokedAt && !keyExpired(key) ? await resolveKeyCaller(deps.dataSource.manager, key) : null;
      if (caller && typeof caller !== 'string') {
        ctx.state.caller = caller;
        return next();
      }
    }
    return byHeader(ctx, next);
  };
}

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

/** What an operator's session holds: a digest of the token (a changed token ends every such session). */
function operatorTag(token: string): string {
  return createHash('sha256').update(`assay-codec-operator:${token}`, 'utf8').digest('base64url');
}

/** The sign-in form of `GET /codec/session` (no script: the page's CSP allows none). */
const SIGN_IN_PAGE = page(
  'Assay codec server: sign in for the Temporal Web UI',
  '<p>Paste an Assay API key (any scope: it reads its own workspace&#39;s payloads) or the operator credential. This browser then holds a 12-hour session (an HttpOnly cookie for <code>/codec</code> only, not the key itself) that the Temporal Web UI&#39;s codec calls carry. In the UI&#39;s codec server settings, turn on &ldquo;Include cross-origin credentials&rdquo;.</p>' +
    '<form method="post" action="session"><label>API key <input name="key" type="password" autocomplete="off" required></label> <button>Sign in</button></form>',
);

/** Answers HTML with a CSP that allows no script and forms to this origin only. */
function html(ctx: AppContext, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', "default-src 'none'; form-action 'self'; frame-ancestors 'none'");
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

/** Reads `key` from a small form-encoded or JSON body. @throws 400/415 problems. */
async function keyFromBody(ctx: AppContext): Promise<string> {
  const form = ctx.is('application/x-www-form-urlencoded');
  if (!form && !ctx.is('application/json'))
    throw new Problem('unsupported-media-type', 'Send the key as JSON ({"key": "…"}) or as a form field `key`.');
  let text = '';
  for await (const chunk of ctx.req) {
    text += (chunk as Buffer).toString('utf8');
    if (text.length > 4096) throw new Problem('payload-too-large', 'The sign-in body is at most 4096 bytes.');
  }
  let key: unknown;
  if (form) key = new URLSearchParams(text).get('key');
  else {
    try {
      key = (JSON.parse(text) as { key?: unknown } | null)?.key;
    } catch {
      throw new Problem('malformed-json', 'The request body is not valid JSON.');
    }
  }
  if (typeof key !== 'string' || key.trim() === '') throw invalid([fieldError(['key'], 'must be an API key')]);
  return key.trim();
}

/** `POST /codec/encode`, `POST /codec/decode` and the browser session (mount {@link codecCors} before it). */
export function codecRouter(
  deps: Pick<ApiDeps, 'config' | 'dataSource'>,
  failures?: AuthFailureLimiter,
): Router<AppState> {
  const codec = payloadCodec(deps.config);
  const ring = keyRingFor(deps.config.secretKeys, deps.config.dataDir);
  const guard = compose<AppContext>([
    codecAuthentication(deps, failures),
    jsonBodies(Math.max(deps.config.api.maxBodyBytes, CODEC_MAX_BODY_BYTES)),
  ]);
  const router = new Router<AppState>();
  router.post('/codec/encode', guard, codecHandler(codec, 'encode'));
  router.post('/codec/decode', guard, codecHandler(codec, 'decode'));
  router.get('/codec/session', (ctx) => html(ctx, 200, SIGN_IN_PAGE));
  router.post('/codec/session', async (ctx) => {
    const address = ctx.req.socket.remoteAddress ?? 'unknown';
    await failures?.check(address);
    const text = await keyFromBody(ctx);
    const expiry = Date.now() + CODEC_SESSION_SECONDS * 1000;
    let session: { k: string; e: number } | { o: string; e: number };
    if (isOperatorToken(deps.config, text)) session = { o: operatorTag(text), e: expiry };
    else {
      const key = KEY_SHAPE.test(text) ? await findKey(deps.dataSource.manager, text) : null;
      if (!key) {
        await failures?.fail(address);
        throw new Problem('unauthorized', 'The API key is unknown or has been revoked.');
      }
      session = { k: key.id, e: expiry };
    }
    const sealed = ring.seal(JSON.stringify(session), SESSION_AAD);
    ctx.append(
      'Set-Cookie',
      `${CODEC_COOKIE}=${sealed}; Path=/codec; Max-Age=${CODEC_SESSION_SECONDS}; HttpOnly; Secure; SameSite=None`,
    );
    if (ctx.is('application/json')) {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { signedIn: true, expiresInSeconds: CODEC_SESSION_SECONDS };
    } else {
      html(
        ctx,
        200,
        page(
          'Signed in',
          `<p>This browser may read decoded payloads in the Temporal Web UI for ${CODEC_SESSION_SECONDS / 3600} hours.</p>`,
        ),
      );
    }
  });
  router.delete('/codec/session', (ctx) => {
    ctx.append('Set-Cookie', `${CODEC_COOKIE}=; Path=/codec; Max-Age=0; HttpOnly; Secure; SameSite=None`);
    ctx.status = 204;
  });
  return router;
}
