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
    alias: Object.fromEntries(
      ['events', 'timers', 'stream', 'string_decoder'].map((m) => [m, path.join(SHIMS, `${m}.js`)]),
    ),
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
