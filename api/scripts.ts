/**
 * Answering with a library script that never changes at its address (the API's `/libs/…`, the
 * bundler's `/blobs/…`): `text/javascript; charset=utf-8` (RFC 9239), a year of `immutable`
 * caching (RFC 8246), the content hash as strong `ETag` with 304 for a matching `If-None-Match`
 * (RFC 9110 §13.1.2), and open CORS so a browser may load it (spec "Custom libraries" 1).
 */
import type { AppContext } from './context';

/** @param sha256 hex hash of `code`, the ETag; `code` is read only when the client lacks it */
export function sendImmutableScript(ctx: AppContext, sha256: string, code: () => string): void {
  const etag = `"${sha256}"`;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('X-Content-Type-Options', 'nosniff');
  const asked = ctx.get('If-None-Match');
  if (asked && asked.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'text/javascript; charset=utf-8';
  ctx.body = code();
}
