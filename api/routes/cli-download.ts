/**
 * `GET /cli/assay.cjs` (no key needed): the `assay` command line as one file that runs with Node 24
 * alone (cli/build.ts), so a CI job on a clean machine can fetch it from the Assay it talks to:
 * `curl -fsSO "$ASSAY_URL/cli/assay.cjs" && node assay.cjs run …` (docs/cli.md "Install").
 * Answers 404 `not-found` when the build has not made it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { AppState } from '../context';
import { Problem } from '../problem';

/** Where the build writes the bundle (dist/cli/assay.cjs, beside dist/api). */
export const CLI_BUNDLE_FILE = path.resolve(__dirname, '../../cli/assay.cjs');

export function cliDownloadRouter(file = CLI_BUNDLE_FILE): Router<AppState> {
  const router = new Router<AppState>();
  let cached: { mtimeMs: number; body: Buffer; etag: string } | undefined;
  router.get('/cli/assay.cjs', (ctx) => {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      throw new Problem('not-found', 'The CLI bundle is not built: run `npm run build`.');
    }
    if (!cached || cached.mtimeMs !== stat.mtimeMs) {
      const body = fs.readFileSync(file);
      cached = {
        mtimeMs: stat.mtimeMs,
        body,
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      };
    }
    ctx.set('ETag', cached.etag);
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Disposition', 'attachment; filename="assay.cjs"');
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (ctx.get('If-None-Match') === cached.etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = cached.body;
  });
  return router;
}
