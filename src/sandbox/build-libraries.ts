/**
 * Build step (`npm run build`): writes the sandbox runtime and libraries to dist/sandbox-libs with
 * a manifest. Checks that each installed package has the version the spec pins, so an upgrade
 * cannot slip in unnoticed.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { LIBRARIES, LIBS_DIR, libraryFileName, type BuiltLibrary, type LibraryManifest } from './libraries';

const ROOT = path.resolve(__dirname, '../../..');
const SHIMS = path.join(ROOT, 'src/sandbox/postman/shims');

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The folder of an ajv 6 package, which the Postman library's `jsonSchema` and `require('ajv')`
 * use (src/sandbox/postman/pm.js), as postman-sandbox 6.7.4 bundles ajv 6.12.5 (its
 * package.json): the package `ajv6` (an npm alias of ajv 6) when installed, else the ajv 6 that
 * Newman's request library (har-validator) installs. @throws when neither is an ajv 6.
 */
function ajv6Dir(): string {
  for (const dir of ['node_modules/ajv6', 'node_modules/har-validator/node_modules/ajv']) {
    const manifest = path.join(ROOT, dir, 'package.json');
    if (!fs.existsSync(manifest)) continue;
    const { name, version } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name: string; version: string };
    if (name === 'ajv' && version.startsWith('6.')) return path.join(ROOT, dir);
  }
  throw new Error('ajv 6 is not installed (the package ajv6, an alias of ajv@6): the Postman library needs it');
}

async function iife(entry: { contents?: string; file?: string }, define: Record<string, string> = {}): Promise<string> {
  const result = await build({
    ...(entry.file
      ? { entryPoints: [entry.file] }
      : { stdin: { contents: entry.contents!, resolveDir: ROOT, loader: 'js' } }),
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    define,
    legalComments: 'inline',
    logLevel: 'silent',
    nodePaths: [path.join(ROOT, 'node_modules')],
    // The Node built-ins xml2js and sax import (the Postman library's `xml2Json`), in the few lines they use.
    alias: {
      ...Object.fromEntries(
        ['events', 'timers', 'stream', 'string_decoder'].map((m) => [m, path.join(SHIMS, `${m}.js`)]),
      ),
      ajv6: ajv6Dir(),
    },
  });
  return result.outputFiles[0]!.text;
}

async function main(): Promise<void> {
  fs.mkdirSync(LIBS_DIR, { recursive: true });
  // fast-text-encoding installs itself on `window` or `global`; in the isolate that is globalThis.
  const runtime = await iife({ file: path.join(ROOT, 'src/sandbox/runtime/bootstrap.js') }, { global: 'globalThis' });
  fs.writeFileSync(path.join(LIBS_DIR, 'runtime.js'), runtime);

  const libraries: BuiltLibrary[] = [];
  for (const lib of LIBRARIES) {
    const pkgDir = path.join(ROOT, 'node_modules', lib.package);
    const installed = (JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string })
      .version;
    const pinned = lib.packageVersion ?? lib.version;
    if (installed !== pinned) throw new Error(`${lib.package} is ${installed}, the sandbox pins ${pinned}`);
    const text = lib.file ? fs.readFileSync(path.join(pkgDir, lib.file), 'utf8') : await iife({ contents: lib.bundle });
    const fileName = libraryFileName(lib);
    fs.writeFileSync(path.join(LIBS_DIR, fileName), text);
    libraries.push({ ...lib, fileName, size: Buffer.byteLength(text), sha256: digest(text) });
  }
  const manifest: LibraryManifest = {
    runtime: { fileName: 'runtime.js', size: Buffer.byteLength(runtime), sha256: digest(runtime) },
    libraries,
  };
  fs.writeFileSync(path.join(LIBS_DIR, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(
    `sandbox libraries: runtime ${kib(manifest.runtime.size)}, ${libraries.map((l) => `${l.global} ${kib(l.size)}`).join(', ')}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
