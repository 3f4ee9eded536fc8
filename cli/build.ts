/**
 * Build step (`npm run build`): bundles the `assay` command line into ONE file,
 * `dist/cli/assay.cjs`, that runs with Node 22 or 24 alone (no npm install): every dependency
 * (commander, cli-progress, postman-collection, xmlbuilder2, handlebars, yaml, …) and the report
 * assets (uPlot, read by cli/reports/assets.ts in the normal build) are inside. The API serves it
 * at `GET /cli/assay.cjs` (docs/cli.md "Install"). Its first code is cli/node-check.ts, which
 * refuses an older Node (12 to 21) in one line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(__dirname, '../..');
export const CLI_BUNDLE = path.join(ROOT, 'dist/cli/assay.cjs');

/**
 * Packages the bundle may not contain, with why: each needs a newer Node than the CLI's oldest
 * (cli/node-check.ts). undici 8 needs Node 22.19 and dies on load before that; the
 * CLI's HTTP goes through the global `fetch`.
 */
const NOT_IN_BUNDLE: Record<string, string> = {
  undici: 'undici 8 needs Node 22.19 or newer: use the global fetch in code the CLI imports',
};

/** Replaces cli/reports/assets.ts (which reads files at run time) by a module holding their text. */
const inlineAssets: Plugin = {
  name: 'inline-report-assets',
  setup(b) {
    b.onLoad({ filter: /cli[\\/]reports[\\/]assets\.ts$/ }, () => {
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
    // Syntax only (esbuild polyfills no API): lowered to what Node 12 parses (`?.`, `??`, `??=`…),
    // so that on an old Node the file parses and its first module, cli/node-check.ts, prints
    // its one line instead of a SyntaxError. The CLI itself needs Node 22, which that check enforces.
    target: 'node12',
    format: 'cjs',
    minify: false,
    legalComments: 'eof',
    plugins: [inlineAssets],
    logLevel: 'error',
    metafile: true,
  });
  for (const input of Object.keys(result.metafile.inputs)) {
    const pkg = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1]; // the innermost package
    if (pkg && NOT_IN_BUNDLE[pkg])
      throw new Error(`The CLI bundle may not contain ${pkg} (${input}): ${NOT_IN_BUNDLE[pkg]}`);
  }
  fs.chmodSync(CLI_BUNDLE, 0o755);
  const bytes = fs.statSync(CLI_BUNDLE).size;
  console.log(
    `assay CLI bundle: ${path.relative(ROOT, CLI_BUNDLE)} (${Math.round(bytes / 1024)} KiB, ${Object.keys(result.metafile.inputs).length} modules)`,
  );
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
