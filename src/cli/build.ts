/**
 * Build step (`npm run build`): bundles the `assay` command line into ONE file,
 * `dist/cli/assay.cjs`, that runs with Node 24 alone (no npm install): every dependency
 * (commander, cli-progress, postman-collection, xmlbuilder2, handlebars, yaml, …) and the report
 * assets (uPlot, read by src/reports/assets.ts in the normal build) are inside. The API serves it
 * at `GET /cli/assay.cjs` (docs/cli.md "Install").
 */
import fs from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(__dirname, '../../..');
export const CLI_BUNDLE = path.join(ROOT, 'dist/cli/assay.cjs');

/** Replaces src/reports/assets.ts (which reads files at run time) by a module holding their text. */
const inlineAssets: Plugin = {
  name: 'inline-report-assets',
  setup(b) {
    b.onLoad({ filter: /src[\\/]reports[\\/]assets\.ts$/ }, () => {
      const read = (rel: string) => fs.readFileSync(path.join(ROOT, 'node_modules', rel), 'utf8');
      const uplotJs = read('uplot/dist/uPlot.iife.min.js');
      const uplotCss = read('uplot/dist/uPlot.min.css');
      return {
        contents: `export function reportAssets() { return { uplotJs: ${JSON.stringify(uplotJs)}, uplotCss: ${JSON.stringify(uplotCss)} }; }`,
        loader: 'js',
      };
    });
  },
};

async function main(): Promise<void> {
  const result = await build({
    entryPoints: [path.join(ROOT, 'bin/assay.ts')],
    outfile: CLI_BUNDLE,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    minify: false,
    legalComments: 'eof',
    plugins: [inlineAssets],
    logLevel: 'error',
    metafile: true,
  });
  fs.chmodSync(CLI_BUNDLE, 0o755);
  const bytes = fs.statSync(CLI_BUNDLE).size;
  console.log(`assay CLI bundle: ${path.relative(ROOT, CLI_BUNDLE)} (${Math.round(bytes / 1024)} KiB, ${Object.keys(result.metafile.inputs).length} modules)`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
