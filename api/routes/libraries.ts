/**
 * Script libraries (spec "Scripts and libraries"; src/sandbox/libraries.ts):
 *
 *   GET /v1/libraries          the built-in and predefined libraries: global, package, version,
 *                              kind, and the stable `url` to list in a script's `libs`
 *   GET /libs/{name}@{version}.js   the library file itself (no key needed; immutable, cacheable)
 *
 * A script that lists one of these URLs gets the file from the worker's disk, never over the
 * network.
 */
import Router from '@koa/router';
import { libraryManifest, librarySource } from '../../src/sandbox/libraries';
import type { ApiDeps, AppState } from '../context';
import { Problem } from '../problem';
import { page } from '../paging';
import { sendImmutableScript } from '../scripts';

export function librariesRouter({ config }: ApiDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/libraries', (ctx) => {
    const items = libraryManifest().libraries.map((l) => ({
      global: l.global,
      name: l.name,
      package: l.package,
      version: l.version,
      kind: l.kind,
      url: `${config.api.publicUrl}/libs/${l.fileName}`,
      size: l.size,
      sha256: l.sha256,
    }));
    ctx.body = page(items, null);
  });
  return router;
}

/** Serves the library files under /libs (public). */
export function libraryFilesRouter(): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/libs/:file', (ctx) => {
    const lib = libraryManifest().libraries.find((l) => l.fileName === ctx.params.file);
    if (!lib) throw new Problem('not-found', `No library file "${ctx.params.file}"; GET /v1/libraries lists them.`);
    sendImmutableScript(ctx, lib.sha256, () => librarySource(lib.fileName));
  });
  return router;
}
