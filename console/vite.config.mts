/**
 * Vite build of the web console: a Preact single-page app, bundled with every library
 * (CodeMirror, uPlot) into dist/web (not dist/console: tsc compiles the designer's pure modules
 * there for the unit tests, and this build empties its folder), which the API serves under `/` (api/console.ts). No CDN:
 * the build is self-contained and works offline. `npx vite --config console/vite.config.ts` serves
 * it in development with `/v1` proxied to the API on ASSAY_URL (default http://127.0.0.1:8080).
 */
import path from 'node:path';
import { defineConfig } from 'vite';

const here = import.meta.dirname;
const api = process.env.ASSAY_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root: here,
  base: '/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: path.resolve(here, '../dist/web'),
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
  server: { proxy: { '/v1': api, '/auth': api, '/problems': api, '/mock': api } },
});
